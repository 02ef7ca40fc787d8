#include "io/bam/bam_chunk_reader.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "core/elapsed.hpp"
#include "core/error.hpp"
#include "io/bam/bam_decoding.hpp"

namespace gpp::io::detail {

namespace {
// Room before each inflated chunk for the part of a record the previous chunk cut off (at most
// this, less for small steps); a longer part (a record of megabytes) is joined by copying the
// chunk instead.
constexpr std::size_t kMostHeadroom = 1 << 20;
}  // namespace

BamChunkReader::BamChunkReader(const std::string& path, std::uint64_t start,
                               std::size_t compressed_bytes, bool keep, InflateOffload inflater,
                               bool inflate_first, bool free_read)
    : path_(path),
      bgzf_(path, start, std::move(inflater), free_read),
      compressed_bytes_(compressed_bytes),
      headroom_(std::min(kMostHeadroom, compressed_bytes)),
      keep_(keep),
      inflate_arena_(oneapi::tbb::task_arena::automatic, 1,
                     inflate_first ? oneapi::tbb::task_arena::priority::high
                                   : oneapi::tbb::task_arena::priority::normal) {
  inflating_ = std::async(std::launch::async, [this] { inflate(inflated_); });
  start_finding();
}

BamChunkReader::~BamChunkReader() {
  // Stage 2 waits for stage 1 before it starts stage 1 again: wait for it first.
  for (std::future<void>* stage : {&finding_, &inflating_}) {
    if (!stage->valid()) continue;
    try {
      stage->get();
    } catch (...) {  // the caller stopped early; an error in a chunk it never asked for is moot
    }
  }
}

void BamChunkReader::inflate(BamChunk& chunk) {
  const auto start = std::chrono::steady_clock::now();
  if (keep_) {
    std::size_t produced = 0;
    inflate_arena_.execute([&] {
      produced =
          bgzf_.read([this](std::size_t bytes) { return slab_place(bytes); }, compressed_bytes_);
    });
    chunk.slab = slab_;
    chunk.data = produced == 0 ? nullptr : slab_->data.get() + slab_->used;
    chunk.size = produced;
    if (slab_) slab_->used += produced;
    inflated_bytes_ += produced;
    chunk.inflated_nothing = produced == 0;
  } else {
    chunk.bytes.resize_uninitialized(headroom_);
    inflate_arena_.execute(
        [&] { chunk.inflated_nothing = bgzf_.read(chunk.bytes, compressed_bytes_) == 0; });
    chunk.data = chunk.bytes.data() + headroom_;
    chunk.size = chunk.bytes.size() - headroom_;
  }
  chunk.compressed_end = bgzf_.compressed_position();
  seconds_.inflating += seconds_since(start);
}

std::uint8_t* BamChunkReader::slab_place(std::size_t bytes) {
  if (!slab_ || slab_->capacity - slab_->used < bytes) {
    // These bytes and the rest of the file at the ratio seen so far, with room to spare; when the
    // file's size is unknown, twice the last slab; at least a few chunks' worth. A new slab
    // starts with a headroom for the record the last chunk of the old one cut.
    std::uint64_t wanted = slab_ ? 2 * slab_->capacity : 0;
    const std::uint64_t file_size = bgzf_.file_size();
    const std::uint64_t consumed = bgzf_.compressed_position() + compressed_bytes_;
    if (file_size > consumed) {
      const double ratio =
          static_cast<double>(inflated_bytes_ + bytes) / static_cast<double>(consumed);
      wanted =
          static_cast<std::uint64_t>(1.05 * ratio * static_cast<double>(file_size - consumed)) +
          bytes;
    }
    auto slab = std::make_shared<RecordSlab>();
    slab->capacity =
        headroom_ + std::max<std::uint64_t>({wanted, bytes, 4 * std::uint64_t{compressed_bytes_}});
    slab->data = std::make_unique_for_overwrite<std::uint8_t[]>(slab->capacity);
    slab->used = headroom_;
    slab_ = std::move(slab);
  }
  return slab_->data.get() + slab_->used;
}

void BamChunkReader::find_kept_records(BamChunk& chunk) {
  chunk.starts.clear();
  if (chunk.inflated_nothing) {
    if (cut_bytes_ > 0) {
      throw Error(path_ + ": truncated or corrupt BAM data after record " +
                  std::to_string(records_before_) + " (the last record is cut off)");
    }
    return;
  }
  // The record the last chunk cut goes on here: in place when this chunk was inflated right
  // after those bytes; otherwise its start is copied into the headroom of this chunk's new slab,
  // or, when longer than that (a record of megabytes), the two are joined in memory of their own.
  const bool follows =
      chunk.slab == last_slab_ && chunk.data == last_end_ && cut_bytes_ <= in_place_;
  const bool heads_slab = chunk.data == chunk.slab->data.get() + headroom_;
  const std::size_t size = cut_bytes_ + chunk.size;
  std::uint8_t* begin = chunk.data;
  last_slab_ = chunk.slab;
  last_end_ = chunk.data + chunk.size;
  in_place_ = size;
  if (follows) {
    begin -= cut_bytes_;
  } else if (cut_bytes_ > 0) {
    if (heads_slab && cut_bytes_ <= headroom_) {
      begin -= cut_bytes_;
      std::memcpy(begin, cut_end_ - cut_bytes_, cut_bytes_);
    } else {
      auto joined = std::make_shared<RecordSlab>();
      joined->capacity = joined->used = size;
      joined->data = std::make_unique_for_overwrite<std::uint8_t[]>(size);
      std::memcpy(joined->data.get(), cut_end_ - cut_bytes_, cut_bytes_);
      std::memcpy(joined->data.get() + cut_bytes_, chunk.data, chunk.size);
      begin = joined->data.get();
      in_place_ = chunk.size;  // only the chunk's own bytes lie before last_end_
      chunk.slab = std::move(joined);
    }
  }
  chunk.records = begin;
  const std::size_t used = find_bam_records(begin, size, 0, chunk.starts, path_);
  records_before_ += chunk.starts.size();
  cut_bytes_ = size - used;
  cut_end_ = begin + size;
  cut_owner_ = chunk.slab;
}

void BamChunkReader::find_records(BamChunk& chunk) {
  if (keep_) {
    find_kept_records(chunk);
    return;
  }
  chunk.starts.clear();
  std::size_t begin = headroom_ - carry_.size();
  if (carry_.size() > headroom_) {  // a huge record: make room by moving the chunk
    ByteBuffer joined;
    joined.resize_uninitialized(carry_.size() + chunk.bytes.size() - headroom_);
    std::memcpy(joined.data() + carry_.size(), chunk.bytes.data() + headroom_,
                chunk.bytes.size() - headroom_);
    chunk.bytes = std::move(joined);
    begin = 0;
  }
  if (carry_.size() > 0) std::memcpy(chunk.bytes.data() + begin, carry_.data(), carry_.size());
  if (chunk.inflated_nothing) {
    if (carry_.size() > 0) {
      throw Error(path_ + ": truncated or corrupt BAM data after record " +
                  std::to_string(records_before_) + " (the last record is cut off)");
    }
    return;
  }
  const std::size_t used =
      begin + find_bam_records(chunk.bytes.data() + begin, chunk.bytes.size() - begin, 0,
                               chunk.starts, path_);
  for (std::uint64_t& start : chunk.starts) start += begin;
  chunk.records = chunk.bytes.data();
  records_before_ += chunk.starts.size();
  carry_.resize_uninitialized(chunk.bytes.size() - used);
  if (carry_.size() > 0) std::memcpy(carry_.data(), chunk.bytes.data() + used, carry_.size());
}

void BamChunkReader::start_finding() {
  finding_ = std::async(std::launch::async, [this] {
    // A chunk with no whole record (records longer than a chunk) takes the next chunk too.
    do {
      inflating_.get();
      std::swap(found_, inflated_);
      if (!found_.inflated_nothing)
        inflating_ = std::async(std::launch::async, [this] { inflate(inflated_); });
      const auto start = std::chrono::steady_clock::now();
      find_records(found_);
      seconds_.finding += seconds_since(start);
    } while (found_.starts.empty() && !found_.inflated_nothing);
  });
}

bool BamChunkReader::next(BamChunk& chunk) {
  if (at_end_) return false;
  const auto start = std::chrono::steady_clock::now();
  finding_.get();  // rethrows an error of either stage
  seconds_.waiting += seconds_since(start);
  if (found_.starts.empty()) {
    at_end_ = true;
    return false;
  }
  std::swap(chunk, found_);
  start_finding();
  return true;
}

}  // namespace gpp::io::detail
