#include "io/bam/bgzf_reader.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <span>

#include "core/error.hpp"
#include "core/first_failure.hpp"
#include "io/background_release.hpp"
#include "io/bam/bam_bytes.hpp"

namespace gpp::io::detail {

namespace {

constexpr std::size_t kFooterSize = 8;
constexpr std::uint32_t kMaxBlockContents = 0x10000;

using Block = BgzfBlock;

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
  // Find the BC subfield among the extras; a subfield must lie within XLEN (RFC 1952 2.3.1.1).
  for (std::size_t at = 12; at + 4 <= 12 + xlen;) {
    const std::size_t slen = load16(p + at + 2);
    if (at + 4 + slen > 12 + xlen) break;
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
  // SAM spec 4.1: a block holds at most 64 KiB. Checked before the output is sized from it.
  if (block.uncompressed_size > kMaxBlockContents) {
    throw Error(path + ": corrupt BGZF block at byte " + std::to_string(file_offset) +
                " (it claims " + std::to_string(block.uncompressed_size) +
                " uncompressed bytes; at most 65536)");
  }
  return true;
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
std::size_t inflate_here(const std::uint8_t* data, std::span<const Block> blocks,
                         std::uint8_t* out) {
  FirstFailure first_bad(blocks.size());
  oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Decompressor>> decompressors;
  oneapi::tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t i) {
    const Block& b = blocks[i];
    if (b.uncompressed_size == 0) return;
    auto& d = decompressors.local();
    if (!d) d = std::make_unique<Decompressor>();
    std::uint8_t* dst = out + b.out_offset;
    std::size_t produced = 0;
    const auto status = libdeflate_deflate_decompress(d->d, data + b.offset + b.header_size,
                                                      b.total_size - b.header_size - kFooterSize,
                                                      dst, b.uncompressed_size, &produced);
    const bool ok = status == LIBDEFLATE_SUCCESS && produced == b.uncompressed_size &&
                    libdeflate_crc32(0, dst, produced) == b.crc;
    if (!ok) first_bad.report(i);
  });
  return first_bad.get();
}

}  // namespace

BgzfReader::BgzfReader(const std::string& path, std::uint64_t start, InflateOffload inflater,
                       bool free_read)
    : path_(path),
      inflater_(std::move(inflater)),
      // Giving space back (a hole punched in the file) needs it open for writing.
      file_(std::fopen(path.c_str(), free_read ? "r+b" : "rb"), std::fclose),
      free_read_(free_read) {
  if (!file_) throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path, ec);
  struct stat status {};
  regular_file_ = fstat(fileno(file_.get()), &status) == 0 && S_ISREG(status.st_mode) && !ec;
  if (!regular_file_) file_size_ = 0;
  file_offset_ = start >> 16;
  submitted_to_ = file_offset_;
  skip_ = start & 0xFFFF;
  if (std::fseek(file_.get(), static_cast<long>(file_offset_), SEEK_SET) != 0) {
    throw Error(path + ": cannot seek to byte " + std::to_string(file_offset_));
  }
  if (regular_file_ && file_size_ > 0) {  // where mapping fails, pread serves
    mapping_ = std::make_unique<MappedInput>(fileno(file_.get()), file_size_, path);
    mapped_ = mapping_->data();
    if (mapped_ != nullptr) {
      madvise(const_cast<std::uint8_t*>(mapped_), file_size_, MADV_SEQUENTIAL);
    }
  }
  if (mapped_ == nullptr) inflater_ = {};  // never used: given back at once
}

BgzfReader::~BgzfReader() {
  try {  // the reader stopped early: drop what is still in flight
    for (; parts_submitted_ > 0; --parts_submitted_) inflater_.land(nullptr, nullptr, {});
  } catch (...) {
  }
  if (free_read_ && file_) {
    // A file read for the last time may go with this descriptor: its blocks are freed on the
    // releasing thread (the mapping, which holds the file too, goes first).
    mapping_.reset();
    std::FILE* file = file_.release();
    release_in_background([file] { std::fclose(file); });
  }
}

std::size_t BgzfReader::read_compressed(std::uint8_t* dst, std::size_t bytes) {
  const std::uint64_t at = file_offset_ + carried_;
  if (!regular_file_) {
    const std::size_t got = std::fread(dst, 1, bytes, file_.get());
    if (got < bytes && std::ferror(file_.get()))
      throw Error(path_ + ": read error (" + std::strerror(errno) + ")");
    return got;
  }
  // A regular file is read in pieces by several threads at once: one thread copying from the
  // page cache is slower than the threads inflating what it reads.
  const std::size_t wanted =
      at >= file_size_ ? 0
                       : static_cast<std::size_t>(std::min<std::uint64_t>(bytes, file_size_ - at));
  constexpr std::size_t kPiece = 1 << 20;
  const std::size_t pieces = (wanted + kPiece - 1) / kPiece;
  std::vector<std::size_t> got(pieces, 0);
  const int fd = fileno(file_.get());
  oneapi::tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t p) {
    const std::size_t size = std::min(kPiece, wanted - p * kPiece);
    while (got[p] < size) {
      const ssize_t n = pread(fd, dst + p * kPiece + got[p], size - got[p],
                              static_cast<off_t>(at + p * kPiece + got[p]));
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
  while (produced == 0 && !(at_eof_ && carried_ == 0))
    produced = read_some(place, compressed_bytes);
  if (produced == 0 && parts_submitted_ == 0) {
    inflater_ = {};  // the file is read: the inflater goes back to whoever lent it
  }
  return produced;
}

std::size_t BgzfReader::read_some(const Placement& place, std::size_t compressed_bytes) {
  if (inflater_ && mapped_ != nullptr &&
      (!parts_.empty() || !inflater_.ready || inflater_.ready())) {
    return read_streamed(place, compressed_bytes);
  }
  std::vector<Block> blocks;
  const std::uint8_t* data = nullptr;  // compressed bytes from file_offset_ on
  while (blocks.empty() && !at_eof_) {
    std::size_t available = 0;
    if (mapped_ != nullptr) {
      // The next `compressed_bytes` of the mapped file; a block cut by their end comes next time.
      data = mapped_ + file_offset_;
      available = static_cast<std::size_t>(
          std::min<std::uint64_t>(compressed_bytes, file_size_ - file_offset_));
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
    while (at < available &&
           parse_block(data + at, available - at, path_, file_offset_ + at, block)) {
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
  const std::size_t bad = inflate_here(data, blocks, out);
  if (bad < blocks.size()) throw corrupt(blocks[bad]);
  const std::size_t consumed = blocks.back().offset + blocks.back().total_size;
  if (mapped_ == nullptr) std::memmove(compressed_.data(), compressed_.data() + consumed, carried_);
  file_offset_ += consumed;
  submitted_to_ = file_offset_;  // where streaming takes over once the inflater is ready
  release_read();

  return drop_skipped(out, total);
}

void BgzfReader::release_read() {
  if (mapping_) mapping_->release_before(file_offset_);
  constexpr std::uint64_t kStep = std::uint64_t{64} << 20;
  const std::uint64_t end = file_offset_ / kStep * kStep;
  if (!free_read_ || !regular_file_ || end <= freed_) return;
  // Freeing blocks may wait for the device (io/background_release.hpp).
  punch_hole_in_background(fileno(file_.get()), freed_, end - freed_);
  freed_ = end;
}

std::size_t BgzfReader::drop_skipped(std::uint8_t* out, std::size_t total) {
  if (skip_ > 0) {
    if (skip_ > total) throw Error(path_ + ": start offset lies beyond its block");
    std::memmove(out, out + skip_, total - skip_);
    total -= skip_;
    skip_ = 0;
  }
  return total;
}

void BgzfReader::submit_ahead() {
  std::vector<std::uint64_t> in_offsets;
  std::vector<std::uint32_t> in_sizes, out_sizes, crcs;
  while (parts_submitted_ < inflater_.in_flight && !ahead_stopped_) {
    // Not yet ready (a GPU still making its buffers): fewer parts ahead for now. The first call of
    // a streamed read gets one in: read_some streams only when ready() or parts are in flight.
    if (inflater_.ready && parts_submitted_ > 0 && !inflater_.ready()) break;
    Part part;
    const std::uint64_t start = submitted_to_;
    std::size_t stream_bytes = 0;
    in_offsets.clear();
    in_sizes.clear();
    out_sizes.clear();
    crcs.clear();
    while (part.blocks.size() < inflater_.max_blocks) {
      if (submitted_to_ == file_size_) {
        ahead_stopped_ = true;
        break;
      }
      Block block{};
      try {
        if (!parse_block(mapped_ + submitted_to_, file_size_ - submitted_to_, path_, submitted_to_,
                         block)) {
          throw Error(path_ + ": truncated BGZF block at byte " + std::to_string(submitted_to_) +
                      ": the file is cut short");
        }
        if (block.uncompressed_size > kMaxBlockContents) {
          throw Error(path_ + ": corrupt BGZF block at byte " + std::to_string(submitted_to_) +
                      " (it claims more than 64 KiB of contents)");
        }
      } catch (const Error&) {
        ahead_error_ = std::current_exception();
        ahead_stopped_ = true;
        break;
      }
      const std::size_t stream = block.total_size - block.header_size - kFooterSize;
      if (stream_bytes + stream > inflater_.max_stream_bytes) break;
      block.offset = submitted_to_;
      block.out_offset = part.uncompressed;
      submitted_to_ += block.total_size;
      if (block.uncompressed_size == 0) continue;  // the EOF marker, or an empty block mid-file
      stream_bytes += stream;
      part.uncompressed += block.uncompressed_size;
      part.blocks.push_back(block);
      in_offsets.push_back(block.offset + block.header_size);
      in_sizes.push_back(static_cast<std::uint32_t>(stream));
      out_sizes.push_back(block.uncompressed_size);
      crcs.push_back(block.crc);
    }
    if (submitted_to_ == start) break;
    part.end = submitted_to_;
    part.compressed = static_cast<std::size_t>(submitted_to_ - start);
    if (!part.blocks.empty()) {
      inflater_.submit({mapped_, in_offsets.data(), in_sizes.data(), out_sizes.data(),
                        part.blocks.size(), crcs.data()});
      ++parts_submitted_;
    }
    parts_.push_back(std::move(part));
  }
}

std::size_t BgzfReader::read_streamed(const Placement& place, std::size_t compressed_bytes) {
  submit_ahead();
  if (parts_.empty()) {
    if (ahead_error_) std::rethrow_exception(ahead_error_);
    at_eof_ = true;
    return 0;
  }
  // Whole parts: the first, and the next ones while they keep within `compressed_bytes`.
  std::size_t count = 0, compressed = 0, total = 0;
  for (const Part& part : parts_) {
    if (count > 0 && compressed + part.compressed > compressed_bytes) break;
    ++count;
    compressed += part.compressed;
    total += part.uncompressed;
  }
  std::uint8_t* const out = total > 0 ? place(total) : nullptr;
  std::vector<std::uint64_t> out_offsets;
  std::size_t at = 0;
  for (std::size_t p = 0; p < count; ++p) {
    const Part part = std::move(parts_.front());
    parts_.pop_front();
    if (!part.blocks.empty()) {
      out_offsets.resize(part.blocks.size());
      for (std::size_t k = 0; k < part.blocks.size(); ++k)
        out_offsets[k] = at + part.blocks[k].out_offset;
      --parts_submitted_;
      // Each block's CRC-32 is checked where it is inflated.
      const std::size_t bad = inflater_.land(out, out_offsets.data(), {});
      if (bad < part.blocks.size()) {
        throw Error(path_ + ": corrupt BGZF block at byte " +
                    std::to_string(part.blocks[bad].offset) + " (bad deflate data or CRC)");
      }
    }
    at += part.uncompressed;
    file_offset_ = part.end;
    release_read();
    submit_ahead();  // the inflater never runs dry while the reader lands
  }
  return drop_skipped(out, total);
}

}  // namespace gpp::io::detail
