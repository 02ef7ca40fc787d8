// The alignment inputs of a command given -I more than once, read as one input, as GATK's tools
// read several -I (ReadsPathDataSource): one merged header (io::merge_headers: read groups and
// programs merged, colliding IDs renamed and the records' RG/PG tags with them), and the
// records of coordinate-sorted inputs merged in htsjdk's MergingSamRecordIterator order — a
// java.util.PriorityQueue of the inputs keyed by their next records under
// SAMRecordCoordinateComparator, so that records equal in position come in the order GATK
// sees them. One input is read as it always is (the merge costs nothing then).
//
// @code
//   AlignmentInputs inputs({"lane1.bam", "lane2.bam"}, reader_options);
//   inputs.header();                                   // the merged header
//   inputs.read_in_batches(size, [&](io::ReadBatch& batch) { ... });   // coordinate order
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/phase_times.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/genome/intervals.hpp"
#include "io/reads/header_merge.hpp"
#include "io/reads/read_batch.hpp"
#include "io/reads/record_visitor.hpp"
#include "pipeline/alignment_stream.hpp"

namespace gpp::pipeline {

class AlignmentInputs {
 public:
  /// Opens every one of `paths` (at least one; at most one of them standard input); `options`'
  /// inflate_offload, lent to one reader, goes to the first.
  /// @throws gpp::Error naming the input that cannot be read, whose contigs differ from the
  ///         first's, or that repeats an @RG/@PG ID
  AlignmentInputs(const std::vector<std::string>& paths, const io::ReaderOptions& options);
  ~AlignmentInputs();
  AlignmentInputs(const AlignmentInputs&) = delete;
  AlignmentInputs& operator=(const AlignmentInputs&) = delete;

  /// The one input's header, or the merged header of several.
  const io::Header& header() const;
  /// The input's path, or the paths joined by ", " (for messages about all of them).
  const std::string& name() const { return name_; }
  const std::vector<std::string>& paths() const { return paths_; }
  /// The header of input `i` as it is in its file.
  const io::Header& input_header(std::size_t i) const { return readers_[i]->header(); }

  /// read_near_intervals for every input.
  void read_near_intervals(const std::vector<io::Interval>& intervals, std::int64_t padding);
  /// Mapped records per contig from the indexes, summed over the inputs; none when an input
  /// has no index.
  std::optional<std::vector<std::uint64_t>> indexed_mapped_counts() const;
  /// fits_in_memory for the inputs together.
  bool fit_in_memory(std::uint64_t budget, double bytes_per_bam_byte) const;

  /**
   * @brief Every record, handed to `consume` a batch at a time: one input's as read_in_batches
   * reads them; several inputs' merged as GATK and Picard merge them when all are marked
   * coordinate-sorted (or all queryname-sorted: merged by htsjdk's queryname comparator), else
   * one input after another.
   * @throws gpp::Error naming the input whose records are out of coordinate order in a merge
   */
  std::uint64_t read_in_batches(const BatchSize& size,
                                const std::function<void(io::ReadBatch&)>& consume,
                                PhaseTimes* times = nullptr);
  /// read_in_batches with each batch transformed by `transform`, then written to `writer` (one
  /// input: stream_alignments, the next batch read and the last written beside the transform).
  std::uint64_t stream_to(io::AlignmentWriter& writer, const BatchSize& size,
                          const std::function<void(io::ReadBatch&)>& transform,
                          PhaseTimes* times = nullptr);
  /// Appends every record to an empty `batch`, in the order read_in_batches gives them; then
  /// tells `visitor`, when given, of all of them (as a reader tells its visitor while decoding).
  void read_into(io::ReadBatch& batch, io::RecordVisitor* visitor = nullptr);
  /// Appends the next records, in the order read_in_batches gives them, to `batch`, up to
  /// `size`; 0 at the end.
  std::size_t read_batch(io::ReadBatch& batch, const BatchSize& size);

 private:
  struct Merge;
  /// Records [from, size) of `batch`, read from input `input`, made records of the merged header.
  void adopt(io::ReadBatch& batch, std::size_t from, std::size_t input) const;
  /// read_batch of coordinate-sorted inputs merged.
  std::size_t read_merged(io::ReadBatch& batch, const BatchSize& size);
  /// The merge's next batch of input `input`; false at its end.
  bool refill(std::size_t input);

  std::vector<std::string> paths_;
  std::string name_;
  std::vector<std::unique_ptr<io::AlignmentReader>> readers_;
  std::optional<io::HeaderMerge> merge_;  ///< with several inputs
  std::unique_ptr<Merge> merging_;        ///< the merge under way
  std::size_t reading_ = 0;               ///< the input read next when inputs are not merged
};

/// SAMRecordQueryNameComparator.compare's sign: name (as Java's String.compareTo for ASCII),
/// unpaired after paired, first of pair before second, forward before reverse, primary before
/// secondary and supplementary, then the HI tag (records without one first).
int compare_query_names(const io::ReadBatch& a, std::size_t i, const io::ReadBatch& b,
                        std::size_t j);

/// The paths joined by ", ": how messages name several inputs (one input: its path).
std::string inputs_name(const std::vector<std::string>& paths);

/// Runs `work`; a gpp::ReadError from it (a read's content at fault) comes out as a gpp::Error
/// naming the inputs first: "in.bam: read r1: ...".
void naming_inputs_of_read_errors(const std::vector<std::string>& paths,
                                  const std::function<void()>& work);

/// SAMRecordCoordinateComparator.compare's sign for record `i` of `a` against record `j` of `b`:
/// contig (unplaced last), start, reverse strand after forward, name, flag, MAPQ, mate contig,
/// mate start, insert size.
int compare_coordinates(const io::ReadBatch& a, std::size_t i, const io::ReadBatch& b,
                        std::size_t j);

}  // namespace gpp::pipeline
