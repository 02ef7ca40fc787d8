// Tests of stages/call/read_likelihoods: GATK AlleleLikelihoodsUnitTest.testNormalizeCapWorstLK and
// testFilterPoorlyModeledReads (their rules on a fixed pseudo-random matrix instead of a random
// one), and hand-derived thresholds, caps and the dynamic (DRAGEN) threshold.
#include "stages/call/read_likelihoods.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

/// A fixed pseudo-random read x haplotype matrix with values in (-100, 0].
ReadLikelihoodMatrix pseudo_random_matrix(std::size_t reads, std::size_t haplotypes) {
  ReadLikelihoodMatrix m{{}, reads, haplotypes};
  std::uint64_t state = 12345;
  for (std::size_t i = 0; i < reads * haplotypes; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    m.values.push_back(-static_cast<double>(state >> 40) / static_cast<double>(1ULL << 24) * 100);
  }
  return m;
}

// AlleleLikelihoodsUnitTest.testNormalizeCapWorstLK: each value becomes max(value, best - cap),
// the best taken over every allele (symmetric).
TEST(ReadLikelihoods, NormalizeCapsAtBestMinusCap) {
  for (double cap : {-0.001, -4.5, -30.0}) {
    const ReadLikelihoodMatrix original = pseudo_random_matrix(7, 4);
    ReadLikelihoodMatrix capped = original;
    cap_likelihoods_by_mismapping_rate(capped, cap, true, 0);
    for (std::size_t r = 0; r < 7; ++r) {
      double best = -std::numeric_limits<double>::infinity();
      for (std::size_t h = 0; h < 4; ++h) best = std::max(best, original.at(r, h));
      for (std::size_t h = 0; h < 4; ++h) {
        EXPECT_EQ(capped.at(r, h), std::max(original.at(r, h), best + cap));
      }
    }
  }
}

TEST(ReadLikelihoods, MismappingCapHandCases) {
  EXPECT_DOUBLE_EQ(log10_global_read_mismapping_rate(45), -4.5);
  EXPECT_TRUE(std::isinf(log10_global_read_mismapping_rate(-1)));
  ReadLikelihoodMatrix m{{-10.0, -20.0}, 1, 2};
  cap_likelihoods_by_mismapping_rate(m, -4.5, true, 0);
  EXPECT_EQ(m.values, (std::vector<double>{-10.0, -14.5}));
  // symmetric: the reference may be the best
  ReadLikelihoodMatrix s{{-5.0, -10.0, -20.0}, 1, 3};
  cap_likelihoods_by_mismapping_rate(s, -4.5, true, 0);
  EXPECT_EQ(s.values, (std::vector<double>{-5.0, -9.5, -9.5}));
  // not symmetric: the best is taken over the other haplotypes, the reference is left above it
  ReadLikelihoodMatrix a{{-5.0, -10.0, -20.0}, 1, 3};
  cap_likelihoods_by_mismapping_rate(a, -4.5, false, 0);
  EXPECT_EQ(a.values, (std::vector<double>{-5.0, -10.0, -14.5}));
  ReadLikelihoodMatrix b{{-20.0, -5.0, -10.0}, 1, 3};  // reference in column 1
  cap_likelihoods_by_mismapping_rate(b, -4.5, false, 1);
  EXPECT_EQ(b.values, (std::vector<double>{-14.5, -5.0, -10.0}));
  // one haplotype, or -infinity: unchanged; a rate of 1 (log10 0) is GATK's error
  ReadLikelihoodMatrix one{{-50.0}, 1, 1};
  cap_likelihoods_by_mismapping_rate(one, -4.5, true, 0);
  EXPECT_EQ(one.values, (std::vector<double>{-50.0}));
  ReadLikelihoodMatrix off{{-10.0, -90.0}, 1, 2};
  cap_likelihoods_by_mismapping_rate(off, -std::numeric_limits<double>::infinity(), true, 0);
  EXPECT_EQ(off.values, (std::vector<double>{-10.0, -90.0}));
  EXPECT_THROW(cap_likelihoods_by_mismapping_rate(off, 0.0, true, 0), Error);
}

// ReadLikelihoodCalculationEngine.log10MinTrueLikelihood: -4 * min(2, ceil(0.02 L)).
TEST(ReadLikelihoods, PoorlyModelledThresholds) {
  EXPECT_EQ(log10_min_true_likelihood(0, 0.02), 0.0);
  EXPECT_EQ(log10_min_true_likelihood(1, 0.02), -4.0);
  EXPECT_EQ(log10_min_true_likelihood(50, 0.02), -4.0);
  EXPECT_EQ(log10_min_true_likelihood(51, 0.02), -8.0);
  EXPECT_EQ(log10_min_true_likelihood(100, 0.02), -8.0);
  EXPECT_EQ(log10_min_true_likelihood(151, 0.02), -8.0);
  EXPECT_EQ(log10_min_true_likelihood(151, 0.02, false), -16.0);
  EXPECT_EQ(log10_min_true_likelihood(150, 0.02, false), -12.0);
}

// ReadLikelihoodCalculationEngine.calculateLog10DynamicReadQualThreshold: -(sum of means +
// scale sqrt(sum of variances)) / 10 over the table rows of each quality (<= 1 -> row 1,
// >= 40 -> row 40).
TEST(ReadLikelihoods, DynamicThreshold) {
  EXPECT_NEAR(log10_dynamic_read_qual_threshold(std::vector<std::uint8_t>(100, 2), 1.0),
              -59.87854985468222, 1e-12);
  EXPECT_NEAR(log10_dynamic_read_qual_threshold(std::vector<std::uint8_t>(100, 30), 1.0),
              -1.489994882021385, 1e-12);
  const double row_one = -(5.996842844 + std::sqrt(0.196616587)) * 0.1;
  EXPECT_NEAR(log10_dynamic_read_qual_threshold(std::vector<std::uint8_t>{0}, 1.0), row_one, 1e-15);
  EXPECT_NEAR(log10_dynamic_read_qual_threshold(std::vector<std::uint8_t>{1}, 1.0), row_one, 1e-15);
  EXPECT_NEAR(log10_dynamic_read_qual_threshold(std::vector<std::uint8_t>{1}, 2.0),
              -(5.996842844 + 2 * std::sqrt(0.196616587)) * 0.1, 1e-15);
  EXPECT_EQ(log10_dynamic_read_qual_threshold(std::vector<std::uint8_t>{60}, 1.0),
            log10_dynamic_read_qual_threshold(std::vector<std::uint8_t>{40}, 1.0));
}

// AlleleLikelihoodsUnitTest.testFilterPoorlyModeledReads: the bad rows (here odd rows at
// -10000) go, the others keep their values and order.
TEST(ReadLikelihoods, RemovesPoorlyModelledReadsInOrder) {
  ReadLikelihoodMatrix m = pseudo_random_matrix(6, 3);
  for (std::size_t r = 1; r < 6; r += 2) {
    for (std::size_t h = 0; h < 3; ++h) m.at(r, h) = -10000;
  }
  for (double& v : m.values) v = v > -1000 ? v / 100 - 1 : v;  // good rows in (-2, -1]
  const ReadLikelihoodMatrix original = m;
  const std::vector<std::size_t> lengths(6, 100);
  const auto removed = postprocess_read_likelihoods(m, lengths, {}, 0);
  EXPECT_EQ(removed, (std::vector<std::size_t>{1, 3, 5}));
  ASSERT_EQ(m.read_count, 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    double best = -std::numeric_limits<double>::infinity();
    for (std::size_t h = 0; h < 3; ++h) best = std::max(best, original.at(2 * r, h));
    for (std::size_t h = 0; h < 3; ++h) {
      EXPECT_EQ(m.at(r, h), std::max(original.at(2 * r, h), best - 4.5));
    }
  }
}

TEST(ReadLikelihoods, PostprocessOrderAndDynamicMode) {
  // best -30 for a 100-base read: removed (threshold -8); kept under the dynamic threshold of a
  // low-quality read (-59.9), not of a high-quality one (-8)
  ReadLikelihoodMatrix m{{-30.0, -40.0, -7.9, -100.0}, 2, 2};
  const std::vector<std::size_t> lengths = {100, 100};
  ReadLikelihoodMatrix standard = m;
  EXPECT_EQ(postprocess_read_likelihoods(standard, lengths, {}, 0), (std::vector<std::size_t>{0}));
  EXPECT_EQ(standard.values, (std::vector<double>{-7.9, -12.4}));
  ReadLikelihoodOptions dynamic;
  dynamic.dynamic_read_disqualification = true;
  const std::vector<std::vector<std::uint8_t>> low = {std::vector<std::uint8_t>(100, 2),
                                                      std::vector<std::uint8_t>(100, 30)};
  ReadLikelihoodMatrix d = m;
  EXPECT_TRUE(postprocess_read_likelihoods(d, lengths, low, 0, dynamic).empty());
  const std::vector<std::vector<std::uint8_t>> high = {std::vector<std::uint8_t>(100, 30),
                                                       std::vector<std::uint8_t>(100, 30)};
  d = m;
  EXPECT_EQ(postprocess_read_likelihoods(d, lengths, high, 0, dynamic),
            (std::vector<std::size_t>{0}));
  EXPECT_THROW(postprocess_read_likelihoods(m, std::vector<std::size_t>{100}, {}, 0), Error);
}

}  // namespace
}  // namespace gpp::stages::call
