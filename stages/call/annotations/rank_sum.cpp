// GATK ReadUtils.getReadBaseQualityAtReferenceCoordinate, RankSumTest.isUsableRead,
// BaseQualityRankSumTest.getReadBaseQuality, ReadPosRankSumTest.isUsableRead / getReadPosition and
// RankSumTest.annotate's z formatting; see rank_sum.hpp.
#include "stages/call/annotations/rank_sum.hpp"

#include <algorithm>
#include <cmath>

#include "core/cigar.hpp"
#include "stages/call/annotations/java_number_format.hpp"
#include "stages/call/annotations/mann_whitney_u.hpp"
#include "stages/call/cigar_edit.hpp"

namespace gpp::stages::call {
namespace {

constexpr int kMappingQualityUnavailable = 255;  // QualityUtils.MAPPING_QUALITY_UNAVAILABLE

}  // namespace

bool rank_sum_usable_mapping_quality(int mapping_quality) {
  return mapping_quality != 0 && mapping_quality != kMappingQualityUnavailable;
}

std::optional<double> rank_sum_base_quality(const CallRead& read, std::int64_t site_start) {
  if (site_start < read.start || site_start >= read.end()) return std::nullopt;
  const auto at = read_index_for_reference_coordinate(read.soft_start(), read.cigar, site_start);
  if (!at.found || !consumes_query(at.op)) return std::nullopt;
  if (at.index >= static_cast<std::int64_t>(read.quals.size())) return std::nullopt;
  return static_cast<double>(read.quals[static_cast<std::size_t>(at.index)]);
}

std::optional<double> rank_sum_read_position(const CallRead& read, std::int64_t site_start,
                                             std::int64_t site_end) {
  // A read that starts with an insertion right after the site (the site ends on the reference base
  // before the read) scores 0.
  if (read.start == site_end + 1) {
    const auto first = std::find_if(read.cigar.begin(), read.cigar.end(),
                                    [](std::uint32_t e) { return !is_clipping(cigar_op(e)); });
    if (first != read.cigar.end() && cigar_op(*first) == CigarOp::kInsertion) return 0.0;
  }
  const auto at = read_index_for_reference_coordinate(read.soft_start(), read.cigar, site_start);
  if (!at.found) return std::nullopt;
  // Hard clips here are bases clipped to fit the assembly region: they count as read.
  std::int64_t leading_hard_clips = 0, trailing_hard_clips = 0;
  if (!read.cigar.empty()) {
    if (cigar_op(read.cigar.front()) == CigarOp::kHardClip) {
      leading_hard_clips = cigar_length(read.cigar.front());
    }
    if (cigar_op(read.cigar.back()) == CigarOp::kHardClip) {
      trailing_hard_clips = cigar_length(read.cigar.back());
    }
  }
  const auto length = static_cast<std::int64_t>(read.bases.size());
  const std::int64_t left = leading_hard_clips + at.index;
  const std::int64_t right = length - 1 - at.index + trailing_hard_clips;
  return static_cast<double>(std::min(left, right));
}

bool read_pos_rank_sum_usable(const CallRead& read, std::int64_t site_start,
                              std::int64_t site_end) {
  return rank_sum_usable_mapping_quality(read.mapping_quality) &&
         read.soft_start() <= site_end + 1 && read.soft_end() > site_start;
}

RankSumReadValues rank_sum_read_values(const CallRead& read, std::int64_t site_start,
                                       std::int64_t site_end) {
  RankSumReadValues values;
  values.base_quality = rank_sum_base_quality(read, site_start);
  if (read.soft_start() <= site_end + 1 && read.soft_end() > site_start) {
    values.read_position = rank_sum_read_position(read, site_start, site_end);
  }
  return values;
}

std::optional<std::string> rank_sum_text(std::span<const double> alt_values,
                                         std::span<const double> ref_values) {
  const double z =
      mann_whitney_u_test(alt_values, ref_values, MannWhitneyTestType::kFirstDominates).z;
  if (std::isnan(z)) return std::nullopt;
  return java_format_fixed(z, 3);
}

}  // namespace gpp::stages::call
