// MarkingRuns: what duplicate marking needs of each record — its coordinate key, reference,
// flag, mate's reference, library, EndFeatures and (for ends that may pair) its name — kept in
// sorted runs on disk beside the spilled records, so that marking needs no memory per record.
// merge() visits them in the order SpilledRuns merges the records (by coordinate key, ties by run
// and then by place in the run), with each record's index in that order: Picard's index in file.
// The merged order is cut into pieces of consecutive records at key bounds (a key never spans two
// pieces; every record of no reference is in the last piece), each merged on a thread of its own
// from the blocks where its bound lies in each run.
//
// @code
//   MarkingRuns runs(tmp_dir);
//   runs.add(chunk, sorted, features, libraries);             // per spilled run
//   const std::size_t pieces = runs.cut(16, budget);
//   runs.merge(budget, [&](std::size_t piece, const MarkingRuns::Block& b, std::size_t row,
//                          std::uint64_t index) {
//     ... b.columns.flag[row], b.features.five_prime[row] ...    // rows of one piece in order
//   });
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/reads/read_batch.hpp"
#include "pipeline/spill_file.hpp"
#include "stages/markdup/end_features.hpp"

namespace gpp::pipeline {

class MarkingRuns {
 public:
  /// Rows of records read back: `columns` holds tid (from the key), pos (unset), flag, mate_tid,
  /// library (the library key) and the name (empty unless the record's end may pair); `features`
  /// its EndFeatures but for name_hash (left empty: stages::markdup::end_name_hash of the name).
  struct Block {
    io::Column<std::uint64_t> keys;  ///< stages::sort::coordinate_keys
    io::ReadBatch columns;
    stages::markdup::EndFeatures features{"null"};
    std::size_t run = 0;          ///< the run it was read from (in the order of add())
    std::uint64_t first_row = 0;  ///< its first row's place in that run
    std::size_t size() const { return keys.size(); }
  };

  explicit MarkingRuns(std::string directory);
  ~MarkingRuns();

  /// Writes the rows of `chunk` in `sorted` (coordinate order) as the next run, with their
  /// `features` and library keys (`libraries`, by record of `chunk`).
  void add(const io::ReadBatch& chunk, std::span<const std::uint32_t> sorted,
           const stages::markdup::EndFeatures& features, std::span<const std::int32_t> libraries);

  std::uint64_t records() const { return records_; }
  std::uint64_t disk_bytes() const;

  /// Cuts the merged order into at most `most` pieces of about equal size (fewer when the runs
  /// are small, or when a cursor on every run for every piece would not fit in an eighth of
  /// `memory_bytes`: merge()'s share); returns how many. Without it, merge() visits one piece.
  std::size_t cut(std::size_t most, std::uint64_t memory_bytes);

  /// Visits every row of every run: the rows of each piece in merged order, on one thread per
  /// piece (pieces side by side); `memory_bytes` bounds the read buffers of all of them.
  using Visit =
      std::function<void(std::size_t piece, const Block&, std::size_t row, std::uint64_t index)>;
  void merge(std::uint64_t memory_bytes, const Visit& visit);

  /// After merge(): by run, the rows of each run that pieces before `piece` visited (a piece
  /// visits a consecutive range of every run's rows).
  const std::vector<std::uint64_t>& first_rows(std::size_t piece) const {
    return first_rows_[piece];
  }

 private:
  /// Where a block of rows starts in its run's file.
  struct BlockStart {
    std::uint64_t first_key = 0;
    std::uint64_t offset = 0;     ///< byte offset in the file
    std::uint64_t first_row = 0;  ///< rows of the run before it
  };
  /// Visits the rows of `piece`; returns how many. Sets `first_rows` (first_rows()).
  std::uint64_t merge_piece(std::size_t piece, std::size_t buffer_bytes, const Visit& visit,
                            std::vector<std::uint64_t>& first_rows) const;

  std::string directory_;
  std::vector<std::unique_ptr<SpillFile>> runs_;
  std::vector<std::vector<BlockStart>> blocks_;  ///< by run
  std::vector<std::uint64_t> bounds_;  ///< piece p holds keys in [bounds_[p - 1], bounds_[p])
  std::vector<std::vector<std::uint64_t>> first_rows_;  ///< by piece, by run
  std::uint64_t records_ = 0;
};

}  // namespace gpp::pipeline
