// Tests of stages/call/best_haplotype: GATK's AlleleLikelihoodsUnitTest.testBestAlleles (its
// allele sets, likelihoods -|N(0,1)| from a fixed generator instead of GATK's seeded Random, and
// its expected best allele / likelihood / confidence under reference tie-breaking), plus cases
// derived by hand for HAPLOTYPE_ALIGNMENT_TIEBREAKING_PRIORITY.
#include "stages/call/best_haplotype.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// -|N(0, 1)| by Box-Muller over a fixed linear congruential generator.
class NegativeHalfNormal {
 public:
  double next() {
    const double u1 = uniform();
    const double u2 = uniform();
    return -std::fabs(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }

 private:
  double uniform() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state_ >> 11) + 1.0) / 9007199254740993.0;  // (0, 1]
  }
  std::uint64_t state_ = 42;
};

// AlleleLikelihoodsUnitTest.ALLELE_SETS: the reference allele's index in each set (-1: none) and
// the set's size; dataSetReads: up to 99 reads per sample.
struct AlleleSet {
  int size;
  int reference;
};
constexpr AlleleSet kAlleleSets[] = {{3, 0}, {1, 0}, {2, 1}, {2, 1}, {2, -1}};

// AlleleLikelihoodsUnitTest.testBestAlleles: best = the first highest likelihood unless the
// reference is within LOG_10_INFORMATIVE_THRESHOLD of it, in which case the reference wins with
// confidence L(ref) - L(best).
TEST(BestAlleleByPriority, GatkTestBestAlleles) {
  NegativeHalfNormal random;
  int overrides = 0;
  for (const AlleleSet& set : kAlleleSets) {
    std::vector<double> priorities(set.size, 0.0);
    if (set.reference >= 0) priorities[set.reference] = 1.0;
    for (int read = 0; read < 97; ++read) {
      std::vector<double> likelihoods(set.size);
      for (double& l : likelihoods) l = random.next();
      int best_index = -1;
      double best = -kInfinity;
      double second = -kInfinity;
      for (int a = 0; a < set.size; ++a) {
        if (likelihoods[a] > best) {
          second = best;
          best = likelihoods[a];
          best_index = a;
        } else if (likelihoods[a] > second) {
          second = likelihoods[a];
        }
      }
      const double ref_likelihood = set.reference >= 0 ? likelihoods[set.reference] : -kInfinity;
      const bool ref_override = set.reference >= 0 && set.reference != best_index &&
                                best - ref_likelihood < kLog10InformativeThreshold;
      overrides += ref_override ? 1 : 0;
      const BestAllele result = best_allele_by_priority(likelihoods, priorities);
      EXPECT_EQ(likelihoods[result.allele], ref_override ? ref_likelihood : best);
      EXPECT_EQ(result.allele, ref_override ? set.reference : best_index);
      const double confidence = ref_override ? ref_likelihood - best : best - second;
      if (std::isinf(confidence)) {  // one allele: TestNG's delta comparison accepts inf == inf
        EXPECT_EQ(result.confidence, confidence);
      } else {
        EXPECT_NEAR(result.confidence, confidence, 1e-9);
      }
      // the annotations' reference-only tie-breaking is the same search
      const BestAllele annotation = best_allele_breaking_ties(likelihoods, set.reference);
      EXPECT_EQ(annotation.allele, result.allele);
      EXPECT_EQ(annotation.second_allele, result.second_allele);
      EXPECT_EQ(annotation.confidence, result.confidence);
    }
  }
  EXPECT_GT(overrides, 10);  // the data exercise the tie-breaking
}

Haplotype haplotype(const char* cigar, bool is_reference) {
  Haplotype h;
  h.cigar = test::cigar_of(cigar);
  h.is_reference = is_reference;
  return h;
}

TEST(HaplotypeAlignmentTiebreakingPriority, ReferenceTermPlusOneMinusElements) {
  EXPECT_EQ(haplotype_alignment_tiebreaking_priority(haplotype("12M", true)), 1.0);
  EXPECT_EQ(haplotype_alignment_tiebreaking_priority(haplotype("12M", false)), 0.0);
  EXPECT_EQ(haplotype_alignment_tiebreaking_priority(haplotype("5M1D6M", false)), -2.0);
  EXPECT_EQ(haplotype_alignment_tiebreaking_priority(haplotype("5M1I1D6M", true)), -2.0);
  EXPECT_EQ(haplotype_alignment_tiebreaking_priority(haplotype("", true)), 1.0);  // no CIGAR
  EXPECT_EQ(haplotype_alignment_tiebreaking_priority(haplotype("", false)), 0.0);
}

// Haplotypes: 0 = reference 12M (priority 1), 1 = 5M1D6M (-2), 2 = SNP haplotype 12M (0).
const std::vector<Haplotype> kHaplotypes = {haplotype("12M", true), haplotype("5M1D6M", false),
                                            haplotype("12M", false)};

std::vector<BestAllele> best_of(const std::vector<double>& matrix) {
  return best_haplotypes_breaking_ties(matrix, kHaplotypes);
}

// By hand: best -1.0 (haplotype 1), runner-up -1.05 (2): a near-tie, so every haplotype within 0.2
// of -1.0 competes on priority; the reference (-1.1, priority 1) wins, the SNP haplotype (priority
// 0 > -2) becomes the runner-up, and the confidence is -1.1 - (-1.05) < 0.
TEST(BestHaplotypesBreakingTies, NearTieGoesToTheReference) {
  const BestAllele b = best_of({-1.1, -1.0, -1.05})[0];
  EXPECT_EQ(b.allele, 0);
  EXPECT_EQ(b.second_allele, 2);
  EXPECT_DOUBLE_EQ(b.confidence, -1.1 - -1.05);
  EXPECT_FALSE(b.informative);
}

// By hand: the reference at -1.25 is more than 0.2 below the best (-1.0), so it may not compete;
// the SNP haplotype (-1.1, simpler CIGAR) takes the read from the deletion haplotype.
TEST(BestHaplotypesBreakingTies, SimplerCigarWinsAmongAlternates) {
  const BestAllele b = best_of({-1.25, -1.0, -1.1})[0];
  EXPECT_EQ(b.allele, 2);
  EXPECT_EQ(b.second_allele, 1);
  EXPECT_DOUBLE_EQ(b.confidence, -1.1 - -1.0);
  EXPECT_FALSE(b.informative);
}

// By hand: a clear winner keeps its place whatever the priorities; the runner-up is the first of
// two equal likelihoods; rows are independent.
TEST(BestHaplotypesBreakingTies, InformativeReadsAndRows) {
  const std::vector<BestAllele> b = best_of({-5.0, -1.0, -5.0,    // row 0: haplotype 1
                                             -2.0, -9.0, -2.25,   // row 1: reference, 0.25 clear
                                             -3.0, -3.0, -3.0});  // row 2: all tied
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].allele, 1);
  EXPECT_EQ(b[0].second_allele, 0);
  EXPECT_DOUBLE_EQ(b[0].confidence, 4.0);
  EXPECT_TRUE(b[0].informative);
  EXPECT_EQ(b[1].allele, 0);
  EXPECT_EQ(b[1].second_allele, 2);
  EXPECT_DOUBLE_EQ(b[1].confidence, 0.25);
  EXPECT_TRUE(b[1].informative);
  EXPECT_EQ(b[2].allele, 0);  // reference already best and of the highest priority
  EXPECT_EQ(b[2].second_allele, 2);
  EXPECT_EQ(b[2].confidence, 0.0);
  EXPECT_FALSE(b[2].informative);
}

// By hand: equal priorities keep the first; one allele is informative against -infinity; all
// -infinity is a tie with confidence 0 (no tie-breaking, since -inf - -inf is NaN).
TEST(BestAlleleByPriority, EdgeCases) {
  BestAllele b =
      best_allele_by_priority(std::vector<double>{-2.0, -2.0}, std::vector<double>{0, 0});
  EXPECT_EQ(b.allele, 0);
  EXPECT_EQ(b.second_allele, 1);
  EXPECT_EQ(b.confidence, 0.0);

  b = best_allele_by_priority(std::vector<double>{-3.0}, std::vector<double>{1});
  EXPECT_EQ(b.allele, 0);
  EXPECT_EQ(b.second_allele, -1);
  EXPECT_EQ(b.confidence, kInfinity);
  EXPECT_TRUE(b.informative);

  b = best_allele_by_priority(std::vector<double>{-kInfinity, -kInfinity},
                              std::vector<double>{0, 1});
  EXPECT_EQ(b.allele, 0);
  EXPECT_EQ(b.second_allele, -1);
  EXPECT_EQ(b.confidence, 0.0);
  EXPECT_FALSE(b.informative);

  // no priorities: no tie-breaking at all
  b = best_allele_by_priority(std::vector<double>{-1.1, -1.0}, {});
  EXPECT_EQ(b.allele, 1);
  EXPECT_NEAR(b.confidence, 0.1, 1e-12);

  EXPECT_EQ(best_allele_by_priority({}, {}).allele, -1);
  EXPECT_THROW(best_allele_by_priority(std::vector<double>{-1.0, -2.0}, std::vector<double>{1}),
               Error);
}

TEST(BestHaplotypesBreakingTies, RejectsBadMatrices) {
  EXPECT_THROW(best_of({-1.0, -2.0}), Error);
  EXPECT_THROW(best_haplotypes_breaking_ties(std::vector<double>{-1.0}, {}), Error);
  EXPECT_TRUE(best_haplotypes_breaking_ties({}, {}).empty());
}

}  // namespace
}  // namespace gpp::stages::call
