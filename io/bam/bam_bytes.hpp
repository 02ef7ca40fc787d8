// BAM's 4-bit base encoding (SAM spec 4.2.3: "=ACMGRSVTWYHKDBN") to and from the
// one-letter-per-base ReadBatch::seq column, and little-endian field access for the BAM codecs (io/
// internal).
#pragma once

#include <htslib/hts.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gpp::io::detail {

inline std::uint16_t load16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);  // BAM is little-endian, as is x86-64
  return v;
}
inline std::uint32_t load32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline void store16(std::uint8_t* p, std::uint16_t v) { std::memcpy(p, &v, 2); }
inline void store32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }

/// Packs `bases` two per byte (high nibble first) at `dst`: (size + 1) / 2 bytes.
inline std::uint8_t* pack_bases(std::string_view bases, std::uint8_t* dst) {
  const std::size_t n = bases.size();
  auto code = [&](std::size_t k) { return seq_nt16_table[static_cast<unsigned char>(bases[k])]; };
  for (std::size_t k = 0; k + 1 < n; k += 2)
    *dst++ = static_cast<std::uint8_t>(code(k) << 4 | code(k + 1));
  if (n % 2 == 1) *dst++ = static_cast<std::uint8_t>(code(n - 1) << 4);
  return dst;
}

/// Unpacks `n` bases from `packed` into letters at `dst`.
inline void unpack_bases(const std::uint8_t* packed, std::size_t n, char* dst) {
  static const auto pairs = [] {
    std::array<std::array<char, 2>, 256> t{};
    for (int b = 0; b < 256; ++b) t[b] = {seq_nt16_str[b >> 4], seq_nt16_str[b & 0xF]};
    return t;
  }();
  for (std::size_t k = 0; k < n / 2; ++k) std::memcpy(dst + 2 * k, pairs[packed[k]].data(), 2);
  if (n % 2 == 1) dst[n - 1] = pairs[packed[n / 2]][0];
}

}  // namespace gpp::io::detail
