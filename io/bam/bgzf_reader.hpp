// BgzfReader: BGZF decompression (SAM spec section 4.1) of many blocks at once (io/ internal).
//
// Each call reads a run of compressed blocks, takes their uncompressed sizes from the block
// footers, and inflates them in parallel (libdeflate, oneTBB) straight into their places in one
// buffer, checking every CRC32. A file that ends inside a block is reported as truncated.
// A regular file is mapped into memory: its blocks are parsed and inflated where they lie in
// the page cache, never copied out of it; other inputs (pipes) are read into a buffer. With an
// io::InflateOffload, a mapped file's blocks are inflated there instead, streamed: parts of the
// file are submitted ahead of the reads, which land them; the inflater is let go once the file
// is read to its end (or at once where it cannot be used).
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/bam/byte_buffer.hpp"
#include "io/bam/inflate_offload.hpp"
#include "io/mapped_input.hpp"

namespace gpp::io::detail {

/// One BGZF block as parsed from its header and footer.
struct BgzfBlock {
  std::size_t offset;       ///< in the compressed buffer (streamed: in the file)
  std::size_t header_size;  ///< 12 + XLEN
  std::size_t total_size;   ///< BSIZE + 1
  std::uint32_t crc;
  std::uint32_t uncompressed_size;
  std::size_t out_offset;  ///< in the output buffer
};

class BgzfReader {
 public:
  /// Opens `path` at virtual offset `start` (compressed offset << 16 | offset in that block).
  /// Blocks are inflated with libdeflate on the oneTBB threads, or by `inflater` when given and
  /// the file can be mapped (a regular file; pipes are inflated here). With `free_read`
  /// (ReaderOptions::free_read_bytes), the disk space of what was read is given back as the
  /// reading goes.
  BgzfReader(const std::string& path, std::uint64_t start, InflateOffload inflater = {},
             bool free_read = false);
  ~BgzfReader();
  BgzfReader(const BgzfReader&) = delete;
  BgzfReader& operator=(const BgzfReader&) = delete;

  /// Appends the uncompressed contents of about `compressed_bytes` of blocks to `out`; returns
  /// the number of bytes appended, 0 at the end of the file. Throws gpp::Error naming the file
  /// when a block is malformed, fails its CRC, or is cut off.
  std::size_t read(ByteBuffer& out, std::size_t compressed_bytes);
  /// The same into memory of the caller's: `place(n)` returns where the next n bytes go.
  using Placement = std::function<std::uint8_t*(std::size_t)>;
  std::size_t read(const Placement& place, std::size_t compressed_bytes);

  /// Compressed bytes consumed so far, and the file's size.
  std::uint64_t compressed_position() const { return file_offset_; }
  std::uint64_t file_size() const { return file_size_; }

 private:
  // Blocks streamed through the inflater together; empty blocks are not submitted.
  struct Part {
    std::vector<BgzfBlock> blocks;
    std::uint64_t end = 0;  // file offset after the part
    std::size_t uncompressed = 0;
    std::size_t compressed = 0;  // bytes of the file the part spans
  };

  std::size_t read_some(const Placement& place, std::size_t compressed_bytes);
  std::size_t read_streamed(const Placement& place, std::size_t compressed_bytes);
  // Submits parts of the file until `in_flight` wait or the file ends; where a block is bad or
  // cut off, stops and keeps the error for the read that reaches it.
  void submit_ahead();
  // Up to `bytes` compressed bytes from the current position into `dst`; fewer only at the end.
  std::size_t read_compressed(std::uint8_t* dst, std::size_t bytes);
  // The start offset pointed inside the first block: drops those bytes from `out`.
  std::size_t drop_skipped(std::uint8_t* out, std::size_t total);
  // What was read is no longer needed: its pages released and, with free_read_, its disk space
  // given back (in steps of 64 MiB).
  void release_read();

  std::string path_;
  InflateOffload inflater_;
  std::deque<Part> parts_;           // streamed: submitted (unless all empty), oldest first
  std::size_t parts_submitted_ = 0;  // of parts_, those with blocks (waiting to be landed)
  std::uint64_t submitted_to_ = 0;   // file offset after the last part
  bool ahead_stopped_ = false;       // at the end of the file, or at ahead_error_
  std::exception_ptr ahead_error_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::vector<std::uint8_t>
      compressed_;  // unmapped input: starts with the incomplete block left by the last read
  std::unique_ptr<MappedInput> mapping_;  // the whole file, when it could be mapped
  const std::uint8_t* mapped_ = nullptr;  // mapping_'s bytes, or null
  std::size_t carried_ = 0;
  std::size_t skip_ = 0;           // uncompressed bytes to drop from the next block
  std::uint64_t file_offset_ = 0;  // compressed offset of compressed_[0]
  std::uint64_t file_size_ = 0;
  bool at_eof_ = false;
  bool regular_file_ = false;  // mapped, or read with pread from several threads; otherwise fread
  bool free_read_ = false;
  std::uint64_t freed_ = 0;  // bytes from the start whose disk space was given back
};

}  // namespace gpp::io::detail
