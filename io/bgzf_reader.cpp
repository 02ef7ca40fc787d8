#include "io/bgzf_reader.hpp"

#include <libdeflate.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <span>

#include "io/bam_bytes.hpp"
#include "kernels/error.hpp"
#include "kernels/first_failure.hpp"

namespace gpp::io::detail {

namespace {

constexpr std::size_t kFooterSize = 8;
constexpr std::uint32_t kMaxBlockContents = 0x10000;

struct Block {
  std::size_t offset;        // in the compressed buffer
  std::size_t header_size;   // 12 + XLEN
  std::size_t total_size;    // BSIZE + 1
  std::uint32_t crc;
  std::uint32_t uncompressed_size;
  std::size_t out_offset;    // in the output buffer
};

// Parses the block header at `p` (with `available` bytes); returns false if more bytes are
// needed to see the whole block, throws if it is not a BGZF block.
bool parse_block(const std::uint8_t* p, std::size_t available, const std::string& path,
                 std::uint64_t file_offset, Block& block) {
  if (available < 18) return false;
  if (p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 || (p[3] & 4) == 0) {
    throw Error(path + ": corrupt BGZF block at byte " + std::to_string(file_offset));
  }
  const std::size_t xlen = load16(p + 10);
  if (available < 12 + xlen) return false;
  std::size_t bsize = 0;
  for (std::size_t at = 12; at + 4 <= 12 + xlen;) {  // find the BC subfield among the extras
    const std::size_t slen = load16(p + at + 2);
    if (p[at] == 'B' && p[at + 1] == 'C' && slen == 2) bsize = load16(p + at + 4) + 1u;
    at += 4 + slen;
  }
  if (bsize == 0 || bsize < 12 + xlen + kFooterSize) {
    throw Error(path + ": corrupt BGZF block header at byte " + std::to_string(file_offset));
  }
  if (available < bsize) return false;
  block.header_size = 12 + xlen;
  block.total_size = bsize;
  block.crc = load32(p + bsize - 8);
  block.uncompressed_size = load32(p + bsize - 4);
  return true;
}

// The blocks through `inflater`, their checksums checked here as each one's bytes land; returns
// the first bad block, or blocks.size().
std::size_t inflate_elsewhere(const BlockInflater& inflater, const std::uint8_t* data, std::span<const Block> blocks,
                              std::uint8_t* out) {
  const std::size_t count = blocks.size();
  std::vector<std::uint64_t> in_offsets(count), out_offsets(count);
  std::vector<std::uint32_t> in_sizes(count), out_sizes(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Block& b = blocks[i];
    if (b.uncompressed_size > kMaxBlockContents) return i;
    in_offsets[i] = b.offset + b.header_size;
    in_sizes[i] = static_cast<std::uint32_t>(b.total_size - b.header_size - kFooterSize);
    out_offsets[i] = b.out_offset;
    out_sizes[i] = b.uncompressed_size;
  }
  return inflater.inflate({data, in_offsets.data(), in_sizes.data(), count, out, out_offsets.data(), out_sizes.data()},
                          [&](std::size_t i) {
                            return libdeflate_crc32(0, out + blocks[i].out_offset, blocks[i].uncompressed_size) ==
                                   blocks[i].crc;
                          });
}

struct Decompressor {
  Decompressor() : d(libdeflate_alloc_decompressor()) {}
  ~Decompressor() { libdeflate_free_decompressor(d); }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  libdeflate_decompressor* d;
};

// The blocks with libdeflate on the oneTBB threads, each checked against its CRC32; returns the
// first bad block, or blocks.size().
std::size_t inflate_here(const std::uint8_t* data, std::span<const Block> blocks, std::uint8_t* out) {
  kernels::FirstFailure first_bad(blocks.size());
  oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Decompressor>> decompressors;
  oneapi::tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t i) {
    const Block& b = blocks[i];
    if (b.uncompressed_size == 0) return;
    auto& d = decompressors.local();
    if (!d) d = std::make_unique<Decompressor>();
    std::uint8_t* dst = out + b.out_offset;
    std::size_t produced = 0;
    const auto status = libdeflate_deflate_decompress(d->d, data + b.offset + b.header_size,
                                                      b.total_size - b.header_size - kFooterSize, dst,
                                                      b.uncompressed_size, &produced);
    const bool ok = status == LIBDEFLATE_SUCCESS && produced == b.uncompressed_size &&
                    libdeflate_crc32(0, dst, produced) == b.crc;
    if (!ok) first_bad.report(i);
  });
  return first_bad.get();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BgzfReader::BgzfReader(const std::string& path, std::uint64_t start, BlockInflater inflater)
    : path_(path), inflater_(std::move(inflater)), file_(std::fopen(path.c_str(), "rb"), std::fclose) {
  if (!file_) throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path, ec);
  struct stat status {};
  regular_file_ = fstat(fileno(file_.get()), &status) == 0 && S_ISREG(status.st_mode) && !ec;
  if (!regular_file_) file_size_ = 0;
  file_offset_ = start >> 16;
  skip_ = start & 0xFFFF;
  if (std::fseek(file_.get(), static_cast<long>(file_offset_), SEEK_SET) != 0) {
    throw Error(path + ": cannot seek to byte " + std::to_string(file_offset_));
  }
  if (regular_file_ && file_size_ > 0) {  // where mapping fails, pread serves
    void* map = mmap(nullptr, file_size_, PROT_READ, MAP_PRIVATE, fileno(file_.get()), 0);
    if (map != MAP_FAILED) {
      madvise(map, file_size_, MADV_SEQUENTIAL);
      mapped_ = static_cast<const std::uint8_t*>(map);
    }
  }
}

BgzfReader::~BgzfReader() {
  if (mapped_ != nullptr) munmap(const_cast<std::uint8_t*>(mapped_), file_size_);
}

std::size_t BgzfReader::read_compressed(std::uint8_t* dst, std::size_t bytes) {
  const std::uint64_t at = file_offset_ + carried_;
  if (!regular_file_) {
    const std::size_t got = std::fread(dst, 1, bytes, file_.get());
    if (got < bytes && std::ferror(file_.get())) throw Error(path_ + ": read error (" + std::strerror(errno) + ")");
    return got;
  }
  // A regular file is read in pieces by several threads at once: one thread copying from the
  // page cache is slower than the threads inflating what it reads.
  const std::size_t wanted = at >= file_size_ ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(bytes, file_size_ - at));
  constexpr std::size_t kPiece = 1 << 20;
  const std::size_t pieces = (wanted + kPiece - 1) / kPiece;
  std::vector<std::size_t> got(pieces, 0);
  const int fd = fileno(file_.get());
  oneapi::tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t p) {
    const std::size_t size = std::min(kPiece, wanted - p * kPiece);
    while (got[p] < size) {
      const ssize_t n = pread(fd, dst + p * kPiece + got[p], size - got[p], static_cast<off_t>(at + p * kPiece + got[p]));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error(path_ + ": read error (" + std::strerror(errno) + ")");
      if (n == 0) break;  // the file shrank while being read
      got[p] += static_cast<std::size_t>(n);
    }
  });
  std::size_t total = 0;
  for (std::size_t p = 0; p < pieces; ++p) {
    total += got[p];
    if (got[p] < std::min(kPiece, wanted - p * kPiece)) break;
  }
  return total;
}

std::size_t BgzfReader::read(ByteBuffer& out, std::size_t compressed_bytes) {
  const std::size_t base = out.size();
  const std::size_t produced = read(
      [&](std::size_t bytes) {
        out.resize_uninitialized(base + bytes);
        return out.data() + base;
      },
      compressed_bytes);
  out.resize_uninitialized(base + produced);
  return produced;
}

std::size_t BgzfReader::read(const Placement& place, std::size_t compressed_bytes) {
  // Empty blocks (the EOF marker, or empty blocks mid-file) produce nothing: keep going.
  std::size_t produced = 0;
  while (produced == 0 && !(at_eof_ && carried_ == 0)) produced = read_some(place, compressed_bytes);
  return produced;
}

std::size_t BgzfReader::read_some(const Placement& place, std::size_t compressed_bytes) {
  std::vector<Block> blocks;
  const std::uint8_t* data = nullptr;  // compressed bytes from file_offset_ on
  while (blocks.empty() && !at_eof_) {
    std::size_t available = 0;
    if (mapped_ != nullptr) {
      // The next `compressed_bytes` of the mapped file; a block cut by their end comes next time.
      data = mapped_ + file_offset_;
      available = static_cast<std::size_t>(std::min<std::uint64_t>(compressed_bytes, file_size_ - file_offset_));
      if (file_offset_ + available == file_size_) at_eof_ = true;
    } else {
      // Top up the compressed buffer after the carried-over partial block.
      compressed_.resize(carried_ + compressed_bytes);
      const std::size_t got = read_compressed(compressed_.data() + carried_, compressed_bytes);
      if (got < compressed_bytes) at_eof_ = true;
      data = compressed_.data();
      available = carried_ + got;
    }
    std::size_t at = 0;
    Block block{};
    while (at < available && parse_block(data + at, available - at, path_, file_offset_ + at, block)) {
      block.offset = at;
      blocks.push_back(block);
      at += block.total_size;
    }
    if (at_eof_ && at < available) {
      throw Error(path_ + ": truncated BGZF block at byte " + std::to_string(file_offset_ + at) +
                  ": the file is cut short");
    }
    // Blocks keep pointing into the buffer; the partial block is moved after inflating.
    carried_ = mapped_ != nullptr ? 0 : available - at;
    if (blocks.empty()) {
      compressed_bytes *= 2;  // one block larger than the request: read more
      continue;
    }
  }
  if (blocks.empty()) return 0;

  std::size_t total = 0;
  for (Block& b : blocks) {
    b.out_offset = total;
    total += b.uncompressed_size;
  }
  std::uint8_t* const out = total > 0 ? place(total) : nullptr;
  const auto corrupt = [&](const Block& b) {
    return Error(path_ + ": corrupt BGZF block at byte " + std::to_string(file_offset_ + b.offset) +
                 " (bad deflate data or CRC)");
  };
  const std::span<const Block> all(blocks);
  if (!inflater_) {
    const std::size_t bad = inflate_here(data, all, out);
    if (bad < blocks.size()) throw corrupt(blocks[bad]);
  } else {
    // The first blocks, a share of the compressed bytes, go to the inflater (on a thread of its
    // own); the rest are inflated here meanwhile. The share follows the two sides' speeds, so
    // that they finish together.
    const std::size_t compressed = blocks.back().offset + blocks.back().total_size - blocks.front().offset;
    const double wanted = inflater_share_ * static_cast<double>(compressed);
    std::size_t split = 0, sent = 0;
    for (; split < blocks.size() && static_cast<double>(sent) < wanted; ++split) sent += blocks[split].total_size;
    const auto start = std::chrono::steady_clock::now();
    double elsewhere_seconds = 0;
    auto elsewhere = std::async(std::launch::async, [&] {
      const std::size_t bad = split == 0 ? 0 : inflate_elsewhere(inflater_, data, all.first(split), out);
      elsewhere_seconds = seconds_since(start);
      return bad;
    });
    const std::size_t bad_here = split + inflate_here(data, all.subspan(split), out);
    const double here_seconds = seconds_since(start);
    const std::size_t bad_elsewhere = elsewhere.get();
    if (bad_elsewhere < split) throw corrupt(blocks[bad_elsewhere]);
    if (bad_here < blocks.size()) throw corrupt(blocks[bad_here]);
    if (sent > 0 && sent < compressed && elsewhere_seconds > 0 && here_seconds > 0) {
      const double elsewhere_rate = static_cast<double>(sent) / elsewhere_seconds;
      const double here_rate = static_cast<double>(compressed - sent) / here_seconds;
      const double balanced = elsewhere_rate / (elsewhere_rate + here_rate);
      inflater_share_ = std::clamp(0.5 * inflater_share_ + 0.5 * balanced, 0.05, 0.95);
    }
  }
  const std::size_t consumed = blocks.back().offset + blocks.back().total_size;
  if (mapped_ == nullptr) std::memmove(compressed_.data(), compressed_.data() + consumed, carried_);
  file_offset_ += consumed;

  if (skip_ > 0) {  // the start offset pointed inside the first block
    if (skip_ > total) throw Error(path_ + ": start offset lies beyond its block");
    std::memmove(out, out + skip_, total - skip_);
    total -= skip_;
    skip_ = 0;
  }
  return total;
}

}  // namespace gpp::io::detail
