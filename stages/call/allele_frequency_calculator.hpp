// The allele-frequency model behind QUAL: GATK's AlleleFrequencyCalculator (the default "new qual"
// model, --use-new-qual-calculator true) and AFCalculationResult.
//
// Allele frequencies get a Dirichlet prior with pseudocounts (reference: het / sd^2; SNP alleles:
// het * that; indel alleles: indel_het * that; an alt is a SNP when its length equals the
// reference's). An iterative Bayesian update alternates genotype posteriors per sample (prior
// multinomial with the current frequencies, times the likelihoods) and posterior pseudocounts
// (prior + expected allele counts) until no expected count moves by more than 0.1; the first pass
// uses flat frequencies. Then:
//  - log10 P(no variant) = sum over samples of log10 P(hom-ref | data) (genotypes made only of ref
//    and a spanning deletion '*' count as non-variant); QUAL = -10 * log10 P(no variant);
//  - per alt allele, log10 P(allele absent) = sum over samples of log10 of the posterior mass of
//    genotypes without it (equal to log10 P(no variant) at a biallelic site without '*');
//  - MLE allele counts (MLEAC) = the final expected counts, rounded.
//
// @code
//   const auto priors = priors_from_heterozygosity();   // GATK defaults: 10, 0.01, 0.00125
//   std::vector<SampleGenotypeLikelihoods> samples = {{2, {-93.4, 0.0, -124.8}}};
//   std::vector<AlleleDescription> alleles = {{1, false}, {1, false}};   // C -> T
//   const AfCalcResult result = calculate_allele_frequencies(samples, alleles, priors);
//   // result.qual() ~ 926.6 (GATK writes 926.64), result.mle_allele_counts == {1}
// @endcode
#pragma once

#include <span>
#include <vector>

#include "stages/call/genotype_likelihoods.hpp"

namespace gpp::stages::call {

/// Dirichlet prior pseudocounts of the reference, SNP alt and indel alt alleles.
struct AlleleFrequencyPriors {
  double ref_pseudocount = 10.0;
  double snp_pseudocount = 0.01;
  double indel_pseudocount = 0.00125;
};

/// GATK's defaults: --heterozygosity, --indel-heterozygosity, --heterozygosity-stdev.
inline constexpr double kDefaultSnpHeterozygosity = 0.001;
inline constexpr double kDefaultIndelHeterozygosity = 1.0 / 8000;
inline constexpr double kDefaultHeterozygosityStdev = 0.01;

/**
 * @brief AlleleFrequencyCalculator.makeCalculator: ref = het / sd^2, snp = het * ref,
 *        indel = indel_het * ref.
 */
AlleleFrequencyPriors priors_from_heterozygosity(
    double snp_heterozygosity = kDefaultSnpHeterozygosity,
    double indel_heterozygosity = kDefaultIndelHeterozygosity,
    double heterozygosity_stdev = kDefaultHeterozygosityStdev);

/// What the model needs to know of each allele (index 0 is the reference).
struct AlleleDescription {
  int length = 1;                     ///< bases; an alt as long as the reference is a SNP
  bool is_spanning_deletion = false;  ///< the '*' allele: counts as non-variant
  bool is_non_ref = false;            ///< <NON_REF> (gVCF mode): symbolic, htsjdk length 0, so
                                      ///< its prior is the indel pseudocount
};

/// AFCalculationResult: the outcome of the model for one site.
struct AfCalcResult {
  double log10_p_no_variant = 0.0;             ///< log10 P(AC = 0 for every alt)
  std::vector<double> log10_p_allele_absent;   ///< per alt (alt i at index i - 1)
  std::vector<int> mle_allele_counts;          ///< per alt, rounded expected counts (MLEAC)
  std::vector<double> expected_allele_counts;  ///< per allele (ref first), before rounding

  /// log10 P(some alt present) = log10(1 - 10^log10_p_no_variant).
  double log10_p_variant_present() const;

  /// QUAL as GATK reports it for a polymorphic site: -10 * log10 P(no variant) (never -0.0).
  double qual() const { return -10.0 * log10_p_no_variant + 0.0; }

  /**
   * @brief AFCalculationResult.passesThreshold: is alt allele `allele` (1-based, as in the VCF)
   *        plausible at phred threshold q: log10 P(absent) + 1e-10 < -q / 10.
   * @throws gpp::Error when allele is not an alt index
   */
  bool passes_threshold(int allele, double phred_threshold) const;
};

/**
 * @brief AlleleFrequencyCalculator.calculate over the samples of one site.
 *
 * @param samples genotype log10 likelihoods of every sample, over alleles.size() alleles (GATK
 *                feeds the PL-quantised values, PL / -10; see log10_likelihoods_from_pls)
 * @param alleles the site's alleles, reference first; at least 2
 * @param priors  Dirichlet pseudocounts
 * @return the posterior quantities of the site
 * @throws gpp::Error when there are fewer than 2 alleles, no sample, a ploidy < 1, or a sample's
 *         likelihood count does not match its ploidy and the allele count
 */
AfCalcResult calculate_allele_frequencies(std::span<const SampleGenotypeLikelihoods> samples,
                                          std::span<const AlleleDescription> alleles,
                                          const AlleleFrequencyPriors& priors);

/**
 * @brief AlleleFrequencyCalculator.calculateSingleSampleBiallelicNonRefPosterior: posterior that
 *        one biallelic sample carries the alt, integrating the frequency against the SNP prior
 *        (used for active-region detection).
 *
 * @param log10_likelihoods ploidy + 1 genotype likelihoods (n alt copies at index n)
 * @param return_zero_if_ref_is_max give 0 when hom-ref is the likeliest (before or after prior)
 * @throws gpp::Error when fewer than 2 likelihoods are given
 */
double single_sample_biallelic_non_ref_posterior(const AlleleFrequencyPriors& priors,
                                                 std::span<const double> log10_likelihoods,
                                                 bool return_zero_if_ref_is_max);

}  // namespace gpp::stages::call
