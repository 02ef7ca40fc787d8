// Tests of genotype likelihoods (stages/call/genotype_likelihoods) and the log10 arithmetic under
// them (stages/call/log10_math): GATK's GenotypeLikelihoodCalculatorUnitTest ported, values from
// GATK's own GenotypeLikelihoodCalculator, and hand-derived cases.
#include "stages/call/genotype_likelihoods.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {
namespace {

// ReadLikelihoodsUnitTester.testLikelihood: -|(3(s+1) + 7(a+1) + 11(r+1)) mod 13|
double test_likelihood(int sample, int allele, int read) {
  return -std::abs((3 * (sample + 1) + 7 * (allele + 1) + 11 * (read + 1)) % 13);
}

// GenotypeLikelihoodCalculatorUnitTest.testLikelihoodCalculation: every genotype against the
// direct formula (approximateLog10SumLog10 of count-weighted components per read), relative
// tolerance 1e-4, over PLOIDY x MAXIMUM_ALLELE x READ_COUNTS.
TEST(GenotypeLikelihoods, MatchesDirectFormula) {
  const int ploidies[] = {1, 2, 3, 20};
  const int allele_counts[] = {1, 2, 5, 6};
  const std::vector<std::vector<int>> read_counts = {
      {10, 100, 50}, {0, 100, 10, 1, 50}, {1, 2, 3, 4, 20}, {10, 0}};
  for (const int ploidy : ploidies) {
    for (const int alleles : allele_counts) {
      for (const auto& per_sample : read_counts) {
        for (int s = 0; s < static_cast<int>(per_sample.size()); ++s) {
          const int reads = per_sample[s];
          std::vector<double> values(static_cast<std::size_t>(alleles) * reads);
          for (int a = 0; a < alleles; ++a) {
            for (int r = 0; r < reads; ++r) values[a * reads + r] = test_likelihood(s, a, r);
          }
          const AlleleLikelihoodMatrix matrix{values, alleles, reads};
          const std::vector<double> result = log10_genotype_likelihoods(ploidy, matrix);
          GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(ploidy);
          for (std::size_t g = 0; g < result.size(); ++g, genotype.increase()) {
            double expected = 0.0;
            for (int r = 0; r < reads; ++r) {
              std::vector<double> components;
              genotype.for_each_allele_index_and_count([&](int a, int count) {
                components.push_back(matrix.at(a, r) + std::log10(count));
              });
              expected += approximate_log10_sum_log10(components) - std::log10(ploidy);
            }
            ASSERT_NEAR(result[g], expected, 1e-4 * std::abs(expected))
                << "ploidy " << ploidy << " alleles " << alleles << " " << genotype.to_string();
          }
        }
      }
    }
  }
}

// Values computed by GATK's GenotypeLikelihoodCalculator.log10GenotypeLikelihoods itself (the
// class compiled from GATK HEAD 51797aa and run on these matrices), covering the homozygous,
// two-allele and three-or-more-allele code paths.
struct GatkGenotypeLikelihoodCase {
  int ploidy;
  int alleles;
  int reads;
  std::vector<double> values;
  std::vector<double> expected;
};

TEST(GenotypeLikelihoods, MatchesGatkValues) {
  const std::vector<GatkGenotypeLikelihoodCase> cases = {
#include "tests/stages/call/gatk_genotype_likelihood_cases.inc"
  };
  for (const auto& c : cases) {
    const auto result = log10_genotype_likelihoods(c.ploidy, {c.values, c.alleles, c.reads});
    ASSERT_EQ(result.size(), c.expected.size());
    for (std::size_t g = 0; g < result.size(); ++g) {
      EXPECT_NEAR(result[g], c.expected[g], 1e-12) << "ploidy " << c.ploidy << " genotype " << g;
    }
  }
}

// Hand-derived: one read, L(ref) = 0.1, L(alt) = 0.001.
TEST(GenotypeLikelihoods, DiploidSingleRead) {
  const std::vector<double> values = {-1.0, -3.0};
  const auto gl = log10_genotype_likelihoods(2, {values, 2, 1});
  ASSERT_EQ(gl.size(), 3u);
  EXPECT_DOUBLE_EQ(gl[0], -1.0);
  EXPECT_NEAR(gl[1], std::log10((0.1 + 0.001) / 2), 1e-8);  // table approximation
  EXPECT_DOUBLE_EQ(gl[2], -3.0);
}

// Hand-derived: triploid 0/1/2 over one read is log10((La + Lb + Lc) / 3) exactly (linear path).
TEST(GenotypeLikelihoods, TriploidThreeAlleleGenotypeIsExact) {
  const std::vector<double> values = {-1.0, -2.0, -0.5};
  const auto gl = log10_genotype_likelihoods(3, {values, 3, 1});
  const int index = alleles_to_index(std::vector<int>{0, 1, 2});
  EXPECT_NEAR(gl[index], std::log10((0.1 + 0.01 + std::pow(10.0, -0.5)) / 3), 1e-14);
}

TEST(GenotypeLikelihoods, NoReadsGiveZeros) {
  const auto gl = log10_genotype_likelihoods(2, {std::span<const double>(), 3, 0});
  EXPECT_EQ(gl, std::vector<double>(6, 0.0));
}

TEST(GenotypeLikelihoods, RejectsInconsistentInput) {
  const std::vector<double> values = {-1.0, -2.0, -3.0};
  EXPECT_THROW(log10_genotype_likelihoods(2, {values, 2, 2}), Error);
  EXPECT_THROW(log10_genotype_likelihoods(0, {values, 3, 1}), Error);
  EXPECT_THROW(log10_genotype_likelihoods(2, {values, 0, 0}), Error);
}

// Hand-derived table behaviour of approximateLog10SumLog10: exact at table points, no correction
// past a difference of 8, -infinity as zero.
TEST(Log10Math, ApproximateSum) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(approximate_log10_sum_log10(0.0, 0.0), std::log10(2.0), 1e-15);
  EXPECT_NEAR(approximate_log10_sum_log10(-1.0, -3.0), std::log10(0.101), 1e-15);
  EXPECT_EQ(approximate_log10_sum_log10(-10.0, -1.0), -1.0);  // 9 apart: nothing added
  EXPECT_EQ(approximate_log10_sum_log10(-inf, -2.5), -2.5);
  EXPECT_EQ(approximate_log10_sum_log10(-inf, -inf), -inf);
  const std::vector<double> values = {-1.0, -inf, -1.0, -1.0};
  EXPECT_NEAR(approximate_log10_sum_log10(values), std::log10(0.3), 1e-4);
}

TEST(Log10Math, ExactSums) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(log10_sum_log10(-1.0, -2.0), std::log10(0.11), 1e-15);
  const std::vector<double> values = {-1.0, -inf, -2.0, -3.0};
  EXPECT_NEAR(log10_sum_log10(values), std::log10(0.111), 1e-15);
  EXPECT_EQ(log10_sum_log10(std::vector<double>{}), -inf);
  EXPECT_EQ(log10_sum_log10(std::vector<double>{-inf, -inf}), -inf);
  EXPECT_THROW(log10_sum_log10(std::vector<double>{0.0, std::nan("")}), Error);
  EXPECT_NEAR(log10_one_minus_pow10(-1.0), std::log10(0.9), 1e-15);
  EXPECT_NEAR(log10_one_minus_pow10(-100.0), -1e-100 / std::log(10.0), 1e-114);
  EXPECT_EQ(log10_one_minus_pow10(0.0), -inf);
  EXPECT_TRUE(std::isnan(log10_one_minus_pow10(0.5)));
}

// Java Math.round: halves go up, also for negatives.
TEST(Log10Math, JavaRound) {
  EXPECT_EQ(java_round(2.5), 3);
  EXPECT_EQ(java_round(-2.5), -2);
  EXPECT_EQ(java_round(0.49999999999999994), 0);
  EXPECT_EQ(java_round(92.66), 93);
  EXPECT_EQ(java_round(std::nan("")), 0);
}

TEST(Log10Math, LogFactorialAndMaxIndex) {
  EXPECT_NEAR(log_factorial(5), std::log(120.0), 1e-15);
  EXPECT_NEAR(log_factorial(25), std::lgamma(26.0), 1e-12);
  EXPECT_EQ(max_element_index(std::vector<double>{1.0, 3.0, 3.0, 2.0}), 1);
  EXPECT_THROW(max_element_index(std::vector<double>{}), Error);
}

}  // namespace
}  // namespace gpp::stages::call
