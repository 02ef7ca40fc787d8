// Writing ReadBatch columns to SAM, BAM or CRAM (format from the file extension), with
// multi-threaded compression and, for coordinate-sorted output, a BAI (CSI when a contig is
// longer than BAI's 2^29 - 1 limit; CRAI for CRAM) built on the fly. Output appears only when
// complete (io/output_file.hpp): an AlignmentWriter destroyed before finish() leaves nothing.
//
// @code
//   AlignmentWriter writer("out.bam", header, {.threads = 4, .write_index = true});
//   writer.write(batch, order);   // as many batches as needed, in output order
//   writer.finish();              // out.bam and out.bam.bai appear now
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "io/reads/batch_rows.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"

namespace gpp::io {

class ThreadPool;

/**
 * @brief Raw DEFLATE of many BGZF block payloads at once, replacing libdeflate on the CPU threads
 * (e.g. a GPU encoder), as a stream of jobs.
 *
 * A job's block b, sizes[b] bytes at data + b * stride, becomes at most `capacity` bytes at
 * out + b * out_stride, their count in out_sizes[b] (0: did not fit; stored instead). The writer
 * submits up to `in_flight` jobs of at most `max_blocks` blocks before it waits for the oldest,
 * and leaves a job's buffers alone until then; it places job data in memory from `allocate`
 * (page-locked for a GPU) when given.
 */
struct DeflateOffload {
  struct Job {
    const std::uint8_t* data;
    std::size_t stride;
    const std::uint32_t* sizes;
    std::size_t count;
    std::uint8_t* out;
    std::size_t out_stride;
    std::size_t capacity;
    std::uint32_t* out_sizes;
  };
  std::function<void(const Job&)> submit;
  std::function<void()> wait_oldest;
  std::function<std::shared_ptr<std::uint8_t[]>(std::size_t bytes)> allocate;
  std::size_t max_blocks = 4096;
  std::size_t in_flight = 1;
  explicit operator bool() const { return static_cast<bool>(submit); }
};

struct WriterOptions {
  int threads = 0;             ///< compression threads beside the calling one (samtools -@)
  std::string reference = {};  ///< FASTA, required for CRAM output
  int compression_level = -1;  ///< 0-9; -1 = HTSlib's default (as samtools)
  bool write_index = false;    ///< index the output (records must be coordinate-sorted)
  ThreadPool* pool =
      nullptr;  ///< shared I/O threads (used instead of `threads`); must outlive the writer
  DeflateOffload deflate_offload =
      {};  ///< BAM blocks compressed by this instead of libdeflate (level ignored)
  std::size_t deflater_blocks =
      8192;  ///< most blocks per deflate_offload job (besides its own limit)
  /// BAM: about the most bytes of records encoded and compressed at once (0: 2^18 records per
  /// step, 2^22 with a deflate_offload), for commands held to a memory budget.
  std::size_t max_step_bytes = 0;
};

/// "bam", "sam" or "cram" from the extension of `path` (anything else is BAM).
std::string output_format_for(const std::string& path);

/// Path of the index written beside `path` (".bai", ".csi" or ".crai").
std::string index_path_for(const std::string& path, const Header& header);

/// Removes the index files HTSlib would find for `path` (<path>.csi/.bai/.crai and the same with
/// the extension replaced) other than `written_index`: they describe a file `path` replaced.
/// @throws gpp::Error naming the index when one cannot be removed
void remove_stale_indexes(const std::string& path, const std::string& written_index);

/// Native BAM output: seconds spent so far filling blocks with records, compressing them (with a
/// block deflater: waiting for it), framing blocks (headers, checksums; with a block deflater,
/// also placing its output) and waiting for earlier blocks to reach the file.
struct BamWriteSeconds {
  double filling = 0;
  double compressing = 0;
  double framing = 0;
  double writes_waited = 0;

  BamWriteSeconds& operator+=(const BamWriteSeconds& other) {
    filling += other.filling;
    compressing += other.compressing;
    framing += other.framing;
    writes_waited += other.writes_waited;
    return *this;
  }
};

class AlignmentWriter {
 public:
  /// Creates the output under a temporary name and writes the header; throws gpp::Error naming
  /// `path` when it cannot be written.
  AlignmentWriter(const std::string& path, const Header& header, const WriterOptions& options);
  ~AlignmentWriter();
  AlignmentWriter(const AlignmentWriter&) = delete;
  AlignmentWriter& operator=(const AlignmentWriter&) = delete;

  /// Appends every record of `batch` in batch order.
  void write(const ReadBatch& batch);
  /// Appends the records of `batch` in `order` (record order[0] first).
  void write(const ReadBatch& batch, std::span<const std::uint32_t> order);
  /// Appends `rows`, each from its batch, in order (a merge's records where they were read).
  void write(const RowsAcross& rows);

  /// Flushes, writes the index, and moves the output (and index) into place: close(), then
  /// commit().
  void finish();
  /// Flushes and writes the index; the output stays unnamed until commit() (a command names its
  /// outputs together once every one is complete).
  void close();
  /// Moves the closed output (and index) into place.
  void commit();

  std::uint64_t records_written() const;

  /// All 0 for SAM and CRAM.
  BamWriteSeconds bam_stage_seconds() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Writes the records of `batch` listed in `order` (any subset, any order) to `path`.
void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      std::span<const std::uint32_t> order, const WriterOptions& options);

/// Writes every record of `batch` in batch order.
void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      const WriterOptions& options);

}  // namespace gpp::io
