// Which allele a read supports, as GATK's AlleleLikelihoods.bestAllelesBreakingTies decides it for
// the annotations (searchBestAllele with canBeReference = true and tie-breaking priority 1 for the
// reference allele, 0 for the others):
//  - best = the first allele with the highest log10 likelihood, second = the runner-up;
//  - if best - second < 0.2 (LOG_10_INFORMATIVE_THRESHOLD), every other allele within 0.2 of the
//    best competes on priority, so the reference allele takes over a near-tie;
//  - the read is informative iff L(best) - L(second) > 0.2 (BestAllele.isInformative), which after
//    tie-breaking means: the top likelihood beats every other by more than 0.2.
// Only informative reads count in AD, FORMAT DP, FS, SOR and the rank-sum tests.
//
// @code
//   auto b = best_allele_breaking_ties(std::vector<double>{-1.0, -100.0});  // b.allele == 0
//   b.informative == true;
//   best_allele_breaking_ties(std::vector<double>{-1.1, -1.0}).allele == 0;  // near-tie: REF
//   best_allele_breaking_ties(std::vector<double>{-1.1, -1.0}).informative == false;
// @endcode
#pragma once

#include <span>

namespace gpp::stages::call {

/// AlleleLikelihoods.LOG_10_INFORMATIVE_THRESHOLD.
inline constexpr double kLog10InformativeThreshold = 0.2;

struct BestAllele {
  int allele = -1;           ///< index into the likelihoods; -1 when there are no alleles
  int second_allele = -1;    ///< the runner-up after tie-breaking; -1 when none
  double confidence = 0;     ///< L(allele) - L(second_allele), 0 when they are equal
  bool informative = false;  ///< confidence > kLog10InformativeThreshold
};

/**
 * @brief AlleleLikelihoods.searchBestAllele with reference-favouring tie-breaking.
 *
 * @param log10_likelihoods one read's log10 likelihood of each allele
 * @param reference_allele  index of the reference allele (priority 1), or -1 if none
 * @return the best allele and whether the read is informative
 */
BestAllele best_allele_breaking_ties(std::span<const double> log10_likelihoods,
                                     int reference_allele = 0);

}  // namespace gpp::stages::call
