// The numeric helpers HaplotypeCaller's active-region detection rests on, ported so the results
// follow the Java arithmetic step by step:
//  - GATK MathUtils: approximateLog10SumLog10 (JacobianLogTable, step 1e-4, tolerance 8),
//    log10SumLog10 over an array, normalDistribution, maxElementIndex (first maximum);
//  - GATK QualityUtils: qualToProbLog10 (log10(1 - 10^(q / -10))) and qualToErrorProbLog10
//    (q * -0.1);
//  - Apache Commons Math 3 Gamma.logGamma (NSWC DGAMLN for x <= 8, Lanczos above) and
//    CombinatoricsUtils.binomialCoefficientLog, which GATK's AlleleFrequencyCalculator calls.
// Java's FastMath.log / log1p are replaced by std::log / std::log1p (both within 1 ulp of the exact
// value), so a result may differ from Java in its last bit.
//
// @code
//   activity_math::approximate_log10_sum_log10(-1.0, -1.0);  // -1.0 + log10(2) from the table
//   activity_math::log_gamma(11.0);                          // ln(10!) = 15.1044...
// @endcode
#pragma once

#include <span>

namespace gpp::stages::call::activity_math {

/// GATK MathUtils.LOG10_ONE_THIRD: -log10(3).
double log10_one_third();

/**
 * @brief GATK MathUtils.approximateLog10SumLog10(a, b): log10(10^a + 10^b), the correction term
 *        looked up in a table of step 1e-4 and dropped when |a - b| >= 8.
 * @return b when a is -infinity (after ordering a <= b)
 */
double approximate_log10_sum_log10(double a, double b);

/// GATK MathUtils.log10SumLog10(double[]): exact log10 of the sum of 10^v; -infinity if empty.
/// @throws gpp::Error where the Java code throws (a NaN or infinite partial sum)
double log10_sum_log10(std::span<const double> log10_values);

/// GATK MathUtils.maxElementIndex: index of the first maximum. @throws gpp::Error if empty.
std::size_t max_element_index(std::span<const double> values);

/// GATK QualityUtils.qualToProbLog10(byte): log10(1 - 10^(q / -10)).
double qual_to_prob_log10(unsigned qual);

/// GATK QualityUtils.qualToErrorProbLog10(byte): q * -0.1.
double qual_to_error_prob_log10(unsigned qual);

/// GATK MathUtils.normalDistribution(mean, sd, x): the normal density (sd > 0).
double normal_distribution(double mean, double sd, double x);

/// Apache Commons Math 3 Gamma.logGamma(x): ln Gamma(x) for x > 0, NaN otherwise.
double log_gamma(double x);

/// Apache Commons Math 3 CombinatoricsUtils.binomialCoefficientLog(n, k): ln C(n, k).
/// @throws gpp::Error unless 0 <= k <= n
double binomial_coefficient_log(int n, int k);

}  // namespace gpp::stages::call::activity_math
