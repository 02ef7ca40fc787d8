// JavaPriorityQueue: java.util.PriorityQueue's binary heap (offer = siftUp, poll = siftDown), so
// that elements equal under the comparator leave in the order Java's queue gives them — what a
// port of GATK's or htsjdk's use of a PriorityQueue needs to be exact.
//
// `compare(a, b)` returns a negative, zero or positive int as Comparator.compare does.
//
// @code
//   JavaPriorityQueue<int, std::function<int(int, int)>> queue([](int a, int b) { return a - b; });
//   queue.offer(3);
//   queue.offer(1);
//   queue.poll();  // 1
// @endcode
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gpp {

template <typename T, typename Compare>
class JavaPriorityQueue {
 public:
  explicit JavaPriorityQueue(Compare compare = Compare()) : compare_(std::move(compare)) {}

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  /// PriorityQueue.offer: siftUpUsingComparator.
  void offer(T x) {
    std::size_t k = heap_.size();
    heap_.push_back(x);
    while (k > 0) {
      const std::size_t parent = (k - 1) / 2;
      if (compare_(x, heap_[parent]) >= 0) break;
      heap_[k] = heap_[parent];
      k = parent;
    }
    heap_[k] = std::move(x);
  }

  /// PriorityQueue.poll (the queue must not be empty): the head, the last element sifted down
  /// from the root (siftDownUsingComparator).
  T poll() {
    T result = std::move(heap_.front());
    T x = std::move(heap_.back());
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n > 0) {
      std::size_t k = 0;
      while (k < n / 2) {
        std::size_t child = 2 * k + 1;
        if (child + 1 < n && compare_(heap_[child], heap_[child + 1]) > 0) ++child;
        if (compare_(x, heap_[child]) <= 0) break;
        heap_[k] = std::move(heap_[child]);
        k = child;
      }
      heap_[k] = std::move(x);
    }
    return result;
  }

 private:
  Compare compare_;
  std::vector<T> heap_;
};

}  // namespace gpp
