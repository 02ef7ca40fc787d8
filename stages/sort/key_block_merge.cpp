#include "stages/sort/key_block_merge.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>

#include <algorithm>
#include <limits>

namespace gpp::stages::sort {

std::vector<std::size_t> block_ends(std::span<const LoadedRun> runs) {
  std::vector<std::size_t> ends(runs.size());
  std::uint64_t bound = std::numeric_limits<std::uint64_t>::max();
  std::size_t spent = runs.size();  // r*: the lowest run whose batch ends at the bound
  for (std::size_t r = 0; r < runs.size(); ++r) {
    ends[r] = runs[r].next;
    if (runs[r].has_records() && (spent == runs.size() || runs[r].keys.back() < bound)) {
      bound = runs[r].keys.back();
      spent = r;
    }
  }
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (!runs[r].has_records()) continue;
    const auto first = runs[r].keys.begin() + static_cast<std::ptrdiff_t>(runs[r].next);
    if (r == spent) {
      ends[r] = runs[r].keys.size();
    } else if (r < spent) {
      ends[r] = static_cast<std::size_t>(std::upper_bound(first, runs[r].keys.end(), bound) -
                                         runs[r].keys.begin());
    } else {
      ends[r] = static_cast<std::size_t>(std::lower_bound(first, runs[r].keys.end(), bound) -
                                         runs[r].keys.begin());
    }
  }
  return ends;
}

void block_order(std::span<const LoadedRun> runs, std::span<const std::size_t> ends,
                 std::vector<io::ReadBatch::RowRef>& rows) {
  struct Entry {
    std::uint64_t key;
    std::uint64_t tie;  // run << 32 | row: equal keys in run order, then row order
  };
  std::vector<std::size_t> starts(runs.size() + 1, 0);
  for (std::size_t r = 0; r < runs.size(); ++r)
    starts[r + 1] = starts[r] + (ends[r] - runs[r].next);
  std::vector<Entry> entries(starts.back());
  oneapi::tbb::parallel_for(std::size_t{0}, runs.size(), [&](std::size_t r) {
    for (std::size_t row = runs[r].next; row < ends[r]; ++row) {
      entries[starts[r] + row - runs[r].next] = {runs[r].keys[row],
                                                 std::uint64_t{r} << 32 | std::uint64_t{row}};
    }
  });
  oneapi::tbb::parallel_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.tie < b.tie;
  });
  rows.resize(entries.size());
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, entries.size(), std::size_t{1} << 14),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        for (std::size_t k = range.begin(); k != range.end(); ++k) {
          rows[k] = {static_cast<std::uint32_t>(entries[k].tie >> 32),
                     static_cast<std::uint32_t>(entries[k].tie)};
        }
      });
}

}  // namespace gpp::stages::sort
