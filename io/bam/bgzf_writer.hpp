// BgzfWriter: BGZF compression (SAM spec section 4.1) of whole batches in parallel (io/ internal).
//
// Blocks are cut exactly where HTSlib cuts them when writing BAM records (a record that does not
// fit in the current block starts a new one; a block holds at most 0xff00 bytes), so virtual
// offsets, and indexes built from them, are the ones samtools would produce. Blocks are
// compressed with libdeflate on all oneTBB threads, then written in order.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/bam/alignment_writer.hpp"

namespace gpp::io::detail {

class BgzfWriter {
 public:
  /// Writes to `file` (not owned; the caller closes it), which errors call `name` ("<name>:
  /// cannot write (<reason>)"). `level`: 0-9, or -1 for HTSlib's default. With a `deflater`,
  /// blocks are compressed by it, many per call, instead of by libdeflate.
  BgzfWriter(std::string name, std::FILE* file, int level, DeflateOffload deflater = {},
             std::size_t deflater_blocks = 8192);
  ~BgzfWriter();
  BgzfWriter(const BgzfWriter&) = delete;
  BgzfWriter& operator=(const BgzfWriter&) = delete;

  /// Writes `bytes` and ends the block, as HTSlib does after a BAM header.
  void write_and_flush(std::span<const std::uint8_t> bytes);

  /// Writes `serialize(k, dst)` for each record k, back to back (`record_ends` = end offset of
  /// each in that stream), and returns, in `virtual_ends`, the virtual offset just past each.
  /// Every block serialises its own records right before compressing them (in cache), on all
  /// threads; `serialize` must write exactly the record's bytes and be safe to call concurrently.
  /// `progress(n)`, when given, is called as the first n virtual ends become final (n grows;
  /// the last call has all of them), on the calling thread, while later blocks are compressed.
  void write_records(std::span<const std::uint64_t> record_ends,
                     const std::function<void(std::size_t, std::uint8_t*)>& serialize,
                     std::vector<std::uint64_t>& virtual_ends,
                     const std::function<void(std::size_t)>& progress = {});

  /// Virtual offset of the next byte to be written.
  std::uint64_t tell() const;

  /// Compresses what is pending and appends the EOF marker block.
  void finish();

  BamWriteSeconds stage_seconds() const { return seconds_; }

 private:
  /// Throws "<name>: cannot write (<errno's reason>)".
  [[noreturn]] void write_failed() const;
  /// Content of block b (of `count`), written into a buffer of kBlockData bytes; returns its size.
  using BlockSource = std::function<std::size_t(std::size_t, std::uint8_t*)>;
  /// Fills, compresses and writes `count` blocks; returns the file offset where each one starts.
  /// `placed(n, starts)`, when given, is called as the starts of the first n blocks become known.
  using Placed = std::function<void(std::size_t, const std::vector<std::uint64_t>&)>;
  std::vector<std::uint64_t> write_blocks(std::size_t count, const BlockSource& source,
                                          const Placed& placed = {});
  // The two ways write_blocks fills and compresses: block by block on the oneTBB threads with
  // libdeflate, or in groups streamed through the deflater (written as they come back).
  void compress_blocks(std::size_t count, const BlockSource& source, std::uint8_t* out,
                       std::vector<std::size_t>& sizes);
  void write_through_deflater(std::size_t count, const BlockSource& source, const Placed& placed,
                              std::uint8_t* out, std::vector<std::size_t>& sizes,
                              std::vector<std::uint64_t>& starts);
  // One write_through_deflater call: its groups, their sizes, how far they have gone.
  struct DeflaterGroups;
  void reserve_staging(std::size_t blocks);
  std::uint8_t* staged(const DeflaterGroups& call, std::size_t group, std::size_t block) const;
  void fill_and_submit_group(DeflaterGroups& call, std::size_t group);
  void write_oldest_group(DeflaterGroups& call);
  // The record bytes after the last cut, kept as the start of the next block.
  void keep_pending(std::span<const std::uint64_t> record_ends,
                    const std::function<void(std::size_t, std::uint8_t*)>& serialize,
                    const std::vector<std::size_t>& cuts);

  // Blocks [first, first + count) of `out` (kMaxBlock apart, sizes[b] bytes each) to the file,
  // in order; starts[b] gets each one's compressed offset at once, the bytes are written on
  // another thread after those before them (the caller goes on compressing meanwhile).
  void write_out(const std::uint8_t* out, std::size_t first, std::size_t count,
                 const std::vector<std::size_t>& sizes, std::vector<std::uint64_t>& starts);
  void write_now(const std::uint8_t* blocks, const std::vector<std::size_t>& sizes,
                 std::uint64_t file_offset);
  // Waits for every write handed to another thread; rethrows the first one's error.
  void wait_for_writes();

  // Compressed blocks, kMaxBlock bytes per block: two buffers used in turn, so one call's blocks
  // are compressed while the last call's are still being written.
  struct Output {
    std::unique_ptr<std::uint8_t[]> data;
    std::size_t blocks = 0;
    std::shared_future<void> written;  // the last write from this buffer
  };
  // The output buffer after the last one used, once its last write is done, with room for
  // `blocks`.
  Output& next_output(std::size_t blocks);
  std::string name_;  ///< the output's name for errors
  std::FILE* file_;
  bool regular_file_ = false;     // written with gathered pwritev calls; otherwise fwrite
  std::uint64_t file_start_ = 0;  // the file offset of compressed offset 0
  Output outputs_[2];
  int next_output_ = 0;
  std::shared_future<void> last_write_;  // writes are chained: each waits for the one before
  int level_;
  DeflateOffload deflater_;
  std::size_t deflater_blocks_;
  std::shared_ptr<std::uint8_t[]> staging_;  // uncompressed blocks for the deflater
  std::size_t staging_blocks_ = 0;
  std::vector<std::uint8_t> pending_;    // start of the current, not yet full, block
  std::uint64_t compressed_offset_ = 0;  // bytes written to the file so far
  BamWriteSeconds seconds_;
};

}  // namespace gpp::io::detail
