// Tests of GT/PL/GQ assignment (stages/call/genotype_assignment): cases ported from GATK's
// GATKVariantContextUtilsUnitTest.testMakeGenotypeCall and htsjdk's GenotypeLikelihoodsUnitTest,
// plus hand-derived cases.
#include "stages/call/genotype_assignment.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {
namespace {

// GATKVariantContextUtilsUnitTest.testMakeGenotypeCall feeds MathUtils.normalizeLog10(values).
std::vector<double> normalize_log10(std::vector<double> values) {
  const double log10_sum = log10_sum_log10(values);
  for (double& value : values) value -= log10_sum;
  return values;
}

// htsjdk GenotypeLikelihoodsUnitTest.testFromVector2: {-10.5, -1.25, -5.11} -> "93,0,39"
TEST(GenotypeAssignment, PlsFromLikelihoods) {
  EXPECT_EQ(pls_from_log10_likelihoods(std::vector<double>{-10.5, -1.25, -5.11}),
            (std::vector<int>{93, 0, 39}));
  // Hand: the best is 0 whatever the offset; -infinity saturates at INT_MAX.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(pls_from_log10_likelihoods(std::vector<double>{-100.0, -99.0, -inf}),
            (std::vector<int>{10, 0, INT_MAX}));
  EXPECT_EQ(log10_likelihoods_from_pls(std::vector<int>{0, 934, 15}),
            (std::vector<double>{-0.0, -93.4, -1.5}));
}

// htsjdk GenotypeLikelihoodsUnitTest.testgetQualFromLikelihoods
TEST(GenotypeAssignment, GqLog10FromLikelihoods) {
  const std::vector<double> likelihoods = {-1, 0, -2};
  const double expected[] = {-0.04100161, -1, -0.003930294};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(gq_log10_from_likelihoods(i, likelihoods), expected[i], 1e-6);
  }
  EXPECT_THROW(gq_log10_from_likelihoods(3, likelihoods), Error);
}

// GATKVariantContextUtilsUnitTest.testMakeGenotypeCall, USE_PLS_TO_ASSIGN cases (the Java test
// compares allele sets; the exact genotypes are asserted here).
TEST(GenotypeAssignment, MakeGenotypeCallCases) {
  struct Case {
    int ploidy;
    int allele_count;
    std::vector<double> values;
    std::vector<int> expected;
  };
  const std::vector<Case> cases = {
      {1, 3, {0.9, 0.09, 0.01}, {0}},
      {1, 3, {0.09, 0.9, 0.01}, {1}},
      {1, 3, {0.01, 0.09, 0.9}, {2}},
      {2, 2, {0.9, 0.09, 0.01}, {0, 0}},
      {2, 2, {0.09, 0.9, 0.01}, {0, 1}},
      {2, 2, {0.01, 0.09, 0.9}, {1, 1}},
      {3, 3, {0.9, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09}, {0, 0, 0}},
      {3, 3, {0.01, 0.9, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09}, {0, 0, 1}},
      {3, 3, {0.01, 0.02, 0.9, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09}, {0, 1, 1}},
      {3, 3, {0.01, 0.02, 0.03, 0.9, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09}, {1, 1, 1}},
      {3, 3, {0.01, 0.02, 0.03, 0.04, 0.9, 0.05, 0.06, 0.07, 0.08, 0.09}, {0, 0, 2}},
      {3, 3, {0.01, 0.02, 0.03, 0.04, 0.05, 0.9, 0.06, 0.07, 0.08, 0.09}, {0, 1, 2}},
      {3, 3, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.9, 0.07, 0.08, 0.09}, {1, 1, 2}},
      {3, 3, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.9, 0.08, 0.09}, {0, 2, 2}},
      {3, 3, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.9, 0.09}, {1, 2, 2}},
      {3, 3, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.9}, {2, 2, 2}},
  };
  for (const Case& c : cases) {
    const Genotype call = assign_genotype(c.ploidy, normalize_log10(c.values), c.allele_count);
    EXPECT_EQ(call.alleles, c.expected);
  }
}

// Hand: the first VCF record of GATK's NA12878 golden, PL 934,0,1248, is 0/1 with GQ 99.
TEST(GenotypeAssignment, HetCallWithCappedGq) {
  const Genotype call = assign_genotype(2, std::vector<double>{-93.4, 0.0, -124.8}, 2);
  EXPECT_EQ(call.alleles, (std::vector<int>{0, 1}));
  EXPECT_EQ(call.pls, (std::vector<int>{934, 0, 1248}));
  EXPECT_EQ(call.gq, 99);
  EXPECT_EQ(call.uncapped_gq, 934);
  EXPECT_FALSE(call.is_no_call());
}

// Hand: GQ is the second-smallest PL when the best PL is 0 (GATK golden 20:10004222, PL 50,0,923).
TEST(GenotypeAssignment, GqIsSecondBestPl) {
  const Genotype call = assign_genotype(2, std::vector<double>{-5.0, 0.0, -92.3}, 2);
  EXPECT_EQ(call.gq, 50);
  const Genotype multi =
      assign_genotype(2, log10_likelihoods_from_pls(std::vector<int>{706, 158, 131, 98, 0, 53}), 3);
  EXPECT_EQ(multi.alleles, (std::vector<int>{1, 2}));
  EXPECT_EQ(multi.gq, 53);
}

// makeGenotypeCall: uninformative (all equal) likelihoods give ./. with PL 0,0,0 and GQ 0.
TEST(GenotypeAssignment, AllEqualLikelihoodsAreNoCall) {
  const Genotype call = assign_genotype(2, std::vector<double>{0.0, 0.0, 0.0}, 2);
  EXPECT_TRUE(call.is_no_call());
  EXPECT_EQ(call.alleles, (std::vector<int>{kNoCallAlleleIndex, kNoCallAlleleIndex}));
  EXPECT_EQ(call.pls, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(call.gq, 0);
}

// Hand: hom-ref with log10 GQ -0.05 (> -0.1) is a no-call, and GATK still writes GQ 1
// (round(0.5)); at -0.2 it is a 0/0 call with GQ 2. A tie between 0/1 and 1/1 keeps 0/1.
TEST(GenotypeAssignment, NoCallThresholdAndTies) {
  const Genotype weak = assign_genotype(2, std::vector<double>{0.0, -0.05, -1.0}, 2);
  EXPECT_TRUE(weak.is_no_call());
  EXPECT_EQ(weak.gq, 1);
  const Genotype ref = assign_genotype(2, std::vector<double>{0.0, -0.2, -1.0}, 2);
  EXPECT_EQ(ref.alleles, (std::vector<int>{0, 0}));
  EXPECT_EQ(ref.gq, 2);
  const Genotype tie = assign_genotype(2, std::vector<double>{-3.0, 0.0, 0.0}, 2);
  EXPECT_EQ(tie.alleles, (std::vector<int>{0, 1}));
  EXPECT_EQ(tie.gq, 0);
  // Hom-ref tied with 0/1: hom-ref wins the tie with log10 GQ 0, hence ./.
  const Genotype ref_tie = assign_genotype(2, std::vector<double>{0.0, 0.0, -3.0}, 2);
  EXPECT_TRUE(ref_tie.is_no_call());
}

// Hand: haploid calls; with a single allele there is no GQ.
TEST(GenotypeAssignment, HaploidAndReferenceOnly) {
  const Genotype alt = assign_genotype(1, std::vector<double>{-4.0, 0.0}, 2);
  EXPECT_EQ(alt.alleles, (std::vector<int>{1}));
  EXPECT_EQ(alt.gq, 40);
  const Genotype ref_only = assign_genotype(2, std::vector<double>{0.0}, 1);
  EXPECT_EQ(ref_only.alleles, (std::vector<int>{0, 0}));
  EXPECT_EQ(ref_only.gq, -1);
  EXPECT_THROW(assign_genotype(2, std::vector<double>{0.0, -1.0}, 2), Error);
}

}  // namespace
}  // namespace gpp::stages::call
