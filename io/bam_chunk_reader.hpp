// BamChunkReader: the record stream of a BAM file as chunks of whole records, read ahead in a
// three-stage pipeline (io/ internal).
//
// While the caller decodes chunk k into columns, record boundaries are found in chunk k + 1 on
// one thread and chunk k + 2 is read and inflated (in parallel) from another: the serial parts
// (the walk from one record length to the next, block headers) run beside the parallel ones
// instead of between them. Chunks are inflated behind a headroom, where the start of a record
// cut by the previous chunk's end is copied, so no chunk is ever moved.
#pragma once

#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include "io/bgzf_reader.hpp"
#include "io/byte_buffer.hpp"

#include <oneapi/tbb/task_arena.h>

namespace gpp::io::detail {

/// Uncompressed BAM bytes holding whole records at `starts` (offsets into `bytes`).
struct BamChunk {
  ByteBuffer bytes;
  std::vector<std::uint64_t> starts;
  std::uint64_t compressed_end = 0;  ///< compressed bytes of the file consumed up to this chunk's end
  bool inflated_nothing = false;     ///< the file ended before this chunk
};

class BamChunkReader {
 public:
  /// Opens `path` at virtual offset `start` (after the header); chunks hold about
  /// `compressed_bytes` of BGZF data each.
  BamChunkReader(const std::string& path, std::uint64_t start, std::size_t compressed_bytes);
  ~BamChunkReader();
  BamChunkReader(const BamChunkReader&) = delete;
  BamChunkReader& operator=(const BamChunkReader&) = delete;

  /// Replaces `chunk` with the next chunk (at least one record); false at the end of the file.
  /// Throws gpp::Error naming the file when it is corrupt or cut short.
  bool next(BamChunk& chunk);

  std::uint64_t file_size() const { return bgzf_.file_size(); }

 private:
  void inflate(BamChunk& chunk);       // stage 1: BGZF data after the headroom
  void find_records(BamChunk& chunk);  // stage 2: the carried record start, then record starts
  void start_finding();                // stage 2 on the next inflated chunk; stage 1 on the one after

  std::string path_;
  BgzfReader bgzf_;
  std::size_t compressed_bytes_;
  ByteBuffer carry_;                  // the start of a record cut by the last chunk's end
  std::uint64_t records_before_ = 0;  // records in chunks already found (for error messages)
  // Stage 1 paces the reader: its parallel work goes first when threads are shared.
  oneapi::tbb::task_arena inflate_arena_{oneapi::tbb::task_arena::automatic, 1,
                                         oneapi::tbb::task_arena::priority::high};
  BamChunk inflated_;                 // stage 1's output
  BamChunk found_;                    // stage 2's output
  std::future<void> inflating_;       // owned by stage 2 once started
  std::future<void> finding_;
  bool at_end_ = false;
};

}  // namespace gpp::io::detail
