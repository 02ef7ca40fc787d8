// GATK AlleleLikelihoods.searchBestAllele(sample, read, canBeReference = true, priorities) with
// the priorities of bestAllelesBreakingTies() (reference 1, others 0), and
// BestAllele.isInformative.
#include "stages/call/annotations/best_allele.hpp"

#include <limits>

namespace gpp::stages::call {

BestAllele best_allele_breaking_ties(std::span<const double> log10_likelihoods,
                                     int reference_allele) {
  const int count = static_cast<int>(log10_likelihoods.size());
  if (count == 0) return {};
  auto priority = [&](int a) { return a == reference_allele ? 1.0 : 0.0; };

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

  if (best_likelihood - second_likelihood < kLog10InformativeThreshold) {
    // Alleles within the threshold of the best compete on priority (best_likelihood stays the
    // pre-tie-break value, as in GATK).
    double best_priority = priority(best);
    double second_priority = priority(second);
    for (int a = 0; a < count; ++a) {
      const double candidate = log10_likelihoods[a];
      if (a == best || best_likelihood - candidate > kLog10InformativeThreshold) continue;
      const double candidate_priority = priority(a);
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

}  // namespace gpp::stages::call
