// The numeric helpers HaplotypeCaller's active-region detection rests on, ported so the results
// follow the Java arithmetic step by step:
//  - GATK MathUtils: approximateLog10SumLog10 (JacobianLogTable, step 1e-4, tolerance 8),
//    log10SumLog10 over an array, normalDistribution, maxElementIndex (first maximum);
//  - GATK QualityUtils: qualToProbLog10 (log10(1 - 10^(q / -10))) and qualToErrorProbLog10
//    (q * -0.1);
//  - Apache Commons Math 3 Gamma.logGamma (NSWC DGAMLN for x <= 8, Lanczos above) and
//    CombinatoricsUtils.binomialCoefficientLog, which GATK's AlleleFrequencyCalculator calls;
//    Gamma.digamma, which the adaptive chain pruner's likelihood ratio calls.
// Java's FastMath.log / log1p are replaced by std::log / std::log1p (both within 1 ulp of the exact
// value), so a result may differ from Java in its last bit.
//
// @code
//   activity_math::approximate_log10_sum_log10(-1.0, -1.0);  // -1.0 + log10(2) from the table
//   activity_math::log_gamma(11.0);                          // ln(10!) = 15.1044...
// @endcode
#pragma once

#include <span>

#include "stages/call/log10_math.hpp"

namespace gpp::stages::call::activity_math {

/// GATK MathUtils.LOG10_ONE_THIRD: -log10(3).
double log10_one_third();

/// GATK MathUtils.approximateLog10SumLog10, log10SumLog10 and maxElementIndex: the caller's one
/// definition (log10_math.hpp).
using call::approximate_log10_sum_log10;
using call::log10_sum_log10;
using call::max_element_index;

/// GATK QualityUtils.qualToProbLog10(byte): log10(1 - 10^(q / -10)).
double qual_to_prob_log10(unsigned qual);

/// GATK QualityUtils.qualToErrorProbLog10(byte): q * -0.1.
double qual_to_error_prob_log10(unsigned qual);

/// GATK MathUtils.normalDistribution(mean, sd, x): the normal density (sd > 0).
double normal_distribution(double mean, double sd, double x);

/// Apache Commons Math 3 Gamma.logGamma(x): ln Gamma(x) for x > 0, NaN otherwise.
double log_gamma(double x);

/// Apache Commons Math 3 Gamma.digamma(x): psi(x), by psi(x) = psi(x + 1) - 1/x up to 49 and
/// the asymptotic series from there (-gamma - 1/x for 0 < x <= 1e-5; NaN and infinities as given).
double digamma(double x);

/// Apache Commons Math 3 CombinatoricsUtils.binomialCoefficientLog(n, k): ln C(n, k).
/// @throws gpp::Error unless 0 <= k <= n
double binomial_coefficient_log(int n, int k);

}  // namespace gpp::stages::call::activity_math
