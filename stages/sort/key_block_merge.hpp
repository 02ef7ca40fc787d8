// The stable merge of runs sorted by a 64-bit key (coordinate order) when each run is loaded a
// batch at a time, a block of records at a time instead of one record at a time.
//
// The runs' records come in merged order by (key, run, row): ties go to the lower-numbered run,
// as RunMerge's do, so the result is that of one stable sort of the whole input. A block is what
// can be merged from the batches now loaded: with `bound` the smallest last key of a loaded batch
// and r* the lowest run whose batch ends at it, every record below the bound, the records at the
// bound of the runs below r* (their batches go past it, so they hold all of theirs), and all of
// r*'s batch (whatever r*'s next batch holds at the bound comes before the later runs' records
// at it). Run r*'s batch is then spent, to be replaced by its next one. The order of a block is
// found by sorting it in parallel, so a merge thread no longer chooses record by record.
//
// @code
//   std::vector<LoadedRun> loaded = ...;             // each run's keys and its first unmerged row
//   const std::vector<std::size_t> ends = block_ends(loaded);
//   block_order(loaded, ends, rows);                 // (run, row) in merged order
//   for (r ...) loaded[r].next = ends[r];            // then refill the spent batches
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "io/reads/read_batch.hpp"

namespace gpp::stages::sort {

/// A run's loaded batch: its records' keys (non-decreasing) and the first record not yet merged.
struct LoadedRun {
  std::span<const std::uint64_t> keys;
  std::size_t next = 0;
  bool has_records() const { return next < keys.size(); }
};

/// The end (exclusive) of what the next block takes from each run's batch: [next, end). Every
/// end equals its next only when no run holds a record.
std::vector<std::size_t> block_ends(std::span<const LoadedRun> runs);

/// Replaces `rows` with the block's records, [runs[r].next, ends[r]) of each run r, in merged
/// order (by key, then run, then row), sorted in parallel.
void block_order(std::span<const LoadedRun> runs, std::span<const std::size_t> ends,
                 std::vector<io::ReadBatch::RowRef>& rows);

}  // namespace gpp::stages::sort
