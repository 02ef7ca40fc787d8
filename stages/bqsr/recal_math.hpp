// The numerics of GATK's recalibration model (RecalDatum, QualityUtils, MathUtils), kept in one
// place so that BaseRecalibrator and ApplyBQSR compute exactly the same values.
#pragma once

#include <cstdint>
#include <string>

namespace gpp::stages::bqsr {

/// GATK QualityUtils.MAX_REASONABLE_Q_SCORE: the empirical quality search runs over 0..60.
inline constexpr int kMaxReasonableQ = 60;
/// htsjdk SAMUtils.MAX_PHRED_SCORE: recalibrated qualities are bounded to 1..93.
inline constexpr int kMaxRecalibratedQ = 93;
/// Size of the quality axis of the tables (qualities 0..93).
inline constexpr int kQualCount = 94;
/// QualityUtils.MIN_USABLE_Q_SCORE: bases below it are neither counted nor recalibrated.
inline constexpr int kMinUsableQ = 6;

/**
 * @brief GATK RecalDatum empirical quality of a bin with `observations` bases and `errors`
 * (possibly fractional) mismatches, given the prior quality `prior`.
 *
 * Smoothing adds one error and one non-error: n = observations + 2, k = (long)(errors + 0.5) + 1.
 * The result is the first Q in 0..60 maximising log10 Gaussian(a=0.9, b=0, c=0.5) prior of
 * min(|(int)(Q - prior)|, 40) plus the binomial log-likelihood of k errors in n trials at
 * p = 10^(-Q/10), bounded above by 93. `(int)` is Java's truncation toward zero.
 */
double empirical_quality(std::int64_t observations, double errors, double prior);

/// QualityUtils.qualToErrorProb: 10^(-q/10).
double qual_to_error_prob(double qual);

/// MathUtils.fastRound: (long)(d + 0.5) for d > 0, else (long)(d - 0.5).
std::int64_t fast_round(double d);

/// MathUtils.roundToNDecimalPlaces: Math.round((x + ulp(x)) * 10^n) / 10^n.
double round_to_decimals(double x, int decimals);

/**
 * @brief Java's String.format("%.<decimals>f", x): the shortest decimal representation of x
 * (as Double.toString produces) rounded HALF_UP to `decimals` places. C's printf rounds the exact
 * binary value instead and differs on values such as 0.125 or 1.005.
 */
std::string java_format_fixed(double x, int decimals);

}  // namespace gpp::stages::bqsr
