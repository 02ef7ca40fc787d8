// GATK QualByDepth (getDepth, fixTooHighQD, annotate) and RMSMappingQuality
// (makeFinalizedAnnotationString); see depth_annotations.hpp for the deterministic QD jitter.
#include "stages/call/annotations/depth_annotations.hpp"

#include <cmath>

#include "core/hash.hpp"
#include "stages/call/annotations/java_number_format.hpp"
#include "stages/call/annotations/mann_whitney_u.hpp"

namespace gpp::stages::call {

int qual_by_depth_depth(std::span<const QualByDepthGenotype> genotypes) {
  int depth = 0;
  int ad_restricted_depth = 0;
  for (const QualByDepthGenotype& genotype : genotypes) {
    if (genotype.type != GenotypeType::kHet && genotype.type != GenotypeType::kHomVar) continue;
    if (!genotype.allele_depths.empty()) {
      int total = 0;
      for (int d : genotype.allele_depths) total += d;
      if (total != 0) {
        if (total - genotype.allele_depths[0] > 1) ad_restricted_depth += total;
        depth += total;
        continue;
      }
    }
    if (genotype.depth_without_allele_depths) depth += *genotype.depth_without_allele_depths;
  }
  return ad_restricted_depth > 0 ? ad_restricted_depth : depth;
}

double fix_too_high_qual_by_depth(double qual_by_depth, std::int32_t contig, std::int64_t start) {
  if (qual_by_depth < kMaxQualByDepthBeforeFixing) return qual_by_depth;
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(contig)) << 40) ^
                            static_cast<std::uint64_t>(start);
  const double u = (static_cast<double>(splitmix64(key) >> 11) + 0.5) * 0x1p-53;
  return kIdealHighQualByDepth + inverse_standard_normal_cdf(u) * kQualByDepthJitterSigma;
}

std::optional<std::string> qual_by_depth_text(double log10_p_error, int depth, std::int32_t contig,
                                              std::int64_t start) {
  if (depth == 0) return std::nullopt;
  const double qual = -10.0 * log10_p_error;
  return java_format_fixed(fix_too_high_qual_by_depth(qual / depth, contig, start), 2);
}

std::string rms_mapping_quality_text(std::uint64_t sum_of_squares, std::uint64_t read_count) {
  return java_format_fixed(
      std::sqrt(static_cast<double>(sum_of_squares) / static_cast<double>(read_count)), 2);
}

}  // namespace gpp::stages::call
