// One raw DEFLATE stream (RFC 1951) for one BGZF block, written so that a single thread can run
// it: greedy LZ77 with a one-entry hash table (4-byte hashes, matches of 4 to 258 bytes within
// 32 KiB), then one final block with dynamic Huffman codes limited to 15 bits (7 for the
// code-length code). Thousands of blocks compress side by side on a GPU, one thread each; the
// same code runs on the CPU for tests. The output inflates with any DEFLATE decoder; it is not
// byte-identical to zlib's or libdeflate's (a ratio near libdeflate's level 1).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define GPP_DEFLATE_HD __host__ __device__
#else
#define GPP_DEFLATE_HD
#endif

namespace gpp::kernels::deflate {

inline constexpr int kHashBits = 12;
inline constexpr std::size_t kHashEntries = std::size_t{1} << kHashBits;
inline constexpr std::size_t kMaxInput = 0x10000;  ///< BGZF blocks hold at most 64 KiB

inline constexpr int kLitLenSymbols = 286;
inline constexpr int kDistanceSymbols = 30;

/// Working memory of one encoder, initialised by deflate_block itself. The GPU keeps `hash` and
/// the frequency tables in shared memory: they are touched for every input byte.
struct Scratch {
  std::uint16_t* hash;         ///< kHashEntries entries
  std::uint32_t* lit_freq;     ///< kLitLenSymbols entries
  std::uint32_t* dist_freq;    ///< kDistanceSymbols entries
  std::uint16_t* codes;        ///< kLitLenSymbols + kDistanceSymbols entries (literal/length, then distance)
  std::uint8_t* lengths;       ///< the same for code lengths
  std::uint32_t* tokens;       ///< kMaxInput + 1 entries
};
/// Bytes of the per-byte state (hash, frequency and code tables) of one encoder.
inline constexpr std::size_t kHotScratchBytes =
    kHashEntries * sizeof(std::uint16_t) +
    (kLitLenSymbols + kDistanceSymbols) * (sizeof(std::uint32_t) + sizeof(std::uint16_t) + sizeof(std::uint8_t));

/**
 * @brief Compresses `size` bytes (at most kMaxInput) into `out` (capacity `capacity`).
 * @return bytes written, or 0 when the stream does not fit (the caller stores the block instead)
 */
GPP_DEFLATE_HD std::size_t deflate_block(const std::uint8_t* in, std::size_t size, std::uint8_t* out,
                                         std::size_t capacity, const Scratch& scratch);

}  // namespace gpp::kernels::deflate

#include "kernels/deflate_block.inl"
