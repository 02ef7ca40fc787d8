#include "io/bam/bgzf_writer.hpp"

#include <libdeflate.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <string>

#include "core/elapsed.hpp"
#include "core/error.hpp"
#include "io/bam/bam_bytes.hpp"

namespace gpp::io::detail {

namespace {

constexpr std::size_t kBlockData =
    0xff00;  // uncompressed bytes per block (HTSlib's BGZF_BLOCK_SIZE)
constexpr std::size_t kMaxBlock = 0x10000;  // compressed block size limit
constexpr std::size_t kHeaderSize = 18;
constexpr std::size_t kFooterSize = 8;
constexpr std::array<std::uint8_t, 28> kEofBlock = {
    0x1f, 0x8b, 0x08, 0x04, 0,    0, 0, 0, 0, 0xff, 0x06, 0, 0x42, 0x43,
    0x02, 0,    0x1b, 0,    0x03, 0, 0, 0, 0, 0,    0,    0, 0,    0};

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

constexpr std::size_t kRoom = kMaxBlock - kHeaderSize - kFooterSize;  // for the DEFLATE stream

// Header and footer around the `deflated` bytes at out + kHeaderSize (made from `data`); or,
// when `deflated` is 0, the data stored uncompressed. Returns the block's size.
std::size_t frame_block(Compressors& c, const std::uint8_t* data, std::size_t size,
                        std::uint8_t* out, std::size_t deflated) {
  static constexpr std::uint8_t kHeader[16] = {0x1f, 0x8b, 0x08, 0x04, 0,    0,    0,    0,
                                               0,    0xff, 0x06, 0,    0x42, 0x43, 0x02, 0};
  std::memcpy(out, kHeader, 16);
  if (deflated == 0)
    deflated = libdeflate_deflate_compress(c.stored, data, size, out + kHeaderSize, kRoom);
  if (deflated == 0) throw Error("BGZF: a block does not fit even uncompressed");
  const std::size_t total = kHeaderSize + deflated + kFooterSize;
  store16(out + 16, static_cast<std::uint16_t>(total - 1));
  store32(out + kHeaderSize + deflated, libdeflate_crc32(0, data, size));
  store32(out + kHeaderSize + deflated + 4, static_cast<std::uint32_t>(size));
  return total;
}

// One BGZF block for `data` into `out`, compressed with libdeflate; returns its size.
std::size_t compress_block(Compressors& c, const std::uint8_t* data, std::size_t size,
                           std::uint8_t* out) {
  return frame_block(c, data, size, out,
                     libdeflate_deflate_compress(c.chosen, data, size, out + kHeaderSize, kRoom));
}

// Per thread: compressors, made on first use, and a block's uncompressed bytes.
struct Scratch {
  std::unique_ptr<Compressors> compressors;
  std::unique_ptr<std::uint8_t[]> block =
      std::make_unique_for_overwrite<std::uint8_t[]>(kBlockData);
};

}  // namespace

BgzfWriter::BgzfWriter(std::string name, std::FILE* file, int level, DeflateOffload deflater,
                       std::size_t deflater_blocks)
    : name_(std::move(name)),
      file_(file),
      level_(libdeflate_level(level)),
      deflater_(std::move(deflater)),
      deflater_blocks_(std::max<std::size_t>(1, deflater_blocks)) {
  pending_.reserve(kBlockData);
  struct stat status {};
  const off_t at = ftello(file_);
  regular_file_ = fstat(fileno(file_), &status) == 0 && S_ISREG(status.st_mode) && at >= 0;
  file_start_ = regular_file_ ? static_cast<std::uint64_t>(at) : 0;
}

void BgzfWriter::write_failed() const {
  // errno of the failed call: ENOSPC, EFBIG (a file-size limit), EIO, ...
  const std::string reason = errno != 0 ? std::strerror(errno) : "disk full?";
  throw Error(name_ + ": cannot write (" + reason + ")");
}

BgzfWriter::~BgzfWriter() {
  // Writes still running use the output buffers; an error there is lost with the output itself.
  try {
    wait_for_writes();
  } catch (...) {
  }
}

void BgzfWriter::wait_for_writes() {
  const auto start = std::chrono::steady_clock::now();
  if (last_write_.valid()) last_write_.get();
  seconds_.writes_waited += seconds_since(start);
}

std::uint64_t BgzfWriter::tell() const { return compressed_offset_ << 16 | pending_.size(); }

std::vector<std::uint64_t> BgzfWriter::write_blocks(std::size_t count, const BlockSource& source,
                                                    const Placed& placed) {
  std::vector<std::uint64_t> starts(count);
  if (count == 0) return starts;
  Output& output = next_output(count);
  std::uint8_t* out = output.data.get();
  std::vector<std::size_t> sizes(count);
  if (deflater_) {
    write_through_deflater(count, source, placed, out, sizes, starts);
  } else {
    // Filling and compressing, block by block.
    seconds_.compressing += seconds_of([&] { compress_blocks(count, source, out, sizes); });
    write_out(out, 0, count, sizes, starts);
  }
  output.written = last_write_;
  return starts;
}

BgzfWriter::Output& BgzfWriter::next_output(std::size_t blocks) {
  Output& output = outputs_[next_output_];
  next_output_ ^= 1;
  if (output.written.valid()) {  // its last blocks are in the file
    seconds_.writes_waited += seconds_of([&] { output.written.get(); });
  }
  if (blocks > output.blocks) {
    output.blocks = blocks;
    output.data = std::make_unique_for_overwrite<std::uint8_t[]>(output.blocks * kMaxBlock);
  }
  return output;
}

void BgzfWriter::compress_blocks(std::size_t count, const BlockSource& source, std::uint8_t* out,
                                 std::vector<std::size_t>& sizes) {
  oneapi::tbb::enumerable_thread_specific<Scratch> scratch;
  oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t b) {
    Scratch& s = scratch.local();
    if (!s.compressors) s.compressors = std::make_unique<Compressors>(level_);
    const std::size_t size = source(b, s.block.get());
    sizes[b] = compress_block(*s.compressors, s.block.get(), size, out + b * kMaxBlock);
  });
}

// The blocks of one write_blocks call in groups, streamed through the deflater.
struct BgzfWriter::DeflaterGroups {
  std::size_t count;       // blocks
  std::size_t in_flight;   // groups being compressed at once
  std::size_t group_size;  // blocks per group (the last: the rest)
  std::size_t groups;
  std::size_t slot_blocks;  // blocks per staging slot
  const BlockSource& source;
  const Placed& placed;
  std::uint8_t* out;
  std::vector<std::size_t>& sizes;
  std::vector<std::uint64_t>& starts;
  std::vector<std::uint32_t> data_sizes, deflated;
  oneapi::tbb::enumerable_thread_specific<Scratch> scratch{};
  std::size_t oldest = 0;  // the first group submitted and not yet written
  std::size_t submitted = 0;

  std::size_t first(std::size_t g) const { return g * group_size; }
  std::size_t blocks_in(std::size_t g) const { return std::min(group_size, count - first(g)); }
};

// Groups of blocks stream through the deflater: the CPU threads fill group g while up to
// in_flight - 1 earlier groups are being compressed (on a GPU), then frame and write the oldest
// once it is back. Each group in flight has its own slot of the staging buffer.
void BgzfWriter::write_through_deflater(std::size_t count, const BlockSource& source,
                                        const Placed& placed, std::uint8_t* out,
                                        std::vector<std::size_t>& sizes,
                                        std::vector<std::uint64_t>& starts) {
  // At least four groups per call where that leaves 1024 blocks in a group, so the stages
  // overlap for most of a call, not just across its middle.
  const std::size_t in_flight = std::max<std::size_t>(1, deflater_.in_flight);
  const std::size_t group_size =
      std::min({deflater_blocks_, std::max<std::size_t>(1, deflater_.max_blocks),
                std::max<std::size_t>(1024, (count + 3) / 4)});
  const std::size_t slot_blocks = std::min(count, group_size);
  reserve_staging(in_flight * slot_blocks);
  DeflaterGroups call{.count = count,
                      .in_flight = in_flight,
                      .group_size = group_size,
                      .groups = (count + group_size - 1) / group_size,
                      .slot_blocks = slot_blocks,
                      .source = source,
                      .placed = placed,
                      .out = out,
                      .sizes = sizes,
                      .starts = starts,
                      .data_sizes = std::vector<std::uint32_t>(count),
                      .deflated = std::vector<std::uint32_t>(count)};
  try {
    for (std::size_t g = 0; g < call.groups; ++g) {
      // The oldest group's staging slot is the one g takes.
      if (call.submitted - call.oldest == in_flight) write_oldest_group(call);
      fill_and_submit_group(call, g);
      ++call.submitted;
    }
    while (call.oldest < call.groups) write_oldest_group(call);
  } catch (...) {
    // The deflater must not write into these buffers after they are gone.
    for (; call.oldest < call.submitted; ++call.oldest) {
      try {
        deflater_.wait_oldest();
      } catch (...) {
      }
    }
    throw;
  }
}

void BgzfWriter::reserve_staging(std::size_t blocks) {
  if (blocks > staging_blocks_) {
    staging_blocks_ = blocks;
    staging_.reset();  // before its successor is allocated
    staging_ = deflater_.allocate
                   ? deflater_.allocate(staging_blocks_ * kBlockData)
                   : std::make_shared_for_overwrite<std::uint8_t[]>(staging_blocks_ * kBlockData);
  }
}

// Block k of group g in its staging slot.
std::uint8_t* BgzfWriter::staged(const DeflaterGroups& call, std::size_t g, std::size_t k) const {
  return staging_.get() + ((g % call.in_flight) * call.slot_blocks + k) * kBlockData;
}

void BgzfWriter::fill_and_submit_group(DeflaterGroups& call, std::size_t g) {
  const std::size_t first = call.first(g);
  seconds_.filling += seconds_of([&] {
    oneapi::tbb::parallel_for(std::size_t{0}, call.blocks_in(g), [&](std::size_t k) {
      call.data_sizes[first + k] =
          static_cast<std::uint32_t>(call.source(first + k, staged(call, g, k)));
    });
  });
  deflater_.submit({.data = staged(call, g, 0),
                    .stride = kBlockData,
                    .sizes = call.data_sizes.data() + first,
                    .count = call.blocks_in(g),
                    .out = call.out + first * kMaxBlock + kHeaderSize,
                    .out_stride = kMaxBlock,
                    .capacity = kRoom,
                    .out_sizes = call.deflated.data() + first});
}

// The oldest group, once the deflater is done with it: framed on the CPU threads and written.
void BgzfWriter::write_oldest_group(DeflaterGroups& call) {
  const std::size_t g = call.oldest++;
  const std::size_t first = call.first(g);
  seconds_.compressing += seconds_of([&] { deflater_.wait_oldest(); });
  seconds_.framing += seconds_of([&] {
    oneapi::tbb::parallel_for(std::size_t{0}, call.blocks_in(g), [&](std::size_t k) {
      Scratch& s = call.scratch.local();
      if (!s.compressors) s.compressors = std::make_unique<Compressors>(level_);
      const std::size_t b = first + k;
      call.sizes[b] = frame_block(*s.compressors, staged(call, g, k), call.data_sizes[b],
                                  call.out + b * kMaxBlock, call.deflated[b]);
    });
  });
  write_out(call.out, first, call.blocks_in(g), call.sizes, call.starts);
  if (call.placed) call.placed(first + call.blocks_in(g), call.starts);
}

void BgzfWriter::write_out(const std::uint8_t* out, std::size_t first, std::size_t count,
                           const std::vector<std::size_t>& sizes,
                           std::vector<std::uint64_t>& starts) {
  for (std::size_t b = first; b < first + count; ++b) {
    starts[b] = compressed_offset_;
    compressed_offset_ += sizes[b];
  }
  if (count == 0) return;
  std::vector<std::size_t> group_sizes(sizes.begin() + static_cast<std::ptrdiff_t>(first),
                                       sizes.begin() + static_cast<std::ptrdiff_t>(first + count));
  last_write_ =
      std::async(std::launch::async, [this, block = out + first * kMaxBlock,
                                      group_sizes = std::move(group_sizes), offset = starts[first],
                                      before = std::move(last_write_)] {
        if (before.valid()) before.get();
        write_now(block, group_sizes, offset);
      }).share();
}

// sizes.size() blocks, kMaxBlock apart from `blocks` on, to compressed offset `file_offset` on;
// the only writer of the file while it runs.
void BgzfWriter::write_now(const std::uint8_t* blocks, const std::vector<std::size_t>& sizes,
                           std::uint64_t file_offset) {
  const std::size_t count = sizes.size();
  if (!regular_file_ || count < 16) {
    for (std::size_t b = 0; b < count; ++b) {
      if (std::fwrite(blocks + b * kMaxBlock, 1, sizes[b], file_) != sizes[b]) write_failed();
    }
    return;
  }
  // Many blocks to a regular file: gathered into few system calls, from one thread. (Writes from
  // several threads at once queue on the file's lock in the kernel: twice the system time.)
  if (std::fflush(file_) != 0) write_failed();
  std::vector<std::uint64_t> at(count + 1, file_start_ + file_offset);
  for (std::size_t b = 0; b < count; ++b) at[b + 1] = at[b] + sizes[b];
  const int fd = fileno(file_);
  constexpr std::size_t kBlocksPerCall = 512;  // within IOV_MAX (1024)
  std::vector<iovec> pieces;
  for (std::size_t first = 0; first < count;) {
    const std::size_t last = std::min(count, first + kBlocksPerCall);
    pieces.clear();
    for (std::size_t b = first; b < last; ++b) {
      pieces.push_back({const_cast<std::uint8_t*>(blocks + b * kMaxBlock), sizes[b]});
    }
    // A short write leaves the rest of the pieces to the next call.
    std::size_t piece = 0;
    std::uint64_t offset = at[first];
    while (piece < pieces.size()) {
      const ssize_t n = pwritev(fd, pieces.data() + piece, static_cast<int>(pieces.size() - piece),
                                static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) write_failed();
      offset += static_cast<std::uint64_t>(n);
      for (std::size_t done = static_cast<std::size_t>(n); done > 0;) {
        const std::size_t step = std::min(done, pieces[piece].iov_len);
        pieces[piece].iov_base = static_cast<std::uint8_t*>(pieces[piece].iov_base) + step;
        pieces[piece].iov_len -= step;
        done -= step;
        if (pieces[piece].iov_len == 0) ++piece;
      }
      while (piece < pieces.size() && pieces[piece].iov_len == 0) ++piece;  // empty blocks
    }
    first = last;
  }
  if (fseeko(file_, static_cast<off_t>(at[count]), SEEK_SET) != 0) {
    write_failed();
  }
}

void BgzfWriter::write_and_flush(std::span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> all(pending_);
  all.insert(all.end(), bytes.begin(), bytes.end());
  pending_.clear();
  const std::size_t count = (all.size() + kBlockData - 1) / kBlockData;
  write_blocks(count, [&](std::size_t b, std::uint8_t* dst) {
    const std::size_t size = std::min(kBlockData, all.size() - b * kBlockData);
    std::memcpy(dst, all.data() + b * kBlockData, size);
    return size;
  });
}

namespace {

// The stream of `prefix` pending bytes followed by the records (ending at `record_ends`), cut
// into blocks as HTSlib would: before a record that does not fit in the current block, and
// wherever a block reaches kBlockData bytes. Returns the end of each completed block, as a
// position in the record stream (excluding the prefix).
std::vector<std::size_t> block_cuts(std::span<const std::uint64_t> record_ends,
                                    std::size_t prefix) {
  std::vector<std::size_t> cuts;
  std::size_t block_start = 0;
  std::size_t fill = prefix;
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
      const std::size_t cut = block_start + kBlockData - (cuts.empty() ? prefix : 0);
      cuts.push_back(cut);
      block_start = cut;
      fill -= kBlockData;
    }
    record_start = end;
  }
  return cuts;
}

// Bytes [from, to) of the record stream into dst: records wholly inside are serialised in
// place; the rare record that straddles a cut goes through a temporary copy.
void serialize_range(std::span<const std::uint64_t> record_ends,
                     const std::function<void(std::size_t, std::uint8_t*)>& serialize,
                     std::size_t from, std::size_t to, std::uint8_t* dst) {
  std::size_t k =
      std::upper_bound(record_ends.begin(), record_ends.end(), from) - record_ends.begin();
  std::vector<std::uint8_t> straddling;
  for (; k < record_ends.size(); ++k) {
    const std::size_t start = k == 0 ? 0 : record_ends[k - 1];
    const std::size_t end = record_ends[k];
    if (start >= to) break;
    if (start >= from && end <= to) {
      serialize(k, dst + (start - from));
    } else {
      straddling.resize(end - start);
      serialize(k, straddling.data());
      const std::size_t lo = std::max(start, from);
      const std::size_t hi = std::min(end, to);
      std::memcpy(dst + (lo - from), straddling.data() + (lo - start), hi - lo);
    }
  }
}

// Virtual offset of each record end: (compressed start of its block) << 16 | offset within. A
// record ending exactly at a cut points at the start of the next block, as HTSlib's tell().
// Ends are final once their block's start is known: they are set as blocks are placed.
class VirtualEnds {
 public:
  VirtualEnds(std::span<const std::uint64_t> record_ends, const std::vector<std::size_t>& cuts,
              std::size_t prefix, std::vector<std::uint64_t>& virtual_ends)
      : record_ends_(record_ends), cuts_(cuts), prefix_(prefix), virtual_ends_(virtual_ends) {}

  // Sets the ends in the first `known_blocks` blocks (starting at `starts`), and, once every
  // block is placed, those in the pending block (at `pending_offset`).
  void set(std::size_t known_blocks, const std::vector<std::uint64_t>& starts,
           std::uint64_t pending_offset) {
    for (; next_record_ < record_ends_.size(); ++next_record_) {
      const std::uint64_t end = record_ends_[next_record_];
      while (block_ < cuts_.size() && end >= cuts_[block_]) {
        block_begin_ = cuts_[block_];
        ++block_;
      }
      // Its block's start is not known yet (the pending block's: only once all are placed).
      if (block_ < cuts_.size() ? block_ >= known_blocks : known_blocks < cuts_.size()) break;
      const std::uint64_t block_offset = block_ < cuts_.size() ? starts[block_] : pending_offset;
      const std::size_t within = end - block_begin_ + (block_ == 0 ? prefix_ : 0);
      virtual_ends_[next_record_] = block_offset << 16 | within;
    }
  }
  // Records whose virtual end is set: the first ones.
  std::size_t set_count() const { return next_record_; }

 private:
  std::span<const std::uint64_t> record_ends_;
  const std::vector<std::size_t>& cuts_;
  std::size_t prefix_;
  std::vector<std::uint64_t>& virtual_ends_;
  std::size_t next_record_ = 0;  // the first record without its virtual end
  std::size_t block_ = 0;        // the block that record's end lies in (cuts before it)
  std::size_t block_begin_ = 0;  // where that block starts in the record stream
};

}  // namespace

void BgzfWriter::write_records(std::span<const std::uint64_t> record_ends,
                               const std::function<void(std::size_t, std::uint8_t*)>& serialize,
                               std::vector<std::uint64_t>& virtual_ends,
                               const std::function<void(std::size_t)>& progress) {
  // The stream is pending_ followed by the records; positions are in the record stream.
  const std::size_t prefix = pending_.size();
  const std::vector<std::size_t> cuts = block_cuts(record_ends, prefix);
  virtual_ends.resize(record_ends.size());
  VirtualEnds ends(record_ends, cuts, prefix, virtual_ends);
  Placed placed;
  if (progress) {
    placed = [&](std::size_t known_blocks, const std::vector<std::uint64_t>& starts) {
      ends.set(known_blocks, starts, 0);
      if (ends.set_count() > 0) progress(ends.set_count());
    };
  }
  const std::vector<std::uint64_t> starts = write_blocks(
      cuts.size(),
      [&](std::size_t b, std::uint8_t* dst) {
        const std::size_t from = b == 0 ? 0 : cuts[b - 1];
        std::size_t size = 0;
        if (b == 0 && prefix > 0) {
          std::memcpy(dst, pending_.data(), prefix);
          size = prefix;
        }
        serialize_range(record_ends, serialize, from, cuts[b], dst + size);
        return size + (cuts[b] - from);
      },
      placed);
  ends.set(cuts.size(), starts, compressed_offset_);  // the block that holds what stays pending
  if (progress) progress(record_ends.size());
  keep_pending(record_ends, serialize, cuts);
}

// What follows the last cut stays pending for the next call (or finish()): behind what was
// pending when no block was cut.
void BgzfWriter::keep_pending(std::span<const std::uint64_t> record_ends,
                              const std::function<void(std::size_t, std::uint8_t*)>& serialize,
                              const std::vector<std::size_t>& cuts) {
  const std::size_t prefix = pending_.size();
  const std::size_t stream_end = record_ends.empty() ? 0 : record_ends.back();
  const std::size_t last_cut = cuts.empty() ? 0 : cuts.back();
  std::vector<std::uint8_t> rest(prefix * cuts.empty() + (stream_end - last_cut));
  std::size_t at = 0;
  if (cuts.empty() && prefix > 0) {
    std::memcpy(rest.data(), pending_.data(), prefix);
    at = prefix;
  }
  serialize_range(record_ends, serialize, last_cut, stream_end, rest.data() + at);
  pending_ = std::move(rest);
}

void BgzfWriter::finish() {
  if (!pending_.empty()) {
    write_blocks(1, [&](std::size_t, std::uint8_t* dst) {
      std::memcpy(dst, pending_.data(), pending_.size());
      return pending_.size();
    });
  }
  pending_.clear();
  wait_for_writes();
  if (std::fwrite(kEofBlock.data(), 1, kEofBlock.size(), file_) != kEofBlock.size()) {
    write_failed();
  }
  compressed_offset_ += kEofBlock.size();
}

}  // namespace gpp::io::detail
