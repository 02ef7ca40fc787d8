// A CIGAR under construction: BAM-packed elements (length << 4 | op) with room for a few inline,
// so that building a million short CIGARs costs no heap allocation each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpp::kernels {

class CigarBuilder {
 public:
  static constexpr std::size_t kInline = 8;

  void clear() {
    size_ = 0;
    heap_.clear();
  }
  void push_back(std::uint32_t element) {
    if (size_ < kInline) {
      inline_[size_] = element;
    } else {
      if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
      heap_.push_back(element);
    }
    ++size_;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint32_t* data() { return size_ <= kInline ? inline_ : heap_.data(); }
  const std::uint32_t* data() const { return size_ <= kInline ? inline_ : heap_.data(); }
  std::uint32_t* begin() { return data(); }
  std::uint32_t* end() { return data() + size_; }
  const std::uint32_t* begin() const { return data(); }
  const std::uint32_t* end() const { return data() + size_; }
  std::uint32_t& back() { return data()[size_ - 1]; }

 private:
  std::size_t size_ = 0;
  std::uint32_t inline_[kInline] = {};
  std::vector<std::uint32_t> heap_;  ///< all elements once there are more than kInline
};

}  // namespace gpp::kernels
