#include "io/bam_chunk_reader.hpp"

#include <cstring>
#include <utility>

#include "io/bam_decoding.hpp"
#include "kernels/error.hpp"

namespace gpp::io::detail {

BamChunkReader::BamChunkReader(const std::string& path, std::uint64_t start, std::size_t compressed_bytes)
    : path_(path), bgzf_(path, start), compressed_bytes_(compressed_bytes) {
  start_ahead();
}

BamChunkReader::~BamChunkReader() {
  if (!pending_.valid()) return;
  try {
    pending_.get();
  } catch (...) {  // the caller stopped early; an error in a chunk it never asked for is moot
  }
}

void BamChunkReader::start_ahead() {
  pending_ = std::async(std::launch::async, [this] { produce(ahead_); });
}

void BamChunkReader::produce(BamChunk& chunk) {
  chunk.starts.clear();
  chunk.bytes.resize_uninitialized(carry_.size());
  if (carry_.size() > 0) std::memcpy(chunk.bytes.data(), carry_.data(), carry_.size());
  std::size_t used = 0;
  while (chunk.starts.empty()) {
    if (bgzf_.read(chunk.bytes, compressed_bytes_) == 0) {
      if (chunk.bytes.size() > 0) {
        throw Error(path_ + ": truncated or corrupt BAM data after record " + std::to_string(records_before_) +
                    " (the last record is cut off)");
      }
      break;
    }
    used = find_bam_records(chunk.bytes.data(), chunk.bytes.size(), 0, chunk.starts, path_);
  }
  chunk.compressed_end = bgzf_.compressed_position();
  records_before_ += chunk.starts.size();
  carry_.resize_uninitialized(chunk.bytes.size() - used);
  if (carry_.size() > 0) std::memcpy(carry_.data(), chunk.bytes.data() + used, carry_.size());
}

bool BamChunkReader::next(BamChunk& chunk) {
  if (at_end_) return false;
  pending_.get();  // rethrows the reading thread's error
  if (ahead_.starts.empty()) {
    at_end_ = true;
    return false;
  }
  std::swap(chunk, ahead_);
  start_ahead();
  return true;
}

}  // namespace gpp::io::detail
