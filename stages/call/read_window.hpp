// ReadWindow: the caller's reads in flight, in coordinate order, held in the chunks they arrived
// in. A chunk is taken whole (no read is moved), a read stays in place until it is dropped (the
// batches in flight hold pointers to reads), and a chunk whose reads are all dropped is freed on
// a thread of its own: at 30x a contig passes millions of reads, each with its own buffers
// allocated on many threads, and freeing them costs the calling thread a second per 2 M reads
// on a 16-core host.
//
// @code
//   ReadWindow window;
//   window.append(std::move(chunk));                      // coordinate order, after the last
//   for (auto it = window.first_starting_at(from); it != window.end(); ++it) { ... *it ... }
//   window.drop_front(window.leading([&](const CallRead& r) { return r.end() <= done; }));
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <future>
#include <iterator>
#include <vector>

#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

class ReadWindow {
 public:
  /// Forward iterator over the reads in coordinate order.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = CallRead;
    using difference_type = std::ptrdiff_t;
    using pointer = const CallRead*;
    using reference = const CallRead&;

    Iterator() = default;
    reference operator*() const { return (*chunks_)[chunk_][offset_]; }
    pointer operator->() const { return &**this; }
    Iterator& operator++() {
      if (++offset_ == (*chunks_)[chunk_].size()) {
        ++chunk_;
        offset_ = 0;
      }
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator& other) const {
      return chunk_ == other.chunk_ && offset_ == other.offset_;
    }

   private:
    friend class ReadWindow;
    Iterator(const std::deque<std::vector<CallRead>>* chunks, std::size_t chunk, std::size_t offset)
        : chunks_(chunks), chunk_(chunk), offset_(offset) {}
    const std::deque<std::vector<CallRead>>* chunks_ = nullptr;
    std::size_t chunk_ = 0;
    std::size_t offset_ = 0;
  };

  /// Adds `chunk` after the reads held (coordinate order continued). An empty chunk adds nothing.
  void append(std::vector<CallRead>&& chunk);

  bool empty() const { return chunks_.empty(); }
  std::size_t size() const { return size_; }
  const CallRead& front() const { return chunks_.front()[front_]; }
  const CallRead& back() const { return chunks_.back().back(); }
  Iterator begin() const { return {&chunks_, 0, front_}; }
  Iterator end() const { return {&chunks_, chunks_.size(), 0}; }

  /// The first read whose start is at or after `position` (end() if none).
  Iterator first_starting_at(std::int64_t position) const;

  /// How many reads from the front satisfy `done`, up to the first that does not.
  template <typename Predicate>
  std::size_t leading(const Predicate& done) const {
    std::size_t count = 0;
    for (Iterator it = begin(); it != end() && done(*it); ++it) ++count;
    return count;
  }

  /// Drops the first `count` reads (at most size()); a chunk's memory goes once all its reads
  /// are dropped.
  void drop_front(std::size_t count);

 private:
  void retire(std::vector<CallRead>&& chunk);

  std::deque<std::vector<CallRead>> chunks_;  ///< none empty
  std::size_t front_ = 0;                     ///< first read held in chunks_.front()
  std::size_t size_ = 0;
  std::future<void> freeing_;  ///< the last retired chunk being freed; waited for when destroyed
};

}  // namespace gpp::stages::call
