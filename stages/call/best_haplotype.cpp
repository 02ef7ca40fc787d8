// GATK AlleleLikelihoods.searchBestAllele / bestAllelesBreakingTies with
// AssemblyBasedCallerUtils.HAPLOTYPE_ALIGNMENT_TIEBREAKING_PRIORITY.
#include "stages/call/best_haplotype.hpp"

#include <limits>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

double haplotype_alignment_tiebreaking_priority(const Haplotype& haplotype) {
  const int reference_term = haplotype.is_reference ? 1 : 0;
  const int cigar_term = haplotype.cigar.empty() ? 0 : 1 - static_cast<int>(haplotype.cigar.size());
  return static_cast<double>(reference_term + cigar_term);
}

BestAllele best_allele_by_priority(std::span<const double> log10_likelihoods,
                                   std::span<const double> priorities) {
  const int count = static_cast<int>(log10_likelihoods.size());
  if (!priorities.empty() && priorities.size() != log10_likelihoods.size()) {
    throw Error("tie-breaking needs one priority per allele: " + std::to_string(priorities.size()) +
                " for " + std::to_string(count) + " alleles");
  }
  if (count == 0) return {};

  int best = 0;
  int second = 0;
  double best_likelihood = log10_likelihoods[0];
  double second_likelihood = -std::numeric_limits<double>::infinity();
  for (int a = 1; a < count; ++a) {
    const double candidate = log10_likelihoods[a];
    if (candidate > best_likelihood) {
      second = best;
      best = a;
      second_likelihood = best_likelihood;
      best_likelihood = candidate;
    } else if (candidate > second_likelihood) {
      second = a;
      second_likelihood = candidate;
    }
  }

  if (!priorities.empty() && best_likelihood - second_likelihood < kLog10InformativeThreshold) {
    // candidates within the threshold of the (pre-tie-break) best likelihood compete on priority
    double best_priority = priorities[best];
    double second_priority = priorities[second];
    for (int a = 0; a < count; ++a) {
      const double candidate = log10_likelihoods[a];
      if (a == best || best_likelihood - candidate > kLog10InformativeThreshold) continue;
      const double candidate_priority = priorities[a];
      if (candidate_priority > best_priority) {
        second = best;
        best = a;
        second_priority = best_priority;
        best_priority = candidate_priority;
      } else if (candidate_priority > second_priority) {
        second = a;
        second_priority = candidate_priority;
      }
    }
  }

  BestAllele result;
  result.allele = best;
  const double likelihood = log10_likelihoods[best];
  const double runner_up =
      second != best ? log10_likelihoods[second] : -std::numeric_limits<double>::infinity();
  result.second_allele = second != best ? second : -1;
  result.confidence = likelihood == runner_up ? 0 : likelihood - runner_up;
  result.informative = result.confidence > kLog10InformativeThreshold;
  return result;
}

std::vector<BestAllele> best_haplotypes_breaking_ties(std::span<const double> log10_likelihoods,
                                                      std::span<const Haplotype> haplotypes) {
  const std::size_t columns = haplotypes.size();
  if (columns == 0) {
    if (!log10_likelihoods.empty()) throw Error("read likelihoods without haplotypes");
    return {};
  }
  if (log10_likelihoods.size() % columns != 0) {
    throw Error("read likelihood matrix of " + std::to_string(log10_likelihoods.size()) +
                " values is not a whole number of rows of " + std::to_string(columns));
  }
  std::vector<double> priorities(columns);
  for (std::size_t h = 0; h < columns; ++h) {
    priorities[h] = haplotype_alignment_tiebreaking_priority(haplotypes[h]);
  }
  const std::size_t rows = log10_likelihoods.size() / columns;
  std::vector<BestAllele> best(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    best[r] = best_allele_by_priority(log10_likelihoods.subspan(r * columns, columns), priorities);
  }
  return best;
}

}  // namespace gpp::stages::call
