// Two-sided Fisher's exact test on a 2x2 table as GATK's utils/FisherExactTest.twoSidedPValue
// computes it (the R fisher.test rule):
//   m = row 0 sum, n = row 1 sum, k = column 0 sum; support x in [max(0, k - n), min(k, m)];
//   a support of one value gives p = 1; otherwise every hypergeometric log-probability
//   log P(x) <= log P(observed) * (1 - 1e-6) is summed (in log10, as MathUtils.sumLog10) and the
//   result capped at 1.
// log P(x) is commons-math HypergeometricDistribution.logProbability, i.e. Catherine Loader's
// saddle-point binomial terms (SaddlePointExpansion: Stirling-error table, deviance series), which
// we reproduce rather than use lgamma so that near-ties at the (1 - 1e-6) threshold fall the same
// way.
//
// @code
//   fisher_exact_two_sided_p_value({{{9, 11}, {12, 10}}}) == 0.7578618...   (R fisher.test)
// @endcode
#pragma once

#include <array>
#include <cstdint>

namespace gpp::stages::call {

/// A 2x2 contingency table, table[row][column].
using ContingencyTable = std::array<std::array<std::int32_t, 2>, 2>;

/**
 * @brief GATK FisherExactTest.twoSidedPValue.
 *
 * @param table non-negative counts whose total fits in 32 bits (FisherStrand normalizes first)
 * @return the two-sided p-value in [0, 1]
 * @throws gpp::Error if an entry is negative
 */
double fisher_exact_two_sided_p_value(const ContingencyTable& table);

/// commons-math HypergeometricDistribution(population, successes, sample).logProbability(x):
/// natural log of P(X = x); -inf outside the support.
double hypergeometric_log_probability(std::int64_t x, std::int64_t population,
                                      std::int64_t successes, std::int64_t sample);

}  // namespace gpp::stages::call
