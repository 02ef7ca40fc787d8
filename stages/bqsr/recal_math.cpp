// GATK recalibration numerics; see recal_math.hpp for the rules implemented.
#include "stages/bqsr/recal_math.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace gpp::stages::bqsr {

namespace {

/// RecalDatum.MAX_GATK_USABLE_Q_SCORE: prior differences are capped at 40.
constexpr int kMaxPriorDifference = 40;

/// log10 of GATK's Gaussian prior (height 0.9, centre 0, width 0.5) at each difference 0..40;
/// -Double.MAX_VALUE where it underflows, as RecalDatum's static cache does.
const std::array<double, kMaxPriorDifference + 1>& log10_prior_cache() {
  static const std::array<double, kMaxPriorDifference + 1> cache = [] {
    std::array<double, kMaxPriorDifference + 1> values{};
    for (int i = 0; i <= kMaxPriorDifference; ++i) {
      const double density = 0.9 * std::exp(-(static_cast<double>(i) * i) / (2.0 * 0.5 * 0.5));
      double log10_prior = std::log10(density);
      if (std::isinf(log10_prior)) log10_prior = -std::numeric_limits<double>::max();
      values[i] = log10_prior;
    }
    return values;
  }();
  return cache;
}

/// RecalDatum.log10QempLikelihood without the binomial coefficient, which is the same for every
/// candidate Q and so cannot change the argmax.
double log10_likelihood(double q, std::int64_t n, std::int64_t k) {
  if (n == 0) return 0.0;
  constexpr std::int64_t kMaxObservations = std::numeric_limits<std::int32_t>::max() - 1;
  if (n > kMaxObservations) {
    const double fraction = static_cast<double>(kMaxObservations) / static_cast<double>(n);
    k = static_cast<std::int64_t>(std::floor(static_cast<double>(k) * fraction + 0.5));
    n = kMaxObservations;
  }
  const double log10p = q * -0.1;
  double result;
  if (log10p == 0.0) {
    result = (k == n) ? 0.0 : -std::numeric_limits<double>::infinity();
  } else {
    const double log10_one_minus_p = std::log10(1.0 - std::pow(10.0, log10p));
    result = log10p * static_cast<double>(k) + log10_one_minus_p * static_cast<double>(n - k);
  }
  if (!std::isfinite(result)) result = -std::numeric_limits<double>::max();
  return result;
}

}  // namespace

double empirical_quality(std::int64_t observations, double errors, double prior) {
  const std::int64_t k = static_cast<std::int64_t>(errors + 0.5) + 1;
  const std::int64_t n = observations + 2;
  const auto& priors = log10_prior_cache();
  int best = 0;
  double best_value = 0.0;
  for (int q = 0; q <= kMaxReasonableQ; ++q) {
    // Java: Math.abs((int)(Qempirical - Qreported)), truncation toward zero.
    const int difference =
        std::min(std::abs(static_cast<int>(static_cast<double>(q) - prior)), kMaxPriorDifference);
    const double value = priors[difference] + log10_likelihood(q, n, k);
    if (q == 0 || value > best_value) {  // MathUtils.maxElementIndex: first maximum wins
      best = q;
      best_value = value;
    }
  }
  return std::min(static_cast<double>(best), static_cast<double>(kMaxRecalibratedQ));
}

double qual_to_error_prob(double qual) { return std::pow(10.0, qual / -10.0); }

std::int64_t fast_round(double d) {
  return d > 0.0 ? static_cast<std::int64_t>(d + 0.5) : static_cast<std::int64_t>(d - 0.5);
}

double round_to_decimals(double x, int decimals) {
  const double multiplier = std::pow(10.0, decimals);
  const double ulp =
      std::nextafter(std::fabs(x), std::numeric_limits<double>::infinity()) - std::fabs(x);
  return std::floor((x + ulp) * multiplier + 0.5) / multiplier;
}

std::string java_format_fixed(double x, int decimals) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  // Shortest round-trip digits in scientific form: d.ddddde±XX.
  std::array<char, 64> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), std::fabs(x),
                                 std::chars_format::scientific);
  (void)ec;
  const char* e_pos = std::find(buffer.data(), end, 'e');
  std::vector<char> digits;  // significant digits, most significant first
  for (const char* c = buffer.data(); c != e_pos; ++c) {
    if (*c != '.') digits.push_back(*c);
  }
  const int exponent = std::atoi(e_pos + 1);
  // Value = 0.digits * 10^point: the integer part has `point` digits.
  int point = exponent + 1;
  if (point < 0) {
    digits.insert(digits.begin(), static_cast<std::size_t>(-point), '0');
    point = 0;
  }
  const std::size_t keep = static_cast<std::size_t>(point + decimals);
  if (digits.size() < keep) digits.resize(keep, '0');
  const bool round_up =
      digits.size() > keep && digits[keep] >= '5';  // HALF_UP on the decimal digits
  digits.resize(keep);
  if (round_up) {
    std::size_t i = keep;
    while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
    if (i == 0) {
      digits.insert(digits.begin(), '1');
      ++point;
    } else {
      ++digits[i - 1];
    }
  }
  std::string result;
  if (std::signbit(x)) result.push_back('-');
  if (point == 0) result.push_back('0');
  for (int k = 0; k < point; ++k) result.push_back(digits[static_cast<std::size_t>(k)]);
  if (decimals > 0) {
    result.push_back('.');
    for (std::size_t k = static_cast<std::size_t>(point); k < digits.size(); ++k)
      result.push_back(digits[k]);
  }
  return result;
}

}  // namespace gpp::stages::bqsr
