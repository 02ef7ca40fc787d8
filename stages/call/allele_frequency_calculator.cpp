// GATK's "new qual" allele-frequency model: AlleleFrequencyCalculator (makeCalculator, calculate,
// effectiveAlleleCounts, log10NormalizedGenotypePosteriors, genotypeIndicesWithOnlyRefAndSpanDel,
// calculateSingleSampleBiallelicNonRefPosterior), Dirichlet.log10MeanWeights and
// AFCalculationResult (log10ProbVariantPresent, passesThreshold), with GATK's order of summation.
#include "stages/call/allele_frequency_calculator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {
namespace {

constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

// AlleleFrequencyCalculator.THRESHOLD_FOR_ALLELE_COUNT_CONVERGENCE
constexpr double kAlleleCountConvergence = 0.1;

// AFCalculationResult.EPSILON: "0 means epsilon" for the per-allele confidence test.
constexpr double kPassesThresholdEpsilon = 1.0e-10;

// Java Math.min(0, x): NaN stays NaN.
double min_with_zero(double x) { return std::isnan(x) ? x : std::min(0.0, x); }

void check_sample(const SampleGenotypeLikelihoods& sample, int allele_count) {
  if (sample.ploidy < 1) throw Error("allele frequency model: sample ploidy must be 1 or greater");
  if (static_cast<int>(sample.log10_likelihoods.size()) !=
      genotype_count(sample.ploidy, allele_count)) {
    throw Error("allele frequency model: ploidy " + std::to_string(sample.ploidy) + ", " +
                std::to_string(allele_count) + " alleles and " +
                std::to_string(sample.log10_likelihoods.size()) + " likelihoods are inconsistent");
  }
}

// Posterior of each genotype of one sample given the allele frequencies: multinomial prior
// (combinations x prod f_a^count_a) times likelihood, normalised in log10 space.
std::vector<double> log10_normalized_genotype_posteriors(
    const SampleGenotypeLikelihoods& sample, const std::vector<double>& log10_allele_frequencies) {
  std::vector<double> posteriors(sample.log10_likelihoods.size());
  GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(sample.ploidy);
  for (std::size_t g = 0; g < posteriors.size(); ++g, genotype.increase()) {
    double log10_prior_frequencies = 0.0;
    genotype.for_each_allele_index_and_count([&](int allele, int count) {
      log10_prior_frequencies += count * log10_allele_frequencies[allele];
    });
    posteriors[g] =
        genotype.log10_combination_count() + sample.log10_likelihoods[g] + log10_prior_frequencies;
  }
  const double log10_sum = log10_sum_log10(posteriors);
  for (double& value : posteriors) value -= log10_sum;
  return posteriors;
}

// Expected copies of each allele over all samples: sum over genotypes of posterior x count,
// accumulated in log10 space.
std::vector<double> effective_allele_counts(std::span<const SampleGenotypeLikelihoods> samples,
                                            const std::vector<double>& log10_allele_frequencies) {
  std::vector<double> log10_counts(log10_allele_frequencies.size(), kNegativeInfinity);
  for (const SampleGenotypeLikelihoods& sample : samples) {
    const std::vector<double> posteriors =
        log10_normalized_genotype_posteriors(sample, log10_allele_frequencies);
    GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(sample.ploidy);
    for (std::size_t g = 0; g < posteriors.size(); ++g, genotype.increase()) {
      genotype.for_each_allele_index_and_count([&](int allele, int count) {
        log10_counts[allele] =
            log10_sum_log10(log10_counts[allele], posteriors[g] + std::log10(count));
      });
    }
  }
  for (double& value : log10_counts) value = std::pow(10.0, value);
  return log10_counts;
}

// Dirichlet.log10MeanWeights: log10(alpha_i / sum alpha).
std::vector<double> log10_mean_weights(const std::vector<double>& alpha) {
  double sum = 0.0;
  for (const double value : alpha) sum += value;
  std::vector<double> weights(alpha.size());
  for (std::size_t i = 0; i < alpha.size(); ++i) weights[i] = std::log10(alpha[i] / sum);
  return weights;
}

// Java's stream max of |old - new|: NaN propagates.
double max_absolute_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double result = kNegativeInfinity;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double difference = std::abs(a[i] - b[i]);
    if (std::isnan(difference) || std::isnan(result)) {
      result = std::numeric_limits<double>::quiet_NaN();
    } else {
      result = std::max(result, difference);
    }
  }
  return result;
}

// commons-math CombinatoricsUtils.binomialCoefficientLog: the log of the exact coefficient below
// n = 67, log-gamma beyond (where ploidies never go).
double log_binomial(int n, int k) {
  if (k == 0 || k == n) return 0.0;
  if (n < 67) {
    // C(n, i) from C(n, i - 1) without overflow: divide out the common factor first.
    const int smaller = std::min(k, n - k);
    std::uint64_t exact = 1;
    for (int i = 1; i <= smaller; ++i) {
      const std::uint64_t factor = static_cast<std::uint64_t>(n - smaller + i);
      const std::uint64_t common = std::gcd(exact, static_cast<std::uint64_t>(i));
      exact = (exact / common) * (factor / (static_cast<std::uint64_t>(i) / common));
    }
    return std::log(static_cast<double>(exact));
  }
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

}  // namespace

AlleleFrequencyPriors priors_from_heterozygosity(double snp_heterozygosity,
                                                 double indel_heterozygosity,
                                                 double heterozygosity_stdev) {
  AlleleFrequencyPriors priors;
  priors.ref_pseudocount = snp_heterozygosity / std::pow(heterozygosity_stdev, 2);
  priors.snp_pseudocount = snp_heterozygosity * priors.ref_pseudocount;
  priors.indel_pseudocount = indel_heterozygosity * priors.ref_pseudocount;
  return priors;
}

double AfCalcResult::log10_p_variant_present() const {
  return log10_one_minus_pow10(log10_p_no_variant);
}

bool AfCalcResult::passes_threshold(int allele, double phred_threshold) const {
  if (allele < 1 || allele > static_cast<int>(log10_p_allele_absent.size())) {
    throw Error("allele frequency result: " + std::to_string(allele) + " is not an alt allele");
  }
  return log10_p_allele_absent[allele - 1] + kPassesThresholdEpsilon < phred_threshold * -0.1;
}

AfCalcResult calculate_allele_frequencies(std::span<const SampleGenotypeLikelihoods> samples,
                                          std::span<const AlleleDescription> alleles,
                                          const AlleleFrequencyPriors& priors) {
  const int allele_count = static_cast<int>(alleles.size());
  if (allele_count < 2) throw Error("allele frequency model: a site needs an alt allele");
  if (samples.empty()) throw Error("allele frequency model: no sample with likelihoods");
  for (const SampleGenotypeLikelihoods& sample : samples) check_sample(sample, allele_count);

  std::vector<double> prior_pseudocounts(allele_count);
  int spanning_deletion = -1;
  for (int a = 0; a < allele_count; ++a) {
    const bool snp = !alleles[a].is_non_ref && alleles[a].length == alleles[0].length;
    prior_pseudocounts[a] = a == 0 ? priors.ref_pseudocount
                            : snp  ? priors.snp_pseudocount
                                   : priors.indel_pseudocount;
    if (alleles[a].is_spanning_deletion && spanning_deletion < 0) spanning_deletion = a;
  }

  // Iterate: expected counts under the current frequencies, then the Dirichlet posterior mean.
  // The first pass uses flat frequencies so that a real variant can earn pseudocounts before the
  // reference-biased prior applies.
  std::vector<double> allele_counts(allele_count, 0.0);
  std::vector<double> log10_frequencies(allele_count, -std::log10(allele_count));
  for (double difference = std::numeric_limits<double>::infinity();
       difference > kAlleleCountConvergence;) {
    std::vector<double> new_counts = effective_allele_counts(samples, log10_frequencies);
    difference = max_absolute_difference(allele_counts, new_counts);
    allele_counts = std::move(new_counts);
    std::vector<double> posterior_pseudocounts(allele_count);
    for (int a = 0; a < allele_count; ++a) {
      posterior_pseudocounts[a] = prior_pseudocounts[a] + allele_counts[a];
    }
    log10_frequencies = log10_mean_weights(posterior_pseudocounts);
  }

  const bool biallelic_without_spanning_deletion = allele_count == 2 && spanning_deletion < 0;
  AfCalcResult result;
  std::vector<double> log10_p_absent(allele_count, 0.0);
  std::vector<std::vector<double>> absent_posteriors(allele_count);
  for (const SampleGenotypeLikelihoods& sample : samples) {
    const std::vector<double> posteriors =
        log10_normalized_genotype_posteriors(sample, log10_frequencies);
    if (spanning_deletion < 0) {
      result.log10_p_no_variant += posteriors[0];
    } else {
      // Genotypes of only ref and '*' are non-variant; capped at 0 against rounding above 1.
      std::vector<double> non_variant;
      for (int n = 0; n <= sample.ploidy; ++n) {
        const int pairs[] = {0, sample.ploidy - n, spanning_deletion, n};
        non_variant.push_back(posteriors[allele_counts_to_index(pairs)]);
      }
      result.log10_p_no_variant += min_with_zero(log10_sum_log10(non_variant));
    }
    if (biallelic_without_spanning_deletion) continue;  // the allele's absence is the site's

    for (std::vector<double>& buffer : absent_posteriors) buffer.clear();
    GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(sample.ploidy);
    for (std::size_t g = 0; g < posteriors.size(); ++g, genotype.increase()) {
      genotype.for_each_absent_allele_index(
          [&](int allele) { absent_posteriors[allele].push_back(posteriors[g]); }, allele_count);
    }
    for (int a = 0; a < allele_count; ++a) {
      log10_p_absent[a] += min_with_zero(log10_sum_log10(absent_posteriors[a]));
    }
  }
  if (biallelic_without_spanning_deletion) log10_p_absent[1] = result.log10_p_no_variant;

  result.expected_allele_counts = allele_counts;
  for (int a = 1; a < allele_count; ++a) {
    result.log10_p_allele_absent.push_back(log10_p_absent[a]);
    result.mle_allele_counts.push_back(static_cast<int>(java_round(allele_counts[a])));
  }
  return result;
}

double single_sample_biallelic_non_ref_posterior(const AlleleFrequencyPriors& priors,
                                                 std::span<const double> log10_likelihoods,
                                                 bool return_zero_if_ref_is_max) {
  if (log10_likelihoods.size() < 2) throw Error("biallelic posterior: need ploidy + 1 likelihoods");
  if (return_zero_if_ref_is_max && max_element_index(log10_likelihoods) == 0) return 0.0;
  const int ploidy = static_cast<int>(log10_likelihoods.size()) - 1;
  std::vector<double> log10_unnormalized(ploidy + 1);
  for (int n = 0; n <= ploidy; ++n) {
    log10_unnormalized[n] =
        log10_likelihoods[n] +
        log_to_log10(log_binomial(ploidy, n) + std::lgamma(n + priors.snp_pseudocount) +
                     std::lgamma(ploidy - n + priors.ref_pseudocount));
  }
  if (return_zero_if_ref_is_max && max_element_index(log10_unnormalized) == 0) return 0.0;
  const double log10_sum = log10_sum_log10(log10_unnormalized);
  return 1 - std::pow(10.0, log10_unnormalized[0] - log10_sum);
}

}  // namespace gpp::stages::call
