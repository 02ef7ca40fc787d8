#include "stages/markdup/end_features.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "io/reads/aux_fields.hpp"
#include "stages/markdup/query_groups.hpp"

namespace gpp::stages::markdup {

namespace {

constexpr std::uint32_t kOpMask = 0xF;
constexpr std::uint32_t kSoftClip = 4;
constexpr std::uint32_t kHardClip = 5;

// htsjdk SAMUtils.getUnclippedStart / getUnclippedEnd (1-based).
std::int32_t unclipped_five_prime(const io::ReadBatch& reads, std::size_t i) {
  const auto cigar = reads.read_cigar(i);
  const std::int64_t start = reads.pos[i] + 1;
  if (!(reads.flag[i] & io::flag::kReverse)) {
    std::int64_t clipped = 0;
    for (const std::uint32_t op : cigar) {
      const std::uint32_t type = op & kOpMask;
      if (type != kSoftClip && type != kHardClip) break;
      clipped += op >> 4;
    }
    return static_cast<std::int32_t>(start - clipped);
  }
  std::int64_t reference_length = 0;
  for (const std::uint32_t op : cigar) {
    const std::uint32_t type = op & kOpMask;
    if (type == 0 || type == 2 || type == 3 || type == 7 || type == 8) reference_length += op >> 4;
  }
  std::int64_t clipped = 0;
  for (auto it = cigar.rbegin(); it != cigar.rend(); ++it) {
    const std::uint32_t type = *it & kOpMask;
    if (type != kSoftClip && type != kHardClip) break;
    clipped += *it >> 4;
  }
  return static_cast<std::int32_t>(start + reference_length - 1 + clipped);
}

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

EndFeatures::EndFeatures(const std::string& read_name_regex) : parser_(read_name_regex) {}

void EndFeatures::reserve(std::size_t records) {
  five_prime.reserve(records);
  score.reserve(records);
  location.reserve(records);
  location_read_group.reserve(records);
  name_hash.reserve(records);
}

void EndFeatures::resize(std::size_t records) {
  five_prime.resize(records);
  score.resize(records);
  location.resize(records);
  location_read_group.resize(records);
  name_hash.resize(records);
}

void EndFeatures::compute(const io::ReadBatch& reads, const io::Header& header) {
  resize(reads.size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 1024),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              visit(reads, header, r.begin(), r.end());
                            });
}

void EndFeatures::visit(const io::ReadBatch& reads, const io::Header& header, std::size_t begin,
                        std::size_t end) {
  const std::int16_t header_read_groups = static_cast<std::int16_t>(header.read_groups().size());
  for (std::size_t i = begin; i != end; ++i) {
    const std::uint16_t f = reads.flag[i];
    if ((f & io::flag::kUnmapped) || (f & (io::flag::kSecondary | io::flag::kSupplementary)))
      continue;
    five_prime[i] = unclipped_five_prime(reads, i);
    score[i] = duplicate_score(reads.read_qual(i), f & io::flag::kQcFail);
    location_read_group[i] = -1;
    if ((f & io::flag::kPaired) && !(f & io::flag::kMateUnmapped)) {
      name_hash[i] = static_cast<std::uint32_t>(markdup::name_hash(reads.read_name(i)) >> 32);
    }
    if (const auto parsed = parser_.parse(reads.read_name(i))) {
      location[i] = *parsed;
      // Picard: the read group's index in the header; 0 without an RG tag, and one past the
      // last read group when the tag names none of them.
      const std::int32_t rg = reads.read_group[i];
      if (rg >= 0) {
        location_read_group[i] = static_cast<std::int16_t>(rg);
      } else {
        location_read_group[i] =
            io::find_aux_field(reads.read_aux(i), "RG") != nullptr ? header_read_groups : 0;
      }
    }
  }
}

}  // namespace gpp::stages::markdup
