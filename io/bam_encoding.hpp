// BAM record serialisation of ReadBatch rows (SAM spec section 4.2), in parallel (io/ internal).
//
// encode_bam_records() lays the records of `order` out back to back exactly as they appear in
// the uncompressed BAM stream (block_size, fixed fields, read name, CIGAR, packed SEQ, QUAL, aux),
// so the BGZF writer can compress them without HTSlib's per-record calls.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/header.hpp"
#include "io/read_batch.hpp"

namespace gpp::io::detail {

/// A byte buffer that grows without zero-filling (the encoder overwrites every byte).
class ByteBuffer {
 public:
  std::uint8_t* data() { return data_.get(); }
  const std::uint8_t* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  /// Sets the size, keeping the first min(old, new) bytes only when no reallocation happens.
  void resize_uninitialized(std::size_t size) {
    if (size > capacity_) {
      capacity_ = std::max(size, capacity_ + capacity_ / 2);
      data_ = std::make_unique_for_overwrite<std::uint8_t[]>(capacity_);
    }
    size_ = size;
  }

 private:
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

struct EncodedRecords {
  ByteBuffer bytes;                  ///< the records, back to back
  std::vector<std::uint64_t> ends;   ///< end offset of each record within `bytes`
};

/// Serialises rows `order` of `batch` (oneTBB-parallel).
void encode_bam_records(const ReadBatch& batch, std::span<const std::uint32_t> order,
                        EncodedRecords& out);

/// The BAM header bytes: magic, text, and the reference dictionary.
std::vector<std::uint8_t> encode_bam_header(const Header& header);

}  // namespace gpp::io::detail
