// ByteBuffer: a growable byte array that is not zero-filled (io/ internal). The BAM codecs
// overwrite every byte they ask for, so zero-filling hundreds of megabytes would be wasted work.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

namespace gpp::io::detail {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(ByteBuffer&& other) noexcept
      : data_(std::move(other.data_)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  ByteBuffer& operator=(ByteBuffer&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  std::uint8_t* data() { return data_.get(); }
  const std::uint8_t* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

  /// Sets the size; the first min(old, new) bytes are kept, new bytes are uninitialised.
  void resize_uninitialized(std::size_t size) {
    if (size > capacity_) {
      const std::size_t capacity = std::max(size, capacity_ + capacity_ / 2);
      auto grown = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
      if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
      data_ = std::move(grown);
      capacity_ = capacity;
    }
    size_ = size;
  }

 private:
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace gpp::io::detail
