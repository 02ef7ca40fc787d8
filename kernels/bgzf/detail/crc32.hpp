// CRC-32 of gzip, which every BGZF block's footer holds for its contents (SAM spec section 4.1):
// a byte at a time from a 256-entry table, and the CRC of two pieces joined from the CRCs of each
// (zlib's crc32_combine: the first piece's CRC moved past the second's length by a product modulo
// the polynomial). What the GPU inflater checks a block with, a warp's lanes a slice each; the
// CPU backend runs the same code. Readers on the CPU check with libdeflate.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"

namespace gpp::kernels::crc32 {

inline constexpr std::uint32_t kPolynomial = 0xEDB88320u;  ///< x^32 + ... + 1, bit-reversed

struct Table {
  std::uint32_t byte[256];  ///< the CRC register's step for each byte value
  std::uint32_t power[32];  ///< x^(2^k) modulo the polynomial
};

/// Entry `b` of Table::byte.
GPP_HD inline std::uint32_t byte_step(std::uint32_t b) {
  std::uint32_t c = b;
  for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
  return c;
}

/// a * b modulo the polynomial (bit-reversed polynomials; a must not be 0).
GPP_HD inline std::uint32_t multiply(std::uint32_t a, std::uint32_t b) {
  std::uint32_t m = std::uint32_t{1} << 31;
  std::uint32_t product = 0;
  for (;;) {
    if (a & m) {
      product ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    m >>= 1;
    b = (b & 1) ? (b >> 1) ^ kPolynomial : b >> 1;
  }
  return product;
}

/// Fills table.power (table.byte is filled entry by entry with byte_step).
GPP_HD inline void fill_powers(Table& table) {
  table.power[0] = std::uint32_t{1} << 30;  // x^1
  for (int k = 1; k < 32; ++k) table.power[k] = multiply(table.power[k - 1], table.power[k - 1]);
}

/// The CRC-32 of `length` bytes following bytes whose CRC-32 is `crc` (0 for none).
GPP_HD inline std::uint32_t update(std::uint32_t crc, const std::uint8_t* data, std::size_t length,
                                   const Table& table) {
  std::uint32_t c = ~crc;
  for (std::size_t k = 0; k < length; ++k) c = table.byte[(c ^ data[k]) & 0xFF] ^ (c >> 8);
  return ~c;
}

/// The CRC-32 of A followed by B from crc(A), crc(B) and B's length in bytes.
GPP_HD inline std::uint32_t combine(std::uint32_t crc_a, std::uint32_t crc_b,
                                    std::uint64_t length_b, const Table& table) {
  std::uint32_t shift = std::uint32_t{1} << 31;  // x^0
  // x^(8 * length_b): the powers x^(2^k) for the bits of length_b, from x^8 = power[3] on.
  for (int k = 3; length_b != 0; length_b >>= 1, ++k) {
    if (length_b & 1) shift = multiply(table.power[k & 31], shift);
  }
  return multiply(shift, crc_a) ^ crc_b;
}

}  // namespace gpp::kernels::crc32
