// Log10-space arithmetic of the genotyping model, with GATK's numerics (MathUtils,
// NaturalLogUtils, commons-math CombinatoricsUtils.factorialLog, Java Math.round).
//
// Genotype likelihoods, the allele-frequency model and GQ/PL all go through these few functions;
// reproducing their exact rules (the Jacobian lookup table of approximateLog10SumLog10, the order
// of summation, the special cases for -infinity) is what keeps PL and QUAL identical to GATK's.
#pragma once

#include <cstdint>
#include <span>

namespace gpp::stages::call {

/// log10(e), as GATK's MathUtils.LOG10_E.
double log10_e();

/// Natural log to log10 (GATK MathUtils.logToLog10: ln * LOG10_E).
inline double log_to_log10(double ln) { return ln * log10_e(); }

/// GATK NaturalLogUtils.log1mexp: ln(1 - e^a) for a <= 0, accurate on both sides of ln(1/2)
/// (Maechler 2012); -infinity at 0, NaN above.
double log1mexp(double a);

/**
 * @brief Java Math.round: the closest integer, halves rounded up (towards +infinity).
 *
 * Differs from std::round for negative halves (-2.5 -> -2). NaN gives 0, as in Java.
 */
std::int64_t java_round(double value);

/**
 * @brief GATK MathUtils.approximateLog10SumLog10(a, b): log10(10^a + 10^b) with the correction
 *        term looked up in a table of step 1e-4 (ignored when |a - b| >= 8).
 *
 * -infinity is the additive zero. Used by GenotypeLikelihoodCalculator for diploid-like genotypes.
 */
double approximate_log10_sum_log10(double a, double b);

/**
 * @brief GATK MathUtils.approximateLog10SumLog10(double[]): start at the (first) maximum and
 *        add every other finite value with the table correction, in index order.
 * @throws gpp::Error when values is empty
 */
double approximate_log10_sum_log10(std::span<const double> values);

/// GATK MathUtils.log10SumLog10(a, b): exact log10(10^a + 10^b), factored out of the larger.
double log10_sum_log10(double a, double b);

/**
 * @brief GATK MathUtils.log10SumLog10(double[]): exact log-sum-exp around the (first) maximum,
 *        skipping -infinity; -infinity for an empty span or all -infinity.
 * @throws gpp::Error when the sum is NaN or +infinity (as GATK throws IllegalArgumentException)
 */
double log10_sum_log10(std::span<const double> values);

/// GATK MathUtils.log10OneMinusPow10: log10(1 - 10^a); NaN for a > 0, -infinity for a == 0.
double log10_one_minus_pow10(double a);

/// Index of the first maximum (GATK MathUtils.maxElementIndex). @throws gpp::Error when empty.
int max_element_index(std::span<const double> values);

/// Index of the first maximum in [from, to) (GATK maxElementIndex(array, start, end)).
int max_element_index(std::span<const double> values, int from, int to);

/// Natural log of n! as commons-math CombinatoricsUtils.factorialLog (exact n! below 21).
double log_factorial(int n);

}  // namespace gpp::stages::call
