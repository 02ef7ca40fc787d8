#include "stages/markdup/duplicate_score.hpp"

#include <algorithm>
#include <cstring>

namespace gpp::stages::markdup {

namespace {

// The qualities q with 15 <= q < 128 added up, eight bytes to a word: a byte is kept when its
// high bit is clear and its low seven bits, raised by 128 and lowered by 15, keep the high bit.
// Four 16-bit sums per word, folded before they can overflow.
std::uint32_t counted_quality_sum(std::span<const std::uint8_t> qual) {
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  constexpr std::uint64_t kFifteen = 0x0F0F0F0F0F0F0F0FULL;
  constexpr std::uint64_t kEvenBytes = 0x00FF00FF00FF00FFULL;
  constexpr std::size_t kWordsPerFold = 256;  // 256 * (127 + 127) < 65536
  const std::size_t words = qual.size() / 8;
  std::uint32_t total = 0;
  for (std::size_t w = 0; w < words;) {
    std::uint64_t sums = 0;
    for (const std::size_t stop = std::min(words, w + kWordsPerFold); w < stop; ++w) {
      std::uint64_t x;
      std::memcpy(&x, qual.data() + 8 * w, 8);
      const std::uint64_t keep = ((x | kHigh) - kFifteen) & ~x & kHigh;
      const std::uint64_t kept = x & ((keep >> 7) * 0xFF);
      sums += (kept & kEvenBytes) + ((kept >> 8) & kEvenBytes);
    }
    for (int lane = 0; lane < 4; ++lane)
      total += static_cast<std::uint32_t>((sums >> (16 * lane)) & 0xFFFF);
  }
  for (std::size_t k = 8 * words; k < qual.size(); ++k)
    total += (qual[k] >= 15 && qual[k] < 128) ? qual[k] : 0u;
  return total;
}

}  // namespace

std::int16_t duplicate_score(std::span<const std::uint8_t> qual, bool qc_fail) {
  std::int32_t sum = 0;
  if (!qual.empty() && qual[0] != 0xFF) {  // QUAL '*' has no qualities
    sum = static_cast<std::int32_t>(counted_quality_sum(qual));
  }
  std::int16_t score = static_cast<std::int16_t>(std::min(sum, 16383));
  if (qc_fail) score = static_cast<std::int16_t>(score - 16384);
  return score;
}

}  // namespace gpp::stages::markdup
