// AlignmentReader: SAM, BAM or CRAM into ReadBatch columns, with multi-threaded decompression.
//
// @code
//   AlignmentReader reader("in.bam", {.threads = 4});
//   ReadBatch batch;
//   reader.read_into(batch);            // every record
//   reader.header().contigs().size();
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/bam/inflate_offload.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "io/reads/record_visitor.hpp"

namespace gpp::io {

class ThreadPool;

struct ReaderOptions {
  /// Decompression threads beside the calling one for SAM.gz and CRAM (samtools -@). BAM is
  /// inflated and parsed on the oneTBB threads (bounded by --threads through tbb::global_control).
  int threads = 0;
  std::string reference = {};  ///< FASTA for CRAM input (required for CRAM)
  ThreadPool* pool =
      nullptr;  ///< shared I/O threads (used instead of `threads`); must outlive the reader
  /// BAM: compressed bytes inflated per step, one step read ahead on a second thread. Large steps
  /// keep every thread busy on whole-file reads; a reader among many (a merge) wants small ones.
  std::size_t read_ahead_bytes = 16 << 20;
  /// BAM: keep each record's bytes as read instead of filling the seq, qual and aux columns
  /// (ReadBatch::bam_record), for stages that change nothing but FLAG. Other formats fill every
  /// column whatever this says.
  bool keep_bam_records = false;
  /// Told of every record read_into appends, as it is decoded; must outlive the reader.
  RecordVisitor* visitor = nullptr;
  /// BAM: inflates the blocks instead of libdeflate on the oneTBB threads when given.
  InflateOffload inflate_offload = {};
  /// BAM: the inflation's parallel work goes before other parallel work (a reader that paces
  /// what follows it). False for readers that only read ahead of a consumer that paces them (the
  /// runs of a merge): their inflation then shares the threads evenly.
  bool inflate_first = true;
  /// BAM in a regular file read for the last time (a temporary file): the disk space of what was
  /// read is given back as the reading goes (holes punched behind the reader, 64 MiB at a time,
  /// where the file system allows), not all at once when the file goes.
  bool free_read_bytes = false;
};

/// BAM input: seconds spent so far inflating, finding record boundaries (each on a thread of its
/// own, ahead of the decoding) and waiting for them in read_into.
struct BamReadSeconds {
  double inflating = 0;
  double finding = 0;
  double waiting = 0;
};

/// Bases [begin, end) (0-based) of the contig numbered `tid` in the header.
struct ContigRange {
  std::int32_t tid = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

/// The input path that names standard input.
inline constexpr const char* kStandardInput = "-";

class AlignmentReader {
 public:
  /// Opens `path` and reads its header; throws gpp::Error naming the file when it is missing,
  /// not SAM/BAM/CRAM, has an unreadable header, or is CRAM without options.reference.
  /// `path` may be "-" (standard input), a pipe or a FIFO: read once, front to back (BAM then
  /// through HTSlib's threaded decompression instead of the parallel reader of regular files).
  AlignmentReader(const std::string& path, const ReaderOptions& options);
  ~AlignmentReader();
  AlignmentReader(const AlignmentReader&) = delete;
  AlignmentReader& operator=(const AlignmentReader&) = delete;

  const Header& header() const { return header_; }
  const std::string& path() const { return path_; }
  /// "SAM", "BAM" or "CRAM".
  const std::string& format_name() const { return format_name_; }

  /// Appends up to `max_records` records (all remaining ones when 0) to `batch` and returns how
  /// many were read; 0 at end of file. Throws gpp::Error on a truncated or corrupt file.
  std::size_t read_into(ReadBatch& batch, std::size_t max_records = 0);

  /// From now on reads only the records that overlap `ranges` (each record once, in file order;
  /// records without a position are left out) through the file's index (.bai, .csi or .crai
  /// beside it), as GATK's tools read -L intervals. Returns false, changing nothing, unless the
  /// input is a BAM or CRAM regular file with an index and no record was read yet.
  bool restrict_to(std::span<const ContigRange> ranges);

  /// The mapped records of each header contig as the index beside a BAM regular file counts
  /// them (.bai or .csi; samtools idxstats' second column); none for SAM, CRAM, a stream, a
  /// BAM without an index or one whose index has no statistics.
  std::optional<std::vector<std::uint64_t>> indexed_mapped_counts() const;

  /// All 0 for SAM and CRAM.
  BamReadSeconds bam_stage_seconds() const;

 private:
  /// Where the input stops being readable, for the error: the record's number (and line).
  std::string where_unreadable() const;

  struct State;
  std::string path_;
  std::string reference_;  ///< CRAM's reference, to read the file again
  std::string format_name_;
  Header header_;
  std::unique_ptr<State> state_;
};

/// Convenience: every record of `path` and its header.
ReadBatch read_alignments(const std::string& path, const ReaderOptions& options, Header& header);

}  // namespace gpp::io
