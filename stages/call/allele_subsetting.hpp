// Which alleles of a site go on to the allele-frequency model, and genotype likelihoods restricted
// to a subset of alleles, as GATK's GenotypingEngine does it for HaplotypeCaller:
//  - --max-alternate-alleles 6: after genotype likelihoods, the alts with the largest likelihood
//    sums are kept (GenotypingEngine.calculateGenotypes -> AlleleSubsettingUtils
//    .calculateMostLikelyAlleles / calculateLikelihoodSums /
//    filterToMaxNumberOfAltAllelesBasedOnScores);
//  - likelihoods over a subset of alleles (AlleleSubsettingUtils.subsettedPLIndices and the
//    rescaling of subsetAlleles).
// (--max-genotype-count, applied before genotyping on haplotype scores, is in alleles_at_locus.)
// Allele lists are indices into the site's alleles (0 = reference), kept in their original order.
// The GVCF <NON_REF> allele is not handled (HaplotypeCaller's VCF mode has none).
//
// @code
//   // one diploid sample over A, C, G; likeliest genotype C/G (GL 3.1 above hom-ref)
//   std::vector<SampleGenotypeLikelihoods> samples = {{2, {0, 0, 0, 0, 3.1, 0}}};
//   likelihood_sums(samples, 3);            // {0, 3.1, 3.1}
//   most_likely_alleles(samples, 3, 1);     // {0, 1}: a tie keeps the first alt
// @endcode
#pragma once

#include <span>
#include <vector>

#include "stages/call/genotype_likelihoods.hpp"

namespace gpp::stages::call {

/// GATK's default --max-alternate-alleles.
inline constexpr int kDefaultMaxAlternateAlleles = 6;

/**
 * @brief AlleleSubsettingUtils.calculateLikelihoodSums: for each alt, the sum over samples whose
 *        likeliest genotype holds it of |GL(likeliest) - GL(hom-ref)|.
 *
 * GATK visits samples in sample-name order; pass them in that order for identical rounding.
 * @throws gpp::Error when a sample's likelihood count does not match its ploidy and allele_count
 */
std::vector<double> likelihood_sums(std::span<const SampleGenotypeLikelihoods> samples,
                                    int allele_count);

/**
 * @brief AlleleSubsettingUtils.filterToMaxNumberOfAltAllelesBasedOnScores: the reference plus the
 *        max_alt_alleles alts of highest score (ties: lower index first), in original order.
 * @param scores         one score per allele (the reference's is ignored)
 * @param non_ref_allele index of the <NON_REF> allele (gVCF mode), always kept and never counted
 *                       among the alts; -1 when there is none
 */
std::vector<int> filter_to_max_alt_alleles(int max_alt_alleles, std::span<const double> scores,
                                           int non_ref_allele = -1);

/**
 * @brief AlleleSubsettingUtils.calculateMostLikelyAlleles (as GenotypingEngine calls it): all
 *        alleles when there are at most max_alt_alleles alts, else the best by likelihood_sums.
 *        A <NON_REF> allele (index non_ref_allele, -1 for none) is kept and not counted as an alt.
 * @throws gpp::Error when max_alt_alleles < 1
 */
std::vector<int> most_likely_alleles(std::span<const SampleGenotypeLikelihoods> samples,
                                     int allele_count, int max_alt_alleles,
                                     int non_ref_allele = -1);

/**
 * @brief AlleleSubsettingUtils.subsettedPLIndices: for each genotype over the kept alleles (new
 *        allele i = old allele kept[i]), the index of the same genotype over the old alleles.
 */
std::vector<int> subsetted_genotype_indices(int ploidy, std::span<const int> kept_alleles);

/**
 * @brief The likelihoods of the genotypes at `indices`, shifted so the best is 0 (subsetAlleles'
 *        scaleLogSpaceArrayForNumericalStability).
 * @throws gpp::Error when an index is out of range
 */
std::vector<double> subset_log10_likelihoods(std::span<const double> log10_likelihoods,
                                             std::span<const int> indices);

}  // namespace gpp::stages::call
