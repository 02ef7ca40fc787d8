// GATK AlleleLikelihoods.searchBestAllele(sample, read, canBeReference = true, priorities) with
// the priorities of bestAllelesBreakingTies() (reference 1, others 0), and
// BestAllele.isInformative: the search of best_haplotype.hpp with those priorities.
#include "stages/call/annotations/best_allele.hpp"

#include <vector>

#include "stages/call/best_haplotype.hpp"

namespace gpp::stages::call {

BestAllele best_allele_breaking_ties(std::span<const double> log10_likelihoods,
                                     int reference_allele) {
  std::vector<double> priorities(log10_likelihoods.size(), 0.0);
  if (reference_allele >= 0 && static_cast<std::size_t>(reference_allele) < priorities.size()) {
    priorities[static_cast<std::size_t>(reference_allele)] = 1.0;
  }
  return best_allele_by_priority(log10_likelihoods, priorities);
}

}  // namespace gpp::stages::call
