#include "io/bgzf_writer.hpp"

#include <libdeflate.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <array>
#include <cstring>
#include <memory>

#include "kernels/error.hpp"

namespace gpp::io::detail {

namespace {

constexpr std::size_t kBlockData = 0xff00;       // uncompressed bytes per block (HTSlib's BGZF_BLOCK_SIZE)
constexpr std::size_t kMaxBlock = 0x10000;       // compressed block size limit
constexpr std::size_t kHeaderSize = 18;
constexpr std::size_t kFooterSize = 8;
constexpr std::array<std::uint8_t, 28> kEofBlock = {0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, 0x06, 0, 0x42, 0x43,
                                                    0x02, 0, 0x1b, 0, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0};

// HTSlib's default BGZF level (6) maps to libdeflate level 7 in its libdeflate build; other
// levels map through the same table, so sizes and speed match samtools at the same setting.
int libdeflate_level(int level) {
  static constexpr int kMap[10] = {0, 1, 2, 3, 5, 6, 7, 8, 10, 12};
  if (level < 0) level = 6;
  return kMap[level > 9 ? 9 : level];
}

struct Compressors {
  explicit Compressors(int level)
      : chosen(libdeflate_alloc_compressor(level)), stored(libdeflate_alloc_compressor(0)) {}
  ~Compressors() {
    libdeflate_free_compressor(chosen);
    libdeflate_free_compressor(stored);
  }
  Compressors(const Compressors&) = delete;
  Compressors& operator=(const Compressors&) = delete;
  libdeflate_compressor* chosen;
  libdeflate_compressor* stored;  // for data that does not shrink enough to fit one block
};

void put16(std::uint8_t* p, std::uint16_t v) { std::memcpy(p, &v, 2); }
void put32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }

// One BGZF block for `data` into `out`; returns its size.
std::size_t compress_block(Compressors& c, const std::uint8_t* data, std::size_t size, std::uint8_t* out) {
  static constexpr std::uint8_t kHeader[16] = {0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, 0x06, 0, 0x42, 0x43, 0x02, 0};
  std::memcpy(out, kHeader, 16);
  const std::size_t room = kMaxBlock - kHeaderSize - kFooterSize;
  std::size_t deflated = libdeflate_deflate_compress(c.chosen, data, size, out + kHeaderSize, room);
  if (deflated == 0) deflated = libdeflate_deflate_compress(c.stored, data, size, out + kHeaderSize, room);
  if (deflated == 0) throw Error("BGZF: a block does not fit even uncompressed");
  const std::size_t total = kHeaderSize + deflated + kFooterSize;
  put16(out + 16, static_cast<std::uint16_t>(total - 1));
  put32(out + kHeaderSize + deflated, libdeflate_crc32(0, data, size));
  put32(out + kHeaderSize + deflated + 4, static_cast<std::uint32_t>(size));
  return total;
}

}  // namespace

BgzfWriter::BgzfWriter(std::FILE* file, int level) : file_(file), level_(libdeflate_level(level)) {
  pending_.reserve(kBlockData);
}

BgzfWriter::~BgzfWriter() = default;

std::uint64_t BgzfWriter::tell() const { return compressed_offset_ << 16 | pending_.size(); }

std::vector<std::uint64_t> BgzfWriter::write_blocks(const std::vector<Slice>& blocks) {
  std::vector<std::uint64_t> starts(blocks.size());
  if (blocks.empty()) return starts;
  if (blocks.size() > compressed_blocks_) {
    compressed_blocks_ = blocks.size();
    compressed_ = std::make_unique_for_overwrite<std::uint8_t[]>(compressed_blocks_ * kMaxBlock);
  }
  std::uint8_t* out = compressed_.get();
  std::vector<std::size_t> sizes(blocks.size());
  oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Compressors>> compressors;
  oneapi::tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
    auto& c = compressors.local();
    if (!c) c = std::make_unique<Compressors>(level_);
    sizes[b] = compress_block(*c, blocks[b].data, blocks[b].size, out + b * kMaxBlock);
  });
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (std::fwrite(out + b * kMaxBlock, 1, sizes[b], file_) != sizes[b]) {
      throw Error("write failed (disk full?)");
    }
    starts[b] = compressed_offset_;
    compressed_offset_ += sizes[b];
  }
  return starts;
}

void BgzfWriter::write_and_flush(std::span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> all(pending_);
  all.insert(all.end(), bytes.begin(), bytes.end());
  pending_.clear();
  std::vector<Slice> blocks;
  for (std::size_t at = 0; at < all.size(); at += kBlockData) {
    blocks.push_back({all.data() + at, std::min(kBlockData, all.size() - at)});
  }
  write_blocks(blocks);
}

void BgzfWriter::write_records(std::span<const std::uint8_t> bytes,
                               std::span<const std::uint64_t> record_ends,
                               std::vector<std::uint64_t>& virtual_ends) {
  // Cut the stream (pending_ followed by bytes) into blocks as HTSlib would: before a record
  // that does not fit in the current block, and wherever a block reaches kBlockData bytes.
  // Positions below are in `bytes`; the first block also holds the pending_ prefix.
  std::vector<std::size_t> cuts;  // end (in `bytes`) of each completed block
  std::size_t block_start = 0;    // where the current block's part of `bytes` starts
  std::size_t fill = pending_.size();
  std::size_t record_start = 0;
  for (const std::uint64_t end : record_ends) {
    const std::size_t size = end - record_start;
    if (fill > 0 && fill + size > kBlockData) {
      cuts.push_back(record_start);
      block_start = record_start;
      fill = 0;
    }
    fill += size;
    while (fill >= kBlockData) {  // a full block is flushed at once, mid-record if need be
      const std::size_t cut = block_start + kBlockData - (cuts.empty() ? pending_.size() : 0);
      cuts.push_back(cut);
      block_start = cut;
      fill -= kBlockData;
    }
    record_start = end;
  }

  // The first block carries the pending prefix; assemble it in its own buffer.
  std::vector<std::uint8_t> first;
  std::vector<Slice> blocks;
  std::size_t from = 0;
  for (const std::size_t cut : cuts) {
    if (blocks.empty() && !pending_.empty()) {
      first = pending_;
      first.insert(first.end(), bytes.begin(), bytes.begin() + cut);
      blocks.push_back({first.data(), first.size()});
    } else {
      blocks.push_back({bytes.data() + from, cut - from});
    }
    from = cut;
  }
  const std::size_t pending_before = pending_.size();
  std::vector<std::uint64_t> block_offsets = write_blocks(blocks);
  block_offsets.push_back(compressed_offset_);  // the block that holds what stays pending

  // Virtual offset of each record end: (compressed start of its block) << 16 | offset within.
  // A record ending exactly at a cut points at the start of the next block, as HTSlib's tell().
  virtual_ends.resize(record_ends.size());
  std::size_t block = 0;
  std::size_t block_begin = 0;  // position in `bytes` where block `block` starts (excl. pending)
  for (std::size_t k = 0; k < record_ends.size(); ++k) {
    const std::uint64_t end = record_ends[k];
    while (block < cuts.size() && end >= cuts[block]) {
      block_begin = cuts[block];
      ++block;
    }
    const std::size_t within = end - block_begin + (block == 0 ? pending_before : 0);
    virtual_ends[k] = block_offsets[block] << 16 | within;
  }

  pending_.assign(bytes.begin() + from, bytes.end());
}

void BgzfWriter::finish() {
  std::vector<Slice> blocks;
  if (!pending_.empty()) blocks.push_back({pending_.data(), pending_.size()});
  write_blocks(blocks);
  pending_.clear();
  if (std::fwrite(kEofBlock.data(), 1, kEofBlock.size(), file_) != kEofBlock.size()) {
    throw Error("write failed (disk full?)");
  }
  compressed_offset_ += kEofBlock.size();
}

}  // namespace gpp::io::detail
