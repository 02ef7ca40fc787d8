// The BAI bin of a record's span (SAM spec section 5.3, reg2bin with 14-bit minimum bins, 6
// levels).
#pragma once

#include <cstdint>

namespace gpp::io {

/// Bin of [beg, end) (0-based, end exclusive; an unmapped or zero-length record spans beg..beg+1).
inline std::uint16_t bam_bin(std::int64_t beg, std::int64_t end) {
  --end;
  if (beg >> 14 == end >> 14) return static_cast<std::uint16_t>(((1 << 15) - 1) / 7 + (beg >> 14));
  if (beg >> 17 == end >> 17) return static_cast<std::uint16_t>(((1 << 12) - 1) / 7 + (beg >> 17));
  if (beg >> 20 == end >> 20) return static_cast<std::uint16_t>(((1 << 9) - 1) / 7 + (beg >> 20));
  if (beg >> 23 == end >> 23) return static_cast<std::uint16_t>(((1 << 6) - 1) / 7 + (beg >> 23));
  if (beg >> 26 == end >> 26) return static_cast<std::uint16_t>(((1 << 3) - 1) / 7 + (beg >> 26));
  return 0;
}

}  // namespace gpp::io
