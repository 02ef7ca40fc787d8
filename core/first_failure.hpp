// The first of many items that fail, when the items are checked in parallel in any order.
#pragma once

#include <atomic>
#include <cstddef>

namespace gpp {

/// Holds the lowest index reported to it; starts at `none`.
class FirstFailure {
 public:
  explicit FirstFailure(std::size_t none) : first_(none) {}
  /// Item `index` failed (from any thread).
  void report(std::size_t index) {
    for (std::size_t seen = first_.load();
         index < seen && !first_.compare_exchange_weak(seen, index);) {
    }
  }
  std::size_t get() const { return first_.load(); }

 private:
  std::atomic<std::size_t> first_;
};

}  // namespace gpp
