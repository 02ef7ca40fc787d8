#include "stages/call/read_window.hpp"

#include <algorithm>

namespace gpp::stages::call {

void ReadWindow::append(std::vector<CallRead>&& chunk) {
  if (chunk.empty()) return;
  size_ += chunk.size();
  chunks_.push_back(std::move(chunk));
}

ReadWindow::Iterator ReadWindow::first_starting_at(std::int64_t position) const {
  const auto before = [](const CallRead& read, std::int64_t p) { return read.start < p; };
  // The first chunk whose last read starts at or after `position` holds the answer.
  const auto chunk = std::partition_point(
      chunks_.begin(), chunks_.end(),
      [&](const std::vector<CallRead>& c) { return c.back().start < position; });
  if (chunk == chunks_.end()) return end();
  const auto index = static_cast<std::size_t>(chunk - chunks_.begin());
  const auto from = chunk->begin() + static_cast<std::ptrdiff_t>(index == 0 ? front_ : 0);
  const auto read = std::lower_bound(from, chunk->end(), position, before);
  return {&chunks_, index, static_cast<std::size_t>(read - chunk->begin())};
}

void ReadWindow::drop_front(std::size_t count) {
  count = std::min(count, size_);
  size_ -= count;
  while (count > 0) {
    const std::size_t here = std::min(count, chunks_.front().size() - front_);
    front_ += here;
    count -= here;
    if (front_ == chunks_.front().size()) {
      std::vector<CallRead> spent = std::move(chunks_.front());
      chunks_.pop_front();
      front_ = 0;
      retire(std::move(spent));
    }
  }
}

void ReadWindow::retire(std::vector<CallRead>&& chunk) {
  if (freeing_.valid()) freeing_.get();  // a chunk spans a megabase: long since freed
  freeing_ =
      std::async(std::launch::async, [dropped = std::move(chunk)]() mutable { dropped = {}; });
}

}  // namespace gpp::stages::call
