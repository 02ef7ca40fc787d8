// The haplotype each read is realigned to: GATK AlleleLikelihoods.bestAllelesBreakingTies with
// AssemblyBasedCallerUtils.HAPLOTYPE_ALIGNMENT_TIEBREAKING_PRIORITY, as
// AssemblyBasedCallerUtils.realignReadsToTheirBestHaplotype calls it.
//  - best = the first haplotype with the highest log10 likelihood, second = the runner-up;
//  - if best - second < 0.2 (AlleleLikelihoods.LOG_10_INFORMATIVE_THRESHOLD), every haplotype
//    within 0.2 of the best competes on priority (a strictly higher one wins, ties keep the
//    earlier winner); the priority of a haplotype is (reference ? 1 : 0) + 1 - (its CIGAR's
//    element count), so the reference and then the simplest alignments win near-ties;
//  - the read is informative iff L(best) - L(second) > 0.2 after tie-breaking.
// The search is the one of stages/call/annotations/best_allele.hpp with any priorities (that one
// fixes them at reference 1, others 0) and returns the same BestAllele.
//
// @code
//   // reference 12M (priority 1 + 0), alternate 5M1D6M (priority 0 - 2): a near-tie goes to REF
//   auto b = best_allele_by_priority(std::vector<double>{-1.1, -1.0}, std::vector<double>{1, -2});
//   // b.allele == 0, b.second_allele == 1, b.informative == false
// @endcode
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "stages/call/annotations/best_allele.hpp"
#include "stages/call/haplotype.hpp"

namespace gpp::stages::call {

/**
 * @brief AssemblyBasedCallerUtils.HAPLOTYPE_ALIGNMENT_TIEBREAKING_PRIORITY:
 * (is_reference ? 1 : 0) + (1 - number of CIGAR elements), the CIGAR term 0 for a haplotype
 * without a CIGAR.
 */
double haplotype_alignment_tiebreaking_priority(const Haplotype& haplotype);

/**
 * @brief AlleleLikelihoods.searchBestAllele(canBeReference = true, priorities) for one read.
 *
 * @param log10_likelihoods the read's log10 likelihood of each allele
 * @param priorities        one per allele (higher wins a near-tie); empty: no tie-breaking
 * @return the best allele (-1 when there are none), the runner-up (-1 when it is the best), the
 *         confidence L(best) - L(runner-up) (0 when equal; negative when a tie went to a lower
 *         likelihood) and whether the read is informative
 * @throws gpp::Error if priorities is neither empty nor one per allele
 */
BestAllele best_allele_by_priority(std::span<const double> log10_likelihoods,
                                   std::span<const double> priorities);

/**
 * @brief bestAllelesBreakingTies(HAPLOTYPE_ALIGNMENT_TIEBREAKING_PRIORITY) over a read-major
 * read x haplotype matrix (the layout of ReadLikelihoodMatrix).
 *
 * @param log10_likelihoods value(r, h) = log10_likelihoods[r * haplotypes.size() + h]
 * @param haplotypes        the matrix's columns, whose priorities break the ties
 * @return one BestAllele per read, in row order (allele = haplotype index)
 * @throws gpp::Error if the matrix size is not a multiple of haplotypes.size(), or there are
 *         likelihoods but no haplotypes
 */
std::vector<BestAllele> best_haplotypes_breaking_ties(std::span<const double> log10_likelihoods,
                                                      std::span<const Haplotype> haplotypes);

}  // namespace gpp::stages::call
