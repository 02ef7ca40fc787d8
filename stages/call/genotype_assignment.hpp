// Genotype call (GT), PL and GQ of one sample from its genotype log10 likelihoods, as GATK assigns
// them with --genotype-assignment-method USE_PLS_TO_ASSIGN (GATKVariantContextUtils
// .makeGenotypeCall) and htsjdk writes them (GenotypeLikelihoods.GLsToPLs /
// getGQLog10FromLikelihoods, GenotypeBuilder.log10PError, VCF GQ capped at 99):
//  - GT: the first genotype of maximal likelihood; a no-call instead when that is hom-ref with
//    log10 GQ > -0.1 (i.e. GQ 0: uninformative likelihoods such as all-equal ones);
//  - PL: round(-10 * (log10 L - max log10 L)), so the best is 0;
//  - GQ: round(-10 * log10 P(error)), where log10 P(error) is the second-best likelihood minus the
//    best, i.e. the second-smallest PL (written capped at 99).
//
// @code
//   auto call = assign_genotype(2, std::vector<double>{-9.34, 0.0, -12.48}, 2);
//   // call.alleles == {0, 1}, call.pls == {93, 0, 125}, call.gq == 93
// @endcode
#pragma once

#include <span>
#include <vector>

namespace gpp::stages::call {

/// Allele index of a no-call ('.') in Genotype::alleles (the same -1 as the annotations'
/// kNoCallAllele).
inline constexpr int kNoCallAlleleIndex = -1;

/// The largest GQ a VCF carries (htsjdk VCFConstants.MAX_GENOTYPE_QUAL).
inline constexpr int kMaxGenotypeQuality = 99;

/// GATK's threshold on log10 GQ under which a hom-ref call is uninformative and becomes a no-call
/// (GATKVariantContextUtils.SUM_GL_THRESH_NOCALL).
inline constexpr double kSumGlThresholdNoCall = -0.1;

/// One sample's called genotype.
struct Genotype {
  /// ploidy allele indices, increasing (in phase order once phased: physical_phasing.hpp);
  /// kNoCallAlleleIndex for '.'
  std::vector<int> alleles;
  std::vector<int> pls;  ///< normalised PLs in canonical order (empty: none)
  int gq = -1;           ///< GQ as written to the VCF (capped at 99); -1: none
  int uncapped_gq = -1;  ///< GQ before the VCF cap; -1: none

  bool is_no_call() const { return !alleles.empty() && alleles[0] == kNoCallAlleleIndex; }
};

/**
 * @brief htsjdk GenotypeLikelihoods.GLsToPLs: round(-10 * (gl - max gl)) per genotype (Java
 *        Math.round), capped at INT_MAX.
 */
std::vector<int> pls_from_log10_likelihoods(std::span<const double> log10_likelihoods);

/// htsjdk GenotypeLikelihoods.PLsToGLs: PL / -10.0 per genotype.
std::vector<double> log10_likelihoods_from_pls(std::span<const int> pls);

/**
 * @brief htsjdk GenotypeLikelihoods.getGQLog10FromLikelihoods: log10 of the error probability of
 *        calling genotype chosen: second-best minus chosen likelihood when chosen is the best,
 *        otherwise log10(1 - normalised posterior of chosen).
 * @throws gpp::Error when chosen is outside the span
 */
double gq_log10_from_likelihoods(int chosen, std::span<const double> log10_likelihoods);

/**
 * @brief GATKVariantContextUtils.makeGenotypeCall with USE_PLS_TO_ASSIGN for one sample.
 *
 * @param ploidy            the sample's ploidy
 * @param log10_likelihoods genotype log10 likelihoods in canonical order (GATK passes the
 *                          PL-quantised values, shifted so the best is 0)
 * @param allele_count      number of alleles, reference included; with 1 allele no GQ is set
 * @return GT, PLs and GQ as GATK writes them
 * @throws gpp::Error when the likelihood count is not genotype_count(ploidy, allele_count)
 */
Genotype assign_genotype(int ploidy, std::span<const double> log10_likelihoods, int allele_count);

}  // namespace gpp::stages::call
