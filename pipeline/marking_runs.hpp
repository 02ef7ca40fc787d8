// MarkingRuns: what duplicate marking needs of each record — its coordinate key, reference,
// flag, mate's reference, library, EndFeatures and (for ends that may pair) its name — kept in
// sorted runs on disk beside the spilled records, so that marking needs no memory per record.
// merge() visits them in the order SpilledRuns merges the records (by coordinate key, ties by run
// and then by place in the run), with each record's index in that order: Picard's index in file.
//
// @code
//   MarkingRuns runs(tmp_dir);
//   runs.add(chunk, sorted, features, libraries);             // per spilled run
//   runs.merge(budget, [&](const MarkingRuns::Block& b, std::size_t row, std::uint64_t index) {
//     ... b.columns.flag[row], b.features.five_prime[row] ...
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
  /// Rows of records read back: `columns` holds tid, pos (unset), flag, mate_tid, library (the
  /// library key) and the name (empty unless the record's end may pair); `features` its
  /// EndFeatures.
  struct Block {
    io::Column<std::uint64_t> keys;  ///< stages::sort::coordinate_keys
    io::ReadBatch columns;
    stages::markdup::EndFeatures features{"null"};
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

  /// Visits every row of every run in merged order; `memory_bytes` bounds the read buffers.
  void merge(std::uint64_t memory_bytes,
             const std::function<void(const Block&, std::size_t row, std::uint64_t index)>& visit);

 private:
  std::string directory_;
  std::vector<std::unique_ptr<SpillFile>> runs_;
  std::uint64_t records_ = 0;
};

}  // namespace gpp::pipeline
