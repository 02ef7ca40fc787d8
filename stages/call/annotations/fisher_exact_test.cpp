// GATK FisherExactTest.twoSidedPValue over commons-math's HypergeometricDistribution.logProbability
// (SaddlePointExpansion.logBinomialProbability, getStirlingError, getDeviancePart; Loader 2000,
// "Fast and Accurate Computation of Binomial Probabilities").
#include "stages/call/annotations/fisher_exact_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;
const double kHalfLogTwoPi = 0.5 * std::log(kTwoPi);
constexpr double kRelativeError = 1 - 10e-7;  // FisherExactTest.REL_ERR
const double kLog10OfE = std::log10(std::numbers::e);

/// Stirling's-series error lgamma(z + 1) - (z + 1/2) log z + z - log sqrt(2 pi) at z = 0, 0.5,
/// ..., 15 (Loader's table).
constexpr double kExactStirlingErrors[] = {
    0.0,
    0.1534264097200273452913848,
    0.0810614667953272582196702,
    0.0548141210519176538961390,
    0.0413406959554092940938221,
    0.03316287351993628748511048,
    0.02767792568499833914878929,
    0.02374616365629749597132920,
    0.02079067210376509311152277,
    0.01848845053267318523077934,
    0.01664469118982119216319487,
    0.01513497322191737887351255,
    0.01387612882307074799874573,
    0.01281046524292022692424986,
    0.01189670994589177009505572,
    0.01110455975820691732662991,
    0.010411265261972096497478567,
    0.009799416126158803298389475,
    0.009255462182712732917728637,
    0.008768700134139385462952823,
    0.008330563433362871256469318,
    0.007934114564314020547248100,
    0.007573675487951840794972024,
    0.007244554301320383179543912,
    0.006942840107209529865664152,
    0.006665247032707682442354394,
    0.006408994188004207068439631,
    0.006171712263039457647532867,
    0.005951370112758847735624416,
    0.005746216513010115682023589,
    0.005554733551962801371038690,
};

double stirling_error(double z) {
  if (z < 15.0) {
    const double z2 = 2.0 * z;
    if (std::floor(z2) == z2) return kExactStirlingErrors[static_cast<int>(z2)];
    return std::lgamma(z + 1.0) - (z + 0.5) * std::log(z) + z - kHalfLogTwoPi;
  }
  const double z2 = z * z;
  return (0.083333333333333333333 -
          (0.00277777777777777777778 -
           (0.00079365079365079365079365 -
            (0.000595238095238095238095238 - 0.0008417508417508417508417508 / z2) / z2) /
               z2) /
              z2) /
         z;
}

/// x log(x / mu) + mu - x, by its series when x is close to mu.
double deviance_part(double x, double mu) {
  if (std::fabs(x - mu) < 0.1 * (x + mu)) {
    const double d = x - mu;
    double v = d / (x + mu);
    double s1 = v * d;
    double s = std::numeric_limits<double>::quiet_NaN();
    double ej = 2.0 * x * v;
    v *= v;
    int j = 1;
    while (s1 != s) {
      s = s1;
      ej *= v;
      s1 = s + ej / ((j * 2) + 1);
      ++j;
    }
    return s1;
  }
  return x * std::log(x / mu) + mu - x;
}

/// log of the binomial probability of x successes in n trials (p = 1 - q).
double log_binomial_probability(std::int64_t x, std::int64_t n, double p, double q) {
  const double dx = static_cast<double>(x), dn = static_cast<double>(n);
  if (x == 0) {
    if (p < 0.1) return -deviance_part(dn, dn * q) - dn * p;
    return dn * std::log(q);
  }
  if (x == n) {
    if (q < 0.1) return -deviance_part(dn, dn * p) - dn * q;
    return dn * std::log(p);
  }
  const double ret = stirling_error(dn) - stirling_error(dx) - stirling_error(dn - dx) -
                     deviance_part(dx, dn * p) - deviance_part(dn - dx, dn * q);
  const double f = (kTwoPi * dx * (dn - dx)) / dn;
  return -0.5 * std::log(f) + ret;
}

/// MathUtils.log10SumLog10: max + log10(1 + sum 10^(v - max)) over the others.
double log10_sum_log10(const std::vector<double>& values) {
  if (values.empty()) return -std::numeric_limits<double>::infinity();
  std::size_t max_index = 0;
  for (std::size_t i = 1; i < values.size(); ++i) {
    if (values[i] > values[max_index]) max_index = i;
  }
  const double max_value = values[max_index];
  if (max_value == -std::numeric_limits<double>::infinity()) return max_value;
  double sum = 1.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i == max_index || values[i] == -std::numeric_limits<double>::infinity()) continue;
    sum += std::pow(10.0, values[i] - max_value);
  }
  return max_value + (sum != 1.0 ? std::log10(sum) : 0.0);
}

}  // namespace

double hypergeometric_log_probability(std::int64_t x, std::int64_t population,
                                      std::int64_t successes, std::int64_t sample) {
  const std::int64_t lower = std::max<std::int64_t>(0, successes - (population - sample));
  const std::int64_t upper = std::min(sample, successes);
  if (x < lower || x > upper) return -std::numeric_limits<double>::infinity();
  const double p = static_cast<double>(sample) / static_cast<double>(population);
  const double q = static_cast<double>(population - sample) / static_cast<double>(population);
  const double p1 = log_binomial_probability(x, successes, p, q);
  const double p2 = log_binomial_probability(sample - x, population - successes, p, q);
  const double p3 = log_binomial_probability(sample, population, p, q);
  return p1 + p2 - p3;
}

double fisher_exact_two_sided_p_value(const ContingencyTable& table) {
  for (const auto& row : table) {
    for (std::int32_t count : row) {
      if (count < 0) throw Error("Fisher's exact test: negative count in contingency table");
    }
  }
  const std::int64_t m = std::int64_t{table[0][0]} + table[0][1];
  const std::int64_t n = std::int64_t{table[1][0]} + table[1][1];
  const std::int64_t k = std::int64_t{table[0][0]} + table[1][0];
  const std::int64_t lo = std::max<std::int64_t>(0, k - n);
  const std::int64_t hi = std::min(k, m);
  if (hi + 1 - lo <= 1) return 1.0;

  std::vector<double> log_probabilities;
  log_probabilities.reserve(static_cast<std::size_t>(hi + 1 - lo));
  for (std::int64_t x = lo; x <= hi; ++x) {
    log_probabilities.push_back(hypergeometric_log_probability(x, m + n, m, k));
  }
  const double threshold =
      log_probabilities[static_cast<std::size_t>(table[0][0] - lo)] * kRelativeError;
  std::vector<double> log10_kept;
  for (double d : log_probabilities) {
    if (d <= threshold) log10_kept.push_back(d * kLog10OfE);
  }
  const double p_value = std::pow(10.0, log10_sum_log10(log10_kept));
  return std::min(p_value, 1.0);
}

}  // namespace gpp::stages::call
