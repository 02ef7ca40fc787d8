// Duplicate marking of an input larger than --max-memory (`markdup`, `run`): the input is read
// once, in runs of a third of the budget. Of each run, the marking columns and EndFeatures are
// kept (stages/markdup/marking_columns.hpp) and the records are spilled in coordinate order
// (pipeline/spilled_runs.hpp). mark_duplicates then works on what was kept, and merge() hands the
// records back in coordinate order — the order the in-memory path writes — with their new FLAG.
// The output is the in-memory path's, byte for byte.
//
// @code
//   SpilledMarking marking(reader, "", budget, tmp_dir, backend);
//   const auto result = marking.mark(header, options, backend);
//   marking.merge(result, false, budget, [&](io::ReadBatch& batch) { writer.write(batch); });
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "io/bam/alignment_reader.hpp"
#include "kernels/device/device.hpp"
#include "pipeline/spilled_runs.hpp"
#include "stages/markdup/end_features.hpp"
#include "stages/markdup/mark_duplicates.hpp"

namespace gpp::pipeline {

class SpilledMarking {
 public:
  /// Reads every record of `reader` (its EndFeatures with `read_name_regex`, as
  /// MarkDuplicatesOptions::read_name_regex), spilling runs into `directory`.
  SpilledMarking(io::AlignmentReader& reader, const std::string& read_name_regex,
                 std::uint64_t budget, const std::string& directory, kernels::Backend backend);

  /// The marking columns of every record (tid, pos, flag, mate_tid, read group, library, name),
  /// in input order, until mark() frees them.
  const io::ReadBatch& columns() const { return columns_; }
  std::uint64_t records() const { return runs_.records(); }

  /// mark_duplicates on the kept columns (`options.features` is set here); frees them.
  stages::markdup::MarkDuplicatesResult mark(const io::Header& header,
                                             stages::markdup::MarkDuplicatesOptions options,
                                             kernels::Backend backend);

  /// Hands `consume` every record in coordinate order with its FLAG from `result` (without the
  /// duplicates when `remove_duplicates`), in batches, holding about `memory_bytes`. May be
  /// called again.
  void merge(const stages::markdup::MarkDuplicatesResult& result, bool remove_duplicates,
             std::uint64_t memory_bytes, const std::function<void(io::ReadBatch&)>& consume);

 private:
  const io::Header& header_;
  SpilledRuns runs_;
  io::ReadBatch columns_;
  std::optional<stages::markdup::EndFeatures> features_;  ///< until mark()
};

}  // namespace gpp::pipeline
