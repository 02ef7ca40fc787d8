#include "io/bam_chunk_reader.hpp"

#include <cstring>
#include <utility>

#include "io/bam_decoding.hpp"
#include "kernels/error.hpp"

namespace gpp::io::detail {

namespace {
// Room before each inflated chunk for the part of a record the previous chunk cut off; a longer
// part (a record of megabytes) is joined by copying the chunk instead.
constexpr std::size_t kHeadroom = 1 << 20;
}  // namespace

BamChunkReader::BamChunkReader(const std::string& path, std::uint64_t start, std::size_t compressed_bytes)
    : path_(path), bgzf_(path, start), compressed_bytes_(compressed_bytes) {
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
  chunk.bytes.resize_uninitialized(kHeadroom);
  inflate_arena_.execute([&] { chunk.inflated_nothing = bgzf_.read(chunk.bytes, compressed_bytes_) == 0; });
  chunk.compressed_end = bgzf_.compressed_position();
}

void BamChunkReader::find_records(BamChunk& chunk) {
  chunk.starts.clear();
  std::size_t begin = kHeadroom - carry_.size();
  if (carry_.size() > kHeadroom) {  // a huge record: make room by moving the chunk
    ByteBuffer joined;
    joined.resize_uninitialized(carry_.size() + chunk.bytes.size() - kHeadroom);
    std::memcpy(joined.data() + carry_.size(), chunk.bytes.data() + kHeadroom, chunk.bytes.size() - kHeadroom);
    chunk.bytes = std::move(joined);
    begin = 0;
  }
  if (carry_.size() > 0) std::memcpy(chunk.bytes.data() + begin, carry_.data(), carry_.size());
  if (chunk.inflated_nothing) {
    if (carry_.size() > 0) {
      throw Error(path_ + ": truncated or corrupt BAM data after record " + std::to_string(records_before_) +
                  " (the last record is cut off)");
    }
    return;
  }
  const std::size_t used =
      begin + find_bam_records(chunk.bytes.data() + begin, chunk.bytes.size() - begin, 0, chunk.starts, path_);
  for (std::uint64_t& start : chunk.starts) start += begin;
  records_before_ += chunk.starts.size();
  carry_.resize_uninitialized(chunk.bytes.size() - used);
  if (carry_.size() > 0) std::memcpy(carry_.data(), chunk.bytes.data() + used, carry_.size());
}

void BamChunkReader::start_finding() {
  finding_ = std::async(std::launch::async, [this] {
    // A chunk with no whole record (records longer than a chunk) takes the next chunk too.
    do {
      inflating_.get();
      std::swap(found_.bytes, inflated_.bytes);
      found_.compressed_end = inflated_.compressed_end;
      found_.inflated_nothing = inflated_.inflated_nothing;
      if (!found_.inflated_nothing) inflating_ = std::async(std::launch::async, [this] { inflate(inflated_); });
      find_records(found_);
    } while (found_.starts.empty() && !found_.inflated_nothing);
  });
}

bool BamChunkReader::next(BamChunk& chunk) {
  if (at_end_) return false;
  finding_.get();  // rethrows an error of either stage
  if (found_.starts.empty()) {
    at_end_ = true;
    return false;
  }
  std::swap(chunk, found_);
  start_finding();
  return true;
}

}  // namespace gpp::io::detail
