// BamChunkReader: the record stream of a BAM file as chunks of whole records, one chunk read
// ahead (io/ internal).
//
// Reading, inflating and finding record boundaries in chunk k + 1 runs on a second thread while
// the caller decodes chunk k into columns, so the serial parts (fread, block headers, the walk
// from one record length to the next) are off the decoding path. A record cut by a chunk's end is
// carried to the front of the next chunk.
#pragma once

#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include "io/bgzf_reader.hpp"
#include "io/byte_buffer.hpp"

namespace gpp::io::detail {

/// Uncompressed BAM bytes holding whole records at `starts` (offsets into `bytes`).
struct BamChunk {
  ByteBuffer bytes;
  std::vector<std::uint64_t> starts;
  std::uint64_t compressed_end = 0;  ///< compressed bytes of the file consumed up to this chunk's end
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
  void produce(BamChunk& chunk);
  void start_ahead();

  std::string path_;
  BgzfReader bgzf_;
  std::size_t compressed_bytes_;
  ByteBuffer carry_;  // the start of a record cut by the last chunk's end
  std::uint64_t records_before_ = 0;  // records in chunks already produced (for error messages)
  BamChunk ahead_;
  std::future<void> pending_;
  bool at_end_ = false;
};

}  // namespace gpp::io::detail
