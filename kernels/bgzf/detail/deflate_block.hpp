// One raw DEFLATE stream (RFC 1951) for one BGZF block, in two steps. Matching: the longest
// match at every position among the four latest earlier positions with the same 4-byte hash
// (13-bit hash, matches of 4 to 258 bytes within 32 KiB). The result at a position does not
// depend on any other position's, so a GPU warp finds 32 positions' matches at once and the CPU
// finds them one after the other, with the same result. Encoding: a lazy parse of those matches
// (a match is dropped for a literal when the next position has a longer one, or the one after
// it a match longer by two), then one final block with dynamic Huffman codes limited to 15 bits
// (7 for the code-length code). The output inflates with any DEFLATE decoder; it is not
// byte-identical to zlib's or libdeflate's (a ratio near libdeflate's level 4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace gpp::kernels::deflate {

inline constexpr int kHashBits = 13;
inline constexpr std::size_t kHashEntries = std::size_t{1} << kHashBits;
inline constexpr int kWays =
    4;  ///< positions kept per hash: four 16-bit positions in a 64-bit bucket
inline constexpr std::size_t kMaxInput = 0x10000;  ///< BGZF blocks hold at most 64 KiB
inline constexpr std::uint16_t kNoPosition =
    0xFFFF;  ///< an empty bucket slot (positions stay below 0xFF00)

inline constexpr int kLitLenSymbols = 286;
inline constexpr int kDistanceSymbols = 30;

/// Working memory of one encoder, initialised by find_matches (buckets, tokens) and
/// encode_matches (the tables). The GPU keeps the
/// frequency and code tables in shared memory: they are touched for every token.
struct Scratch {
  std::uint64_t* buckets;    ///< kHashEntries entries (latest position in the low 16 bits)
  std::uint32_t* lit_freq;   ///< kLitLenSymbols entries
  std::uint32_t* dist_freq;  ///< kDistanceSymbols entries
  std::uint16_t*
      codes;  ///< kLitLenSymbols + kDistanceSymbols entries (literal/length, then distance)
  std::uint8_t* lengths;  ///< the same for code lengths
  std::uint32_t* tokens;  ///< kMaxInput + 1 entries
};
/// Bytes of the per-token state (frequency and code tables) of one encoder.
inline constexpr std::size_t kHotScratchBytes =
    (kLitLenSymbols + kDistanceSymbols) *
    (sizeof(std::uint32_t) + sizeof(std::uint16_t) + sizeof(std::uint8_t));

GPP_HD inline std::uint32_t load32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}
/// The hash of the 4 bytes `v` at a position: kHashBits bits.
GPP_HD inline std::uint32_t hash4(std::uint32_t v) { return (v * 2654435761u) >> (32 - kHashBits); }

/// The match at `pos` among `candidates` (earlier positions, latest first; kNoPosition for none):
/// length << 16 | distance of the longest (the latest of equal ones), or 0 below 4 bytes.
/// Needs pos + 4 <= size.
GPP_HD std::uint32_t longest_match(const std::uint8_t* in, std::size_t size, std::size_t pos,
                                   const std::uint16_t (&candidates)[kWays]);

/// Matching on one thread: tokens[p] = the match at p, for every p < size.
GPP_HD void find_matches(const std::uint8_t* in, std::size_t size, const Scratch& scratch);

/// Encoding: the stream for `in` from the matches in scratch.tokens (which it overwrites).
/// @return bytes written, or 0 when the stream does not fit
GPP_HD std::size_t encode_matches(const std::uint8_t* in, std::size_t size, std::uint8_t* out,
                                  std::size_t capacity, const Scratch& scratch);

namespace detail {
struct BitWriter;
}
/// encode_matches in parts, for writers that emit tokens in parallel: the parse (tokens become
/// scratch.tokens[0, count), the codes go to scratch.codes/lengths) and the block header into `w`;
/// returns the token count. Then put_token for each token in order, put_end_of_block, and a flush
/// to a whole byte give the same stream; token_bits is what put_token writes.
GPP_HD std::size_t encode_header(const std::uint8_t* in, std::size_t size, const Scratch& scratch,
                                 detail::BitWriter& w);
/// encode_header's two steps. The lazy parse: scratch.tokens[0, count) become the tokens and
/// scratch.lit_freq / dist_freq their symbol counts (the end of block included); returns the count.
GPP_HD std::size_t parse_lazy(const std::uint8_t* in, std::size_t size, const Scratch& scratch);
/// The parse's pieces, for parsers that work side by side. The token at `pos` when the parse
/// reaches it (literal: the byte; match: a flag | length << 16 | distance), from the matches
/// find_matches left at pos, pos + 1 and pos + 2 only; the bytes a token covers; `count` called
/// with the frequency counter of each symbol a token adds.
GPP_HD std::uint32_t lazy_token(const std::uint8_t* in, std::size_t size,
                                const std::uint32_t* matches, std::size_t pos);
GPP_HD std::uint32_t token_span(std::uint32_t token);
template <typename Count>
GPP_HD void count_token(std::uint32_t token, const Scratch& scratch, Count count);
/// The codes from the symbol counts (into scratch.codes / lengths) and the block header into `w`.
GPP_HD void write_block_header(const Scratch& scratch, detail::BitWriter& w);
template <typename Writer>
GPP_HD void put_token(std::uint32_t token, const Scratch& scratch, Writer& w);
template <typename Writer>
GPP_HD void put_end_of_block(const Scratch& scratch, Writer& w);
GPP_HD int token_bits(std::uint32_t token, const Scratch& scratch);

/**
 * @brief Compresses `size` bytes (at most kMaxInput) into `out` (capacity `capacity`).
 * @return bytes written, or 0 when the stream does not fit (the caller stores the block instead)
 */
GPP_HD std::size_t deflate_block(const std::uint8_t* in, std::size_t size, std::uint8_t* out,
                                 std::size_t capacity, const Scratch& scratch);

}  // namespace gpp::kernels::deflate

#include "kernels/bgzf/detail/deflate_block.inl"
