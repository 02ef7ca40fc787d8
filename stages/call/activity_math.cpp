// Ports of GATK MathUtils / QualityUtils and Apache Commons Math 3 Gamma / CombinatoricsUtils used
// by active-region detection (see activity_math.hpp). Expression order follows the Java code so the
// rounding steps are the same.
#include "stages/call/activity_math.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call::activity_math {
namespace {

// Commons Math Gamma: coefficients of DGAM1 (NSWC library) and the Lanczos series (g = 607/128).
constexpr double kInvGammaA0 = .611609510448141581788E-08;
constexpr double kInvGammaA1 = .624730830116465516210E-08;
constexpr double kInvGammaB[9] = {0.0,  // B1..B8 at indices 1..8
                                  .203610414066806987300E+00,
                                  .266205348428949217746E-01,
                                  .493944979382446875238E-03,
                                  -.851419432440314906588E-05,
                                  -.643045481779353022248E-05,
                                  .992641840672773722196E-06,
                                  -.607761895722825260739E-07,
                                  .195755836614639731882E-09};
constexpr double kInvGammaP[7] = {.6116095104481415817861E-08, .6871674113067198736152E-08,
                                  .6820161668496170657918E-09, .4686843322948848031080E-10,
                                  .1572833027710446286995E-11, -.1249441572276366213222E-12,
                                  .4343529937408594255178E-14};
constexpr double kInvGammaQ[5] = {0.0,  // Q1..Q4 at indices 1..4
                                  .3056961078365221025009E+00, .5464213086042296536016E-01,
                                  .4956830093825887312020E-02, .2692369466186361192876E-03};
constexpr double kInvGammaCNegative = -.422784335098467139393487909917598E+00;  // C
constexpr double kInvGammaC[14] = {
    .577215664901532860606512090082402E+00,   // C0
    -.655878071520253881077019515145390E+00,  // C1
    -.420026350340952355290039348754298E-01, .166538611382291489501700795102105E+00,
    -.421977345555443367482083012891874E-01, -.962197152787697356211492167234820E-02,
    .721894324666309954239501034044657E-02,  -.116516759185906511211397108401839E-02,
    -.215241674114950972815729963053648E-03, .128050282388116186153198626328164E-03,
    -.201348547807882386556893914210218E-04, -.125049348214267065734535947383309E-05,
    .113302723198169588237412962033074E-05,  -.205633841697760710345015413002057E-06};  // C13
constexpr double kLanczosG = 607.0 / 128.0;
constexpr double kLanczos[15] = {
    0.99999999999999709182,    57.156235665862923517,     -59.597960355475491248,
    14.136097974741747174,     -0.49191381609762019978,   .33994649984811888699e-4,
    .46523628927048575665e-4,  -.98374475304879564677e-4, .15808870322491248884e-3,
    -.21026444172410488319e-3, .21743961811521264320e-3,  -.16431810653676389022e-3,
    .84418223983852743293e-4,  -.26190838401581408670e-4, .36899182659531622704e-5};

// Gamma.invGamma1pm1: 1 / Gamma(1 + x) - 1 for -0.5 <= x <= 1.5.
double inv_gamma_1p_minus_1(double x) {
  const double t = x <= 0.5 ? x : (x - 0.5) - 0.5;
  if (t < 0.0) {
    const double a = kInvGammaA0 + t * kInvGammaA1;
    double b = kInvGammaB[8];
    for (int j = 7; j >= 1; --j) b = kInvGammaB[j] + t * b;
    b = 1.0 + t * b;
    double c = kInvGammaC[13] + t * (a / b);
    for (int j = 12; j >= 1; --j) c = kInvGammaC[j] + t * c;
    c = kInvGammaCNegative + t * c;
    return x > 0.5 ? t * c / x : x * ((c + 0.5) + 0.5);
  }
  double p = kInvGammaP[6];
  for (int j = 5; j >= 0; --j) p = kInvGammaP[j] + t * p;
  double q = kInvGammaQ[4];
  for (int j = 3; j >= 1; --j) q = kInvGammaQ[j] + t * q;
  q = 1.0 + t * q;
  double c = kInvGammaC[13] + (p / q) * t;
  for (int j = 12; j >= 0; --j) c = kInvGammaC[j] + t * c;
  return x > 0.5 ? (t / x) * ((c - 0.5) - 0.5) : x * c;
}

// Gamma.logGamma1p: ln Gamma(1 + x) for -0.5 <= x <= 1.5.
double log_gamma_1p(double x) { return -std::log1p(inv_gamma_1p_minus_1(x)); }

double lanczos(double x) {
  double sum = 0.0;
  for (int i = 14; i > 0; --i) sum = sum + (kLanczos[i] / (x + i));
  return sum + kLanczos[0];
}

// CombinatoricsUtils.binomialCoefficient for n < 67: the exact integer.
std::uint64_t exact_binomial(int n, int k) {
  if (k > n - k) k = n - k;
  std::uint64_t result = 1;
  for (int i = 1; i <= k; ++i) {
    // result * (n - k + i) is divisible by i; divide before multiplying to stay in 64 bits.
    std::uint64_t numerator = static_cast<std::uint64_t>(n - k + i);
    std::uint64_t denominator = static_cast<std::uint64_t>(i);
    std::uint64_t g = std::gcd(result, denominator);
    result /= g;
    denominator /= g;
    numerator /= denominator;
    result *= numerator;
  }
  return result;
}

// CombinatoricsUtils.binomialCoefficientDouble for 67 <= n < 1030.
double binomial_coefficient_double(int n, int k) {
  if (n == k || k == 0) return 1.0;
  if (k == 1 || k == n - 1) return n;
  if (k > n / 2) return binomial_coefficient_double(n, n - k);
  if (n < 67) return static_cast<double>(exact_binomial(n, k));
  double result = 1.0;
  for (int i = 1; i <= k; ++i) result *= static_cast<double>(n - k + i) / static_cast<double>(i);
  return std::floor(result + 0.5);
}

}  // namespace

double log10_one_third() { return -std::log10(3.0); }

double qual_to_prob_log10(unsigned qual) {
  const double error = std::pow(10.0, static_cast<double>(qual) / -10.0);
  return std::log10(1.0 - error);
}

double qual_to_error_prob_log10(unsigned qual) { return static_cast<double>(qual) * -0.1; }

double normal_distribution(double mean, double sd, double x) {
  if (!(sd > 0.0) || !std::isfinite(sd) || !std::isfinite(mean) || !std::isfinite(x)) {
    throw Error("normal_distribution: the standard deviation must be finite and > 0");
  }
  const double root_two_pi = std::sqrt(2.0 * std::numbers::pi);
  return std::exp(-(x - mean) * (x - mean) / (2.0 * sd * sd)) / (sd * root_two_pi);
}

double log_gamma(double x) {
  if (std::isnan(x) || x <= 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x < 0.5) return log_gamma_1p(x) - std::log(x);
  if (x <= 2.5) return log_gamma_1p((x - 0.5) - 0.5);
  if (x <= 8.0) {
    const int n = static_cast<int>(std::floor(x - 1.5));
    double product = 1.0;
    for (int i = 1; i <= n; ++i) product *= x - i;
    return log_gamma_1p(x - (n + 1)) + std::log(product);
  }
  const double half_log_two_pi = 0.5 * std::log(2.0 * std::numbers::pi);
  const double sum = lanczos(x);
  const double tmp = x + kLanczosG + .5;
  return ((x + .5) * std::log(tmp)) - tmp + half_log_two_pi + std::log(sum / x);
}

double digamma(double x) {
  constexpr double kEulerGamma = 0.577215664901532860606512090082;
  if (!std::isfinite(x)) return x;
  if (x > 0 && x <= 1e-5) return -kEulerGamma - 1 / x;
  if (x >= 49) {
    const double inv = 1 / (x * x);
    return std::log(x) - 0.5 / x - inv * ((1.0 / 12) + inv * (1.0 / 120 - inv / 252));
  }
  return digamma(x + 1) - 1 / x;  // the recursion's order of additions, as Java's
}

double binomial_coefficient_log(int n, int k) {
  if (n < 0 || k < 0 || k > n) {
    throw Error("binomial_coefficient_log: need 0 <= k <= n, got n = " + std::to_string(n) +
                ", k = " + std::to_string(k));
  }
  if (n == k || k == 0) return 0;
  if (k == 1 || k == n - 1) return std::log(static_cast<double>(n));
  if (n < 67) return std::log(static_cast<double>(exact_binomial(n, k)));
  if (n < 1030) return std::log(binomial_coefficient_double(n, k));
  if (k > n / 2) return binomial_coefficient_log(n, n - k);
  double log_sum = 0;
  for (int i = n - k + 1; i <= n; ++i) log_sum += std::log(static_cast<double>(i));
  for (int i = 2; i <= k; ++i) log_sum -= std::log(static_cast<double>(i));
  return log_sum;
}

}  // namespace gpp::stages::call::activity_math
