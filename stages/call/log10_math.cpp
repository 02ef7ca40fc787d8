// Log10-space arithmetic with GATK's numerics: MathUtils (approximateLog10SumLog10 and its
// JacobianLogTable, log10SumLog10, log10OneMinusPow10, maxElementIndex), NaturalLogUtils.log1mexp,
// commons-math CombinatoricsUtils.factorialLog and Java Math.round.
#include "stages/call/log10_math.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

// MathUtils.JacobianLogTable: log10(1 + 10^-d) tabulated for d in [0, 8] at steps of 1e-4; a
// difference of 8 or more adds nothing (an error of at most 1e-8 relative).
constexpr double kJacobianMaxTolerance = 8.0;
constexpr double kJacobianTableStep = 0.0001;
constexpr double kJacobianInverseStep = 1.0 / kJacobianTableStep;
constexpr int kJacobianTableSize = static_cast<int>(kJacobianMaxTolerance / kJacobianTableStep) + 1;

const std::vector<double>& jacobian_table() {
  static const std::vector<double> table = [] {
    std::vector<double> values(kJacobianTableSize);
    for (int k = 0; k < kJacobianTableSize; ++k) {
      values[k] = std::log10(1.0 + std::pow(10.0, -k * kJacobianTableStep));
    }
    return values;
  }();
  return table;
}

// MathUtils.fastRound: truncation after adding +-0.5 (no overflow checks; d is in [0, 8e4]).
int fast_round(double d) { return d > 0.0 ? static_cast<int>(d + 0.5) : static_cast<int>(d - 0.5); }

double jacobian_correction(double difference) {
  return jacobian_table()[fast_round(difference * kJacobianInverseStep)];
}

}  // namespace

double log1mexp(double a) {
  if (a > 0) return std::numeric_limits<double>::quiet_NaN();
  if (a == 0) return kNegativeInfinity;
  static const double threshold = std::log(0.5);
  return a < threshold ? std::log1p(-std::exp(a)) : std::log(-std::expm1(a));
}

double log10_e() {
  static const double value = std::log10(std::numbers::e);
  return value;
}

std::int64_t java_round(double value) {
  if (std::isnan(value)) return 0;
  constexpr double kLimit = 9.2233720368547758e18;  // 2^63
  if (value >= kLimit) return std::numeric_limits<std::int64_t>::max();
  if (value <= -kLimit) return std::numeric_limits<std::int64_t>::min();
  // floor(value + 0.5) without the rounding error of the addition: value - floor(value) is exact.
  const double floor_value = std::floor(value);
  const auto result = static_cast<std::int64_t>(floor_value);
  return value - floor_value >= 0.5 ? result + 1 : result;
}

double approximate_log10_sum_log10(double a, double b) {
  if (a > b) return approximate_log10_sum_log10(b, a);
  if (a == kNegativeInfinity) return b;
  const double difference = b - a;
  return b + (difference < kJacobianMaxTolerance ? jacobian_correction(difference) : 0.0);
}

double approximate_log10_sum_log10(std::span<const double> values) {
  const int max_index = max_element_index(values);
  double sum = values[max_index];
  for (int i = 0; i < static_cast<int>(values.size()); ++i) {
    if (i == max_index || values[i] == kNegativeInfinity) continue;
    const double difference = sum - values[i];
    sum += difference < kJacobianMaxTolerance ? jacobian_correction(difference) : 0.0;
  }
  return sum;
}

double log10_sum_log10(double a, double b) {
  return a > b ? a + std::log10(1 + std::pow(10.0, b - a))
               : b + std::log10(1 + std::pow(10.0, a - b));
}

double log10_sum_log10(std::span<const double> values) {
  if (values.empty()) return kNegativeInfinity;
  const int max_index = max_element_index(values);
  const double max_value = values[max_index];
  if (max_value == kNegativeInfinity) return max_value;
  double sum = 1.0;
  for (int i = 0; i < static_cast<int>(values.size()); ++i) {
    if (i == max_index || values[i] == kNegativeInfinity) continue;
    sum += std::pow(10.0, values[i] - max_value);
  }
  if (std::isnan(sum) || sum == std::numeric_limits<double>::infinity()) {
    throw Error("log10 sum: values must be neither NaN nor +infinity");
  }
  return max_value + (sum != 1.0 ? std::log10(sum) : 0.0);
}

double log10_one_minus_pow10(double a) {
  if (a > 0) return std::numeric_limits<double>::quiet_NaN();
  if (a == 0) return kNegativeInfinity;
  return log1mexp(a * std::numbers::ln10) * (1.0 / std::numbers::ln10);
}

int max_element_index(std::span<const double> values) {
  return max_element_index(values, 0, static_cast<int>(values.size()));
}

int max_element_index(std::span<const double> values, int from, int to) {
  if (values.empty()) throw Error("max_element_index: empty array");
  if (from > to) throw Error("max_element_index: start after end");
  int best = from;
  for (int i = from + 1; i < to; ++i) {
    if (values[i] > values[best]) best = i;
  }
  return best;
}

double log_factorial(int n) {
  if (n < 0) throw Error("log_factorial: negative argument " + std::to_string(n));
  if (n < 21) {
    std::int64_t factorial = 1;
    for (int i = 2; i <= n; ++i) factorial *= i;
    return std::log(static_cast<double>(factorial));
  }
  return std::lgamma(n + 1.0);
}

}  // namespace gpp::stages::call
