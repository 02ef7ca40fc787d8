// Depth-based annotations as GATK writes them for HaplotypeCaller calls:
//  - INFO DP (Coverage): the number of annotation reads (every read of the annotation likelihoods,
//    informative or not, the genotyping-filtered ones included), "%d"; absent when there are none;
//  - FORMAT AD (DepthPerAlleleBySample) and FORMAT DP (DepthPerSampleHC): informative reads per
//    call allele / in total, computed by annotate_site (site_annotations.hpp);
//  - MQ (RMSMappingQuality.annotate): sqrt(sum MQ^2 / n) over the annotation reads whose MQ is not
//    255, "%.2f";
//  - QD (QualByDepth): QUAL / depth, "%.2f", where depth (getDepth) sums, over het and hom-var
//    genotypes, the AD total of each (or, when it has no AD or an all-zero AD, its read count);
//    if some of those genotypes have more than one non-REF read in AD, only their AD totals count.
//    There is no ploidy adjustment in GATK 4.6 (51797aa). A QD >= 35 is replaced
//    (fixTooHighQD) by 30 + 3 N(0, 1).
//
// QD jitter: GATK draws N(0, 1) from its one shared Random (seeded 47382911), so the value depends
// on how many high-QD sites came before in the run. We draw it from the site instead:
// u = (splitmix64(contig << 40 ^ start) >> 11 + 1/2) / 2^53, z = Phi^-1(u). The values have the
// same N(30, 3^2) spread GATK wants (a spike at exactly 30 would upset VQSR's Gaussian mixture,
// which is why GATK jitters at all), and are identical at any thread count and across runs.
//
// @code
//   rms_mapping_quality_text(69640, 20) == "59.01"
//   qual_by_depth_text(-5.0, 10, 0, 0) == "5.00"
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "stages/call/annotations/site_evidence.hpp"

namespace gpp::stages::call {

/// QualByDepth.MAX_QD_BEFORE_FIXING, IDEAL_HIGH_QD, JITTER_SIGMA.
inline constexpr double kMaxQualByDepthBeforeFixing = 35;
inline constexpr double kIdealHighQualByDepth = 30;
inline constexpr double kQualByDepthJitterSigma = 3;

/// One genotype as QualByDepth.getDepth sees it.
struct QualByDepthGenotype {
  GenotypeType type = GenotypeType::kNoCall;
  std::span<const int> allele_depths;  ///< AD; empty: no AD
  /// Used when AD is missing or sums to 0: the sample's annotation read count (HaplotypeCaller
  /// always has likelihoods), or FORMAT DP without likelihoods; nullopt: nothing.
  std::optional<int> depth_without_allele_depths;
};

/// QualByDepth.getDepth.
int qual_by_depth_depth(std::span<const QualByDepthGenotype> genotypes);

/// QualByDepth.fixTooHighQD with the site-keyed draw described above.
double fix_too_high_qual_by_depth(double qual_by_depth, std::int32_t contig, std::int64_t start);

/**
 * @brief The QD value: "%.2f" of fix_too_high_qual_by_depth(-10 log10_p_error / depth).
 * @return nullopt when depth is 0 (QD is not written)
 */
std::optional<std::string> qual_by_depth_text(double log10_p_error, int depth, std::int32_t contig,
                                              std::int64_t start);

/// RMSMappingQuality's "%.2f" of sqrt(sum_of_squares / read_count) ("NaN" for 0 reads, as Java).
std::string rms_mapping_quality_text(std::uint64_t sum_of_squares, std::uint64_t read_count);

}  // namespace gpp::stages::call
