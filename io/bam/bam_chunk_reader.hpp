// BamChunkReader: the record stream of a BAM file as chunks of whole records, read ahead in a
// three-stage pipeline (io/ internal).
//
// While the caller decodes chunk k into columns, record boundaries are found in chunk k + 1 on
// one thread and chunk k + 2 is read and inflated (in parallel) from another: the serial parts
// (the walk from one record length to the next, block headers) run beside the parallel ones
// instead of between them. Chunks are inflated behind a headroom, where the start of a record
// cut by the previous chunk's end is copied, so no chunk is ever moved.
//
// Chunks come in one of two kinds of memory. Recycled: three buffers that take turns (a chunk
// is valid until the next call). Kept: large slabs that chunks are inflated into one after the
// other, sized from the file's compression ratio; a record cut by a chunk's end simply goes on
// in the next chunk, and the slabs live as long as any chunk from them (the records are never
// copied).
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "io/bam/bgzf_reader.hpp"
#include "io/bam/byte_buffer.hpp"

namespace gpp::io::detail {

/// Memory that kept chunks are inflated into, one after the other.
struct RecordSlab {
  std::unique_ptr<std::uint8_t[]> data;
  std::size_t capacity = 0;
  std::size_t used = 0;
};

/// Uncompressed BAM bytes holding whole records at `records + starts[k]`.
struct BamChunk {
  ByteBuffer bytes;                  ///< recycled memory: headroom, then the inflated bytes
  std::shared_ptr<RecordSlab> slab;  ///< kept memory: the slab that holds the bytes
  std::uint8_t* data = nullptr;      ///< the chunk's inflated bytes, `size` of them
  std::size_t size = 0;
  std::uint8_t* records = nullptr;
  std::vector<std::uint64_t> starts;
  std::uint64_t compressed_end =
      0;                          ///< compressed bytes of the file consumed up to this chunk's end
  bool inflated_nothing = false;  ///< the file ended before this chunk
};

class BamChunkReader {
 public:
  /// Opens `path` at virtual offset `start` (after the header); chunks hold about
  /// `compressed_bytes` of BGZF data each; `keep`: in kept memory (see above); `inflater`: see
  /// BgzfReader; `inflate_first`, `free_read`: ReaderOptions::inflate_first, free_read_bytes.
  BamChunkReader(const std::string& path, std::uint64_t start, std::size_t compressed_bytes,
                 bool keep = false, InflateOffload inflater = {}, bool inflate_first = true,
                 bool free_read = false);
  ~BamChunkReader();
  BamChunkReader(const BamChunkReader&) = delete;
  BamChunkReader& operator=(const BamChunkReader&) = delete;

  /// Replaces `chunk` with the next chunk (at least one record); false at the end of the file.
  /// Throws gpp::Error naming the file when it is corrupt or cut short.
  bool next(BamChunk& chunk);

  std::uint64_t file_size() const { return bgzf_.file_size(); }

  /// Seconds so far in stage 1 (inflating), stage 2 (finding records), and in next() waiting for
  /// them.
  BamReadSeconds stage_seconds() const { return seconds_; }

 private:
  void inflate(BamChunk& chunk);       // stage 1: BGZF data after the headroom, or into a slab
  void find_records(BamChunk& chunk);  // stage 2: the carried record start, then record starts
  void find_kept_records(BamChunk& chunk);
  // Stage 1, kept memory: where `bytes` more bytes go (a new slab when the current one is full).
  std::uint8_t* slab_place(std::size_t bytes);
  void start_finding();  // stage 2 on the next inflated chunk; stage 1 on the one after

  std::string path_;
  BgzfReader bgzf_;
  std::size_t compressed_bytes_;
  std::size_t headroom_;  // before each chunk, for the record the last chunk cut
  bool keep_;
  ByteBuffer carry_;  // recycled memory: the start of a record cut by the last chunk's end
  // Kept memory. Stage 1: the slab being filled. Stage 2: where the last chunk's inflated bytes
  // ended (and how many stream bytes lie right before that), and the record it cut: its bytes
  // so far end at cut_end_, in memory that cut_owner_ keeps.
  std::shared_ptr<RecordSlab> slab_;
  std::uint64_t inflated_bytes_ = 0;
  std::shared_ptr<RecordSlab> last_slab_;
  const std::uint8_t* last_end_ = nullptr;
  std::size_t in_place_ = 0;
  std::size_t cut_bytes_ = 0;
  const std::uint8_t* cut_end_ = nullptr;
  std::shared_ptr<RecordSlab> cut_owner_;
  std::uint64_t records_before_ = 0;  // records in chunks already found (for error messages)
  // Stage 1 paces the reader: its parallel work goes first when threads are shared (unless the
  // reader only reads ahead, see ReaderOptions::inflate_first).
  oneapi::tbb::task_arena inflate_arena_;
  BamChunk inflated_;            // stage 1's output
  BamChunk found_;               // stage 2's output
  std::future<void> inflating_;  // owned by stage 2 once started
  std::future<void> finding_;
  bool at_end_ = false;
  BamReadSeconds seconds_;
};

}  // namespace gpp::io::detail
