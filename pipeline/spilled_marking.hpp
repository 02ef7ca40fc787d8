// Duplicate marking of an input larger than --max-memory (`markdup`, `run`): the input is read
// once, in runs of a third of the budget, each spilled in coordinate order (pipeline/
// spilled_runs.hpp); mark() finds the duplicates and merge() hands the records back in coordinate
// order — the order the in-memory path writes — with their new FLAG. The output is the in-memory
// path's, byte for byte.
//
// Coordinate order (what Picard does with a coordinate-sorted input) needs no memory per record:
// what marking reads of each record goes into sorted runs on disk beside the records
// (pipeline/marking_runs.hpp). mark() merges those once, in pieces of consecutive records side by
// side, giving each record its index in file, and writes its fragment end into one of a few key
// ranges and, when it may pair, the end with its name into one of a few name buckets (a file per
// piece, read back piece after piece: the order of one merge); each bucket then makes its pairs
// (Picard's rule: only records of one name interact) into the key ranges; each key range is sorted
// and its duplicate sets walked (a set never spans two ranges: its ends share their key). What
// stays in memory is one bit per record (duplicate or not) and the ranges' bounds; ranges and
// buckets are sized so that one of them fits in the budget. Picard's read counts come last, from
// every record's flag, library and run, written in index order during the merge, and its bit;
// that walk also lays the bits out by run and place in the run (a second bit per record), for
// visit_by_contig. Input grouped by read name (Picard's queryname semantics, which index ends by
// template) keeps its marking columns in memory instead.
//
// @code
//   SpilledMarking marking(reader, "", false, budget, tmp_dir, backend);
//   const auto result = marking.mark(header, options, backend);
//   marking.merge(false, budget, [&](MergedRows& merged) { writer.write(merged.rows()); });
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "kernels/device/device.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "pipeline/marking_runs.hpp"
#include "pipeline/spilled_runs.hpp"
#include "stages/markdup/end_features.hpp"
#include "stages/markdup/mark_duplicates.hpp"

namespace gpp::pipeline {

class SpilledMarking {
 public:
  /// Reads every record of `reader` (several inputs merged: AlignmentInputs) (its EndFeatures with
  /// `read_name_regex`, as MarkDuplicatesOptions::read_name_regex), spilling runs into `directory`;
  /// `queryname_grouped` as MarkDuplicatesOptions::queryname_grouped.
  SpilledMarking(AlignmentInputs& reader, const std::string& read_name_regex,
                 bool queryname_grouped, std::uint64_t budget, const std::string& directory,
                 kernels::Backend backend, SpilledRuns::RunWriting run_writing = {},
                 SpilledRuns::RunReading run_reading = {});

  std::uint64_t records() const { return runs_.records(); }
  /// Records mark() found to be duplicates.
  std::uint64_t duplicates() const;
  /// SpilledRuns::merge_batch_bytes of the runs.
  std::uint64_t merge_batch_bytes(std::uint64_t memory_bytes) const {
    return runs_.merge_batch_bytes(memory_bytes);
  }
  /// Header contigs (by index) on which a record lies.
  const std::vector<bool>& contigs_with_reads() const { return contigs_with_reads_; }
  /// The mapped records of each header contig (count_mapped_reads).
  const std::vector<std::uint64_t>& mapped_reads_per_contig() const { return mapped_reads_; }

  /// Finds the duplicates (`options.features` is set here) and Picard's metrics; the result's
  /// order and flags stay empty (merge() sets the flags).
  stages::markdup::MarkDuplicatesResult mark(const io::Header& header,
                                             stages::markdup::MarkDuplicatesOptions options,
                                             kernels::Backend backend);

  /// Hands `consume` every record in coordinate order with its FLAG as mark() found it (without
  /// the duplicates when `remove_duplicates`), in pieces, holding about `memory_bytes`. May be
  /// called again unless `last_merge`. `consume`, `times`, `last_merge` and `prepare` as
  /// SpilledRuns::merge's.
  void merge(bool remove_duplicates, std::uint64_t memory_bytes,
             const SpilledRuns::Consume& consume, PhaseTimes* times = nullptr,
             bool last_merge = false, const SpilledRuns::BatchPreparation& prepare = {});

  /// Hands `consume` every record with its FLAG as mark() found it, without merging the runs:
  /// SpilledRuns::visit_by_contig's batches and order (every record of a contig before any of a
  /// later one, in no order within it). For what needs no order within a contig — counting
  /// covariates — at a fraction of a merge's cost. Returns false, handing nothing, where the
  /// duplicates are known only by merged order (input grouped by name) or the runs are too many
  /// to read at once: merge() then.
  bool visit_by_contig(std::uint64_t memory_bytes,
                       const std::function<void(io::ReadBatch&)>& consume,
                       PhaseTimes* times = nullptr);

 private:
  void mark_by_coordinate(const io::Header& header,
                          const stages::markdup::MarkDuplicatesOptions& options,
                          kernels::Backend backend, stages::markdup::MarkDuplicatesResult& result);
  void mark_by_template(const io::Header& header, stages::markdup::MarkDuplicatesOptions options,
                        kernels::Backend backend, stages::markdup::MarkDuplicatesResult& result);

  const io::Header& header_;
  const bool queryname_grouped_;
  const std::uint64_t budget_;
  const std::string directory_;
  SpilledRuns runs_;
  std::vector<bool> contigs_with_reads_;
  std::vector<std::uint64_t> mapped_reads_;
  std::vector<std::string> library_names_;  ///< what the library keys name
  // Coordinate order: the marking runs, a sample of the ends' positions, and what they make.
  std::optional<MarkingRuns> marking_runs_;
  std::vector<std::int64_t> position_sample_;  ///< every kSampleEvery-th end's position key
  std::uint64_t ends_ = 0;                     ///< fragment ends
  std::uint64_t pair_candidates_ = 0;          ///< ends that may pair
  // Queryname-grouped: the marking columns and features in memory, until mark().
  io::ReadBatch columns_;
  std::optional<stages::markdup::EndFeatures> features_;
  // What mark() found: one bit per record in coordinate order; marking by coordinate also gives
  // them by run, by place in the run.
  std::vector<std::uint64_t> duplicate_bits_;
  std::vector<std::vector<std::uint64_t>> run_duplicate_bits_;
};

}  // namespace gpp::pipeline
