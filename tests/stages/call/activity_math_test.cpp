// Numeric helpers of active-region detection: GATK MathUtilsUnitTest cases (approximate and exact
// log10 sums, normal density, RunningAverage) and Apache Commons Math 3.6.1 values for logGamma and
// binomialCoefficientLog (printed by the library itself: Gamma.logGamma(x),
// CombinatoricsUtils.binomialCoefficientLog(n, k), "%.17g").
#include "stages/call/activity_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"
#include "stages/call/locus_activity.hpp"

namespace gpp::stages::call {
namespace {

using namespace activity_math;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double exact_log10_sum(double a, double b) {
  return std::log10(std::pow(10.0, a) + std::pow(10.0, b));
}

// MathUtilsUnitTest.testApproximateLogSumLog: the (a, b) pairs java.util.Random(13).nextGaussian()
// gives there, scaled by 1 + 3j (printed by the JDK), precision 1e-4.
TEST(ActivityMath, ApproximateLog10SumLog10MatchesExactWithinTableStep) {
  const double pairs[][2] = {
      {1.6828831870102465, -0.40560312709480156},   {0.018467979624563900, -0.16434672537469840},
      {0.82199981089579880, -0.20220958601479620},  {0.42412653533245360, -0.38855779312508230},
      {0.64193684277021350, -0.081735078330848920}, {1.6294803983521429, 1.2947398061129776},
      {-4.0696129628798210, 1.3915712110598260},    {1.4216099074601154, 0.99147135880731200},
      {2.8849750493840660, 1.2205760909226209},     {5.3695221933855395, 3.8457604139750767},
      {-5.1437302159357990, 0.19503025738171650},   {0.85840297150047340, -8.2812856278244630},
      {-2.8409904572897533, -1.6397249795714224},   {-8.8680146829443790, 0.85852541259754730},
      {-10.410207878362431, 8.0072396312081220},    {5.5415017846004450, 2.1484307347189740},
      {-3.2361329772880660, 3.8296951286101310},    {17.349075465245225, 13.799506562313919},
      {-2.6991070964014160, 15.583289305087105},    {18.228960220520165, -2.8871214114899058},
      {-0.94498661923336110, -4.6642376238056125},  {-3.0210476133979730, 6.6003751461484230},
      {-5.0024752429418236, 17.947685715886750},    {9.9917226348800290, 12.540086895663412},
      {0.57180237872520250, 8.7200734700049550}};
  for (const auto& p : pairs) {
    EXPECT_NEAR(approximate_log10_sum_log10(p[0], p[1]), exact_log10_sum(p[0], p[1]), 1e-4);
    EXPECT_NEAR(approximate_log10_sum_log10(p[1], p[0]), exact_log10_sum(p[0], p[1]), 1e-4);
    EXPECT_NEAR(approximate_log10_sum_log10(p[0], kNegInf), p[0], 1e-4);
  }
  EXPECT_NEAR(approximate_log10_sum_log10(0.0, 0.0), std::log10(2.0), 1e-4);
}

TEST(ActivityMath, ApproximateLog10SumLog10TableRules) {
  // Integer Phred steps are cached exactly: a difference of 0.1 is table entry 1000.
  EXPECT_DOUBLE_EQ(approximate_log10_sum_log10(-3.0, -2.9),
                   -2.9 + std::log10(1 + std::pow(10, -0.1)));
  // Differences of 8 or more add nothing; -infinity returns the other value.
  EXPECT_EQ(approximate_log10_sum_log10(-10.0, -2.0), -2.0);
  EXPECT_EQ(approximate_log10_sum_log10(kNegInf, -2.0), -2.0);
  EXPECT_EQ(approximate_log10_sum_log10(kNegInf, kNegInf), kNegInf);
}

// MathUtilsUnitTest.testLog10sumLog10 (array form), precision 1e-14.
TEST(ActivityMath, Log10SumLog10) {
  const double zeros[] = {0.0, 0.0, 0.0};
  EXPECT_NEAR(log10_sum_log10(zeros), std::log10(3.0), 1e-14);
  EXPECT_NEAR(log10_sum_log10(std::span<const double>(zeros, 2)), std::log10(2.0), 1e-14);
  EXPECT_NEAR(log10_sum_log10(std::span<const double>(zeros, 1)), 0.0, 1e-14);
  const double infinities[] = {kNegInf, kNegInf, kNegInf};
  EXPECT_EQ(log10_sum_log10(infinities), kNegInf);
  const double values[] = {3.0, 2.0, 1.0};
  EXPECT_NEAR(log10_sum_log10(values), std::log10(1000.0 + 100.0 + 10.0), 1e-14);
  EXPECT_EQ(log10_sum_log10(std::span<const double>()), kNegInf);
  const double with_nan[] = {std::numeric_limits<double>::quiet_NaN(), 1.0};
  EXPECT_THROW(log10_sum_log10(with_nan), Error);  // testLog10sumLog10NaN
}

// MathUtilsUnitTest.testNormalDistribution (against the closed form), precision 1e-10.
TEST(ActivityMath, NormalDistribution) {
  for (double mu : {-5.0, -3.2, -1.5, 0.0, 1.2, 3.0, 5.8977}) {
    for (double sigma : {1.2, 3.0, 5.8977}) {
      for (double x : {-5.0, -3.2, -1.5, 0.0, 1.2, 3.0, 5.8977}) {
        const double density = std::exp(-0.5 * ((x - mu) / sigma) * ((x - mu) / sigma)) /
                               (sigma * std::sqrt(2 * std::numbers::pi));
        EXPECT_NEAR(normal_distribution(mu, sigma, x), density, 1e-10);
      }
    }
  }
  EXPECT_THROW(normal_distribution(0, 0, 1), Error);
}

// MathUtilsUnitTest.testRunningAverage (the Java asserts are one-sided; here both sides).
TEST(ActivityMath, RunningAverage) {
  RunningAverage average;
  for (double x : {1, 2, 4, 5, 3, 128, 25678, -24}) average.add(x);
  EXPECT_EQ(average.count, 8);
  EXPECT_NEAR(average.mean, 3224.625, 2e-10);
  EXPECT_NEAR(std::sqrt(average.s / (average.count - 1)), 9072.6515881128, 2e-9);
}

TEST(ActivityMath, QualityConversions) {
  EXPECT_DOUBLE_EQ(qual_to_prob_log10(30), std::log10(0.999));
  EXPECT_DOUBLE_EQ(qual_to_prob_log10(10), std::log10(0.9));
  EXPECT_EQ(qual_to_prob_log10(0), kNegInf);
  EXPECT_NEAR(qual_to_error_prob_log10(30), -3.0, 1e-15);
  EXPECT_NEAR(qual_to_error_prob_log10(45), -4.5, 1e-15);
  EXPECT_DOUBLE_EQ(log10_one_third(), std::log10(1.0 / 3.0));
}

// Commons Math 3.6.1 Gamma.logGamma, one value per branch (x < 0.5, <= 2.5, <= 8, Lanczos).
TEST(ActivityMath, LogGammaMatchesCommonsMath) {
  const double cases[][2] = {{0.01, 4.5994798780420210},
                             {0.3, 1.0957979948180756},
                             {0.49, 0.59224962933526700},
                             {0.5, 0.57236494292470010},
                             {1.0, 0.0},
                             {1.01, -0.0056903079460696510},
                             {2.01, 0.0042600229070983460},
                             {2.5, 0.28468287047291920},
                             {3.5, 1.2009736023470743},
                             {7.9, 8.3242658680088100},
                             {8.0, 8.5251613610654150},
                             {10.0, 12.801827480081469},
                             {10.01, 12.824350262448247},
                             {11.0, 15.104412573075521},
                             {12.0, 17.502307845873887},
                             {20.5, 40.831500974530800},
                             {100.0, 359.13420536957540}};
  for (const auto& c : cases) {
    EXPECT_NEAR(log_gamma(c[0]), c[1],
                4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(c[1])))
        << "x = " << c[0];
  }
  EXPECT_TRUE(std::isnan(log_gamma(0.0)));
  EXPECT_TRUE(std::isnan(log_gamma(-1.0)));
}

TEST(ActivityMath, BinomialCoefficientLogMatchesCommonsMath) {
  EXPECT_EQ(binomial_coefficient_log(2, 0), 0.0);
  EXPECT_EQ(binomial_coefficient_log(2, 2), 0.0);
  EXPECT_DOUBLE_EQ(binomial_coefficient_log(2, 1), 0.69314718055994530);
  EXPECT_DOUBLE_EQ(binomial_coefficient_log(3, 1), 1.0986122886681098);
  EXPECT_DOUBLE_EQ(binomial_coefficient_log(4, 2), 1.7917594692280550);
  EXPECT_DOUBLE_EQ(binomial_coefficient_log(10, 3), 4.7874917427820460);
  EXPECT_DOUBLE_EQ(binomial_coefficient_log(66, 33), 43.423307459400230);
  EXPECT_DOUBLE_EQ(binomial_coefficient_log(100, 50), 66.783841652017430);
  EXPECT_NEAR(binomial_coefficient_log(1500, 700), 1032.5046219409892, 1e-9);
  EXPECT_THROW(binomial_coefficient_log(2, 3), Error);
}

TEST(ActivityMath, MaxElementIndexTakesTheFirstMaximum) {
  const double values[] = {1.0, 3.0, 3.0, 2.0};
  EXPECT_EQ(max_element_index(values), 1);
  EXPECT_THROW(max_element_index(std::span<const double>()), Error);
}

}  // namespace
}  // namespace gpp::stages::call
