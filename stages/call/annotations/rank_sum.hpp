// The rank-sum annotations BaseQRankSum, MQRankSum and ReadPosRankSum as GATK computes them
// (tools/walkers/annotator/RankSumTest and its subclasses): what each read contributes, and the
// value written.
//
// A read contributes (RankSumTest.fillQualsFromLikelihood) if it is informative (best_allele.hpp),
// its mapping quality is neither 0 nor 255 (isUsableRead), it has a value for the test, and its
// best allele is REF (REF list) or an ALT of the call (ALT list). The value written is the z of
// MannWhitneyU.test(ALT values, REF values, FIRST_DOMINATES) as "%.3f"; nothing is written when
// either list is empty.
//
// Per-read values, from the read as it is annotated (for HaplotypeCaller: realigned to its best
// haplotype), 0-based coordinates, site = the call's reference span [site_start, site_end]:
//  - MQRankSum: the mapping quality;
//  - BaseQRankSum (getReadBaseQualityAtReferenceCoordinate): the quality of the read base aligned
//    to site_start; none if site_start is outside [start, end) or falls in a deletion / skip;
//  - ReadPosRankSum (ReadPosRankSumTest.isUsableRead + getReadPosition): the read must reach the
//    site with its soft clips (soft_start <= site_end + 1 and soft_end > site_start); a read that
//    starts right after site_end with a leading insertion scores 0; otherwise i = read index at
//    site_start (ReadUtils.getReadIndexForReferenceCoordinate, stages/call/cigar_edit.hpp: soft
//    clips counted as aligned; in a deletion, the base after it) and the value is
//    min(leading hard clip + i, read length - 1 - i + trailing hard clip).
//
// @code
//   // 10M read at 0-based 4 (1-based 5), site at 0-based 8: index 4, value min(4, 5) = 4
//   rank_sum_read_position(read, 8, 8) == 4.0
//   rank_sum_text(std::vector<double>{10, 20}, std::vector<double>{50, 60}) == "-1.383"
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

/// RankSumTest.isUsableRead: mapping quality neither 0 nor 255 (MAPPING_QUALITY_UNAVAILABLE).
bool rank_sum_usable_mapping_quality(int mapping_quality);

/// BaseQualityRankSumTest.getReadBaseQuality at 0-based site_start; nullopt if none.
std::optional<double> rank_sum_base_quality(const CallRead& read, std::int64_t site_start);

/// ReadPosRankSumTest.getReadPosition for the site [site_start, site_end]; nullopt if none.
std::optional<double> rank_sum_read_position(const CallRead& read, std::int64_t site_start,
                                             std::int64_t site_end);

/// ReadPosRankSumTest.isUsableRead: usable mapping quality and the soft-clipped span reaches the
/// site.
bool read_pos_rank_sum_usable(const CallRead& read, std::int64_t site_start, std::int64_t site_end);

/// The two per-read values the site annotation needs (see AnnotationRead).
struct RankSumReadValues {
  std::optional<double> base_quality;   ///< rank_sum_base_quality
  std::optional<double> read_position;  ///< rank_sum_read_position, if the soft span reaches
};

/// Both values for a read and a site (the mapping-quality rule is applied later, per test).
RankSumReadValues rank_sum_read_values(const CallRead& read, std::int64_t site_start,
                                       std::int64_t site_end);

/**
 * @brief The value RankSumTest writes: "%.3f" of the MannWhitneyU FIRST_DOMINATES z of the ALT
 * values against the REF values.
 * @return nullopt if either list is empty (z is NaN)
 */
std::optional<std::string> rank_sum_text(std::span<const double> alt_values,
                                         std::span<const double> ref_values);

}  // namespace gpp::stages::call
