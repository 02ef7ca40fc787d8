// Host arrays to the GPU through page-locked memory: copies from pageable memory are staged by
// the driver on one thread (a few GB/s); copying into a page-locked buffer with oneTBB and then
// with one asynchronous DMA is several times faster and lets the copy overlap other work.
#pragma once

#include <cuda_runtime.h>

#include <span>
#include <utility>
#include <vector>

#include "core/parallel_copy.hpp"
#include "kernels/device/cuda/cuda_check.cuh"

namespace gpp::kernels::cuda {

/// Grows `buffer` to at least `count` elements (contents dropped); the caller makes sure no copy
/// or kernel still uses it.
template <typename Buffer>
void reserve(Buffer& buffer, std::size_t count) {
  if (buffer.size() < count) buffer = Buffer(count + count / 4);
}

/**
 * @brief Several host arrays uploaded together: add() places each at an aligned offset of one
 * page-locked buffer, upload() copies them there with oneTBB and enqueues one copy to one device
 * buffer. Reuse after the stream has finished the previous upload.
 */
class StagedUpload {
 public:
  /// Places `host` in the next upload; returns its device address once upload() has run.
  template <typename T>
  std::size_t add(std::span<const T> host) {
    const std::size_t offset = (bytes_ + 255) / 256 * 256;
    pieces_.push_back({host.data(), host.size_bytes(), offset});
    bytes_ = offset + host.size_bytes();
    return offset;
  }
  /// Copies the added arrays to the device on `stream` and starts a new list.
  void upload(const Stream& stream) {
    reserve(pinned_, bytes_);
    reserve(device_, bytes_);
    for (const Piece& p : pieces_) parallel_copy(pinned_.data() + p.offset, p.host, p.bytes);
    if (bytes_ > 0)
      check(cudaMemcpyAsync(device_.data(), pinned_.data(), bytes_, cudaMemcpyHostToDevice,
                            stream.get()),
            "copy to the GPU");
    pieces_.clear();
    bytes_ = 0;
  }
  template <typename T>
  T* device(std::size_t offset) const {
    return reinterpret_cast<T*>(device_.data() + offset);
  }

 private:
  struct Piece {
    const void* host;
    std::size_t bytes;
    std::size_t offset;
  };
  std::vector<Piece> pieces_;
  std::size_t bytes_ = 0;
  PinnedBuffer<unsigned char> pinned_;
  DeviceBuffer<unsigned char> device_;
};

}  // namespace gpp::kernels::cuda
