// Coordinate order exactly as `samtools sort`: reference index (unplaced reads, tid -1, last),
// then position, then strand (forward first); records that compare equal keep their input order.
//
// The order is computed as a permutation from one packed 64-bit key per record; records are not
// moved until they are written.
#pragma once

#include <cstdint>
#include <vector>

#include "io/reads/read_batch.hpp"
#include "kernels/device/device.hpp"

namespace gpp::stages::sort {

/// samtools' coordinate comparator as a 64-bit key: tid (31 bits; -1 maps above every contig),
/// pos + 1 (32 bits), reverse-strand bit.
io::Column<std::uint64_t> coordinate_keys(const io::ReadBatch& reads);

/// The top 31 bits of the key of a record of no reference: every such key is at least kUnplacedKey.
inline constexpr std::uint64_t kNoReference = 0x7FFFFFFF;
inline constexpr std::uint64_t kUnplacedKey = kNoReference << 33;

/// The reference index (tid) a coordinate key was made from; -1 for none.
inline std::int32_t key_reference(std::uint64_t key) {
  const std::uint64_t tid = key >> 33;
  return tid == kNoReference ? -1 : static_cast<std::int32_t>(tid);
}

/// The stable permutation that puts `reads` in samtools coordinate order.
std::vector<std::uint32_t> coordinate_order(const io::ReadBatch& reads, kernels::Backend backend);

}  // namespace gpp::stages::sort
