// Allele selection and likelihood subsetting: AlleleSubsettingUtils (calculateLikelihoodSums,
// filterToMaxNumberOfAltAllelesBasedOnScores, calculateMostLikelyAlleles, subsettedPLIndices, the
// rescaling in subsetAlleles).
#include "stages/call/allele_subsetting.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {
std::vector<double> likelihood_sums(std::span<const SampleGenotypeLikelihoods> samples,
                                    int allele_count) {
  std::vector<double> sums(allele_count, 0.0);
  for (const SampleGenotypeLikelihoods& sample : samples) {
    const std::span<const double> gls = sample.log10_likelihoods;
    if (static_cast<int>(gls.size()) != genotype_count(sample.ploidy, allele_count)) {
      throw Error("likelihood sums: a sample's likelihoods do not match its ploidy and alleles");
    }
    const int best = max_element_index(gls);
    const double difference = std::abs(gls[best] - gls[0]);
    GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(sample.ploidy);
    for (int i = 0; i < best; ++i) genotype.increase();
    for (int allele = 1; allele < allele_count; ++allele) {
      if (genotype.contains_allele(allele)) sums[allele] += difference;
    }
  }
  return sums;
}

std::vector<int> filter_to_max_alt_alleles(int max_alt_alleles, std::span<const double> scores,
                                           int non_ref_allele) {
  const int allele_count = static_cast<int>(scores.size());
  std::vector<int> alts;
  for (int a = 1; a < allele_count; ++a) {
    if (a != non_ref_allele) alts.push_back(a);
  }
  // Java's stable sort on descending score: ties keep the lower index first.
  std::stable_sort(alts.begin(), alts.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  std::vector<bool> keep(allele_count, false);
  if (allele_count > 0) keep[0] = true;
  if (non_ref_allele > 0 && non_ref_allele < allele_count) keep[non_ref_allele] = true;
  for (int i = 0; i < std::min(max_alt_alleles, static_cast<int>(alts.size())); ++i) {
    keep[alts[i]] = true;
  }
  std::vector<int> kept;
  for (int a = 0; a < allele_count; ++a) {
    if (keep[a]) kept.push_back(a);
  }
  return kept;
}

std::vector<int> most_likely_alleles(std::span<const SampleGenotypeLikelihoods> samples,
                                     int allele_count, int max_alt_alleles, int non_ref_allele) {
  if (max_alt_alleles < 1) throw Error("the number of alt alleles to keep must be 1 or more");
  const int proper_alts = allele_count - (non_ref_allele > 0 ? 2 : 1);
  if (max_alt_alleles >= proper_alts) {
    std::vector<int> all(allele_count);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  return filter_to_max_alt_alleles(max_alt_alleles, likelihood_sums(samples, allele_count),
                                   non_ref_allele);
}

std::vector<int> subsetted_genotype_indices(int ploidy, std::span<const int> kept_alleles) {
  return new_to_old_genotype_map(ploidy, kept_alleles);
}

std::vector<double> subset_log10_likelihoods(std::span<const double> log10_likelihoods,
                                             std::span<const int> indices) {
  std::vector<double> subset(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= static_cast<int>(log10_likelihoods.size())) {
      throw Error("likelihood subset: genotype index out of range");
    }
    subset[i] = log10_likelihoods[indices[i]];
  }
  if (subset.empty()) return subset;
  const double best = subset[max_element_index(subset)];
  for (double& value : subset) value -= best;
  return subset;
}

}  // namespace gpp::stages::call
