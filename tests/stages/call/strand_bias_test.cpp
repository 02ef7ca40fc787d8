// FS and SOR (stages/call/annotations/strand_bias, fisher_exact_test, and their use in
// annotate_site). Cases marked with a GATK test name port FisherStrandUnitTest /
// StrandOddsRatioUnitTest (src/test/.../tools/walkers/annotator) with the same inputs and expected
// values; FS strings marked "GATK FisherExactTest.java" were printed by GATK's FisherExactTest
// compiled against commons-math 3.6.1 (OpenJDK 17).
#include "stages/call/annotations/strand_bias.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "stages/call/annotations/fisher_exact_test.hpp"
#include "stages/call/annotations/site_annotations.hpp"
#include "tests/stages/call/annotation_test_sites.hpp"

namespace gpp::stages::call {
namespace {

using namespace annotation_testing;

ContingencyTable table(int ref_forward, int ref_reverse, int alt_forward, int alt_reverse) {
  return {{{ref_forward, ref_reverse}, {alt_forward, alt_reverse}}};
}

double phred(double p) { return std::fabs(-10.0 * std::log10(std::max(p, 1e-320))); }

// FisherStrandUnitTest.testUsingTableData (p-values from R's fisher.test on the normalized table).
TEST(FisherStrand, UsingTableData) {
  struct Case {
    int a, b, c, d;
    double p;
  };
  const Case cases[] = {
      {9, 11, 12, 10, 0.7578618},
      {12, 10, 9, 11, 0.7578618},
      {9, 10, 12, 10, 0.7578618},
      {9, 9, 12, 10, 1.0},
      {9, 13, 12, 10, 0.5466948},
      {12, 10, 9, 13, 0.5466948},
      {9, 12, 11, 9, 0.5377362},
      {0, 0, 0, 3, 1.0},
      {9, 0, 0, 0, 1.0},
      {0, 200, 200, 0, 1.942643e-119},
      {0, 0, 0, 0, 1.0},
      {100000, 100000, 100000, 100000, 1.0},
      {0, 0, 100000, 100000, 1.0},
      {100000, 100000, 100000, 0, 1.312515e-15},
      {100, 100, 100, 0, 3.730187e-23},
      {13736, 9047, 41, 1433, 6.162592e-05},
      {66, 14, 64, 4, 4.243330e-02},
      {351169, 306836, 153739, 2379, 2.193607e-09},
      {116449, 131216, 289, 16957, 1.340052e-03},
      {137, 159, 9, 23, 6.088506e-02},
      {129, 90, 21, 20, 3.919603e-01},
      {14054, 9160, 16, 7827, 7.466277e-17},
      {32803, 9184, 32117, 3283, 1.795855e-02},
      {2068, 6796, 1133, 0, 5.919091e-13},
  };
  for (const Case& c : cases) {
    const double p = fisher_strand_p_value(table(c.a, c.b, c.c, c.d));
    EXPECT_NEAR(p, c.p, 10e-8) << c.a << "," << c.b << "," << c.c << "," << c.d;
    EXPECT_NEAR(std::stod(fisher_strand_value_text(p)), phred(c.p), 0.001);
  }
}

// FisherStrandUnitTest.testUsingOverflowTable: the table total overflows Java int.
TEST(FisherStrand, OverflowThrows) {
  constexpr int kMax = 2147483647;
  EXPECT_THROW(fisher_strand_p_value(table(kMax, kMax, kMax, kMax)), Error);
  EXPECT_THROW(fisher_strand_p_value(table(0, 0, kMax, kMax)), Error);
  EXPECT_THROW(fisher_strand_p_value(table(kMax, kMax, kMax, 0)), Error);
}

// FisherStrandUnitTest.testUsingGT's table, and GATK FisherExactTest.java values.
TEST(FisherStrand, ValueText) {
  const double p = fisher_strand_p_value(table(1, 2, 3, 4));
  EXPECT_NEAR(std::pow(10, std::stod(fisher_strand_text(table(1, 2, 3, 4))) / -10.0), p, 10e-8);
  EXPECT_EQ(fisher_strand_text(table(9, 11, 12, 10)), "1.204");
  EXPECT_EQ(fisher_strand_text(table(10, 0, 0, 10)), "49.656");
  EXPECT_EQ(fisher_strand_text(table(20, 2, 3, 15)), "56.092");
  EXPECT_EQ(fisher_strand_text(table(0, 0, 0, 0)), "0.000");
  EXPECT_EQ(fisher_strand_value_text(0.0), "3200.000");  // p floored at 1e-320
}

// FisherStrandUnitTest.testUsingLikelihoods: 2 forward REF reads, ALT reads one per strand.
TEST(FisherStrand, UsingLikelihoods) {
  const SiteEvidence site = biallelic_site(reads(2), {kReverseRead, kForwardRead});
  const SiteAnnotations a = annotate_site(site);
  const double p = fisher_strand_p_value(table(2, 0, 1, 1));
  EXPECT_NEAR(std::stod(*info_value(a, "FS")), phred(p), 0.001);
  EXPECT_EQ(info_value(a, "FS"), "0.000");
}

// FisherStrandUnitTest.testUsingLikelihoods_Raw's table {{4,0},{2,2}}: AS_FisherStrand prints
// "3.680", the value FisherStrand gives the same table.
TEST(FisherStrand, UsingLikelihoodsFourByFour) {
  const SiteEvidence site =
      biallelic_site(reads(4), {kReverseRead, kForwardRead, kReverseRead, kForwardRead});
  EXPECT_EQ(info_value(annotate_site(site), "FS"), "3.680");
}

// FisherStrandUnitTest.testEmptyIfNonVariant.
TEST(FisherStrand, EmptyIfNonVariant) {
  SiteEvidence site = biallelic_site(reads(3), {});
  site.call_alleles = {0};  // the call kept only REF
  site.samples = {{{0, 0}, {0}}};
  const SiteAnnotations a = annotate_site(site);
  EXPECT_FALSE(info_value(a, "FS"));
  EXPECT_FALSE(info_value(a, "SOR"));
}

TEST(FisherStrand, SampleNeedsMoreThanTwoReads) {
  // Sample 0: 2 informative reads (not > 2): left out of FS, kept for SOR.
  SiteEvidence site = biallelic_site({kForwardRead}, {kReverseRead}, -100, -100,
                                     {{{0, 1}, {30, 0, 190}}, {{0, 1}, {30, 0, 190}}});
  for (int i = 0; i < 3; ++i) add_read(site, kForwardRead.in_sample(1), {kMatchLikelihood, -100});
  add_read(site, kForwardRead.in_sample(1), {-100, kMatchLikelihood});
  const SiteAnnotations a = annotate_site(site);
  EXPECT_EQ(info_value(a, "FS"), fisher_strand_text(table(3, 0, 1, 0)));
  EXPECT_EQ(info_value(a, "SOR"), strand_odds_ratio_text(table(4, 0, 1, 1)));
}

// StrandOddsRatioUnitTest.testUsingSOR.
TEST(StrandOddsRatio, UsingSor) {
  constexpr double kLogOfTwo = 0.6931472;
  constexpr int kMax = 2147483647;
  struct Case {
    int a, b, c, d;
    double sor;
  };
  const Case cases[] = {
      {0, 0, 0, 0, kLogOfTwo},
      {100000, 100000, 100000, 100000, kLogOfTwo},
      {kMax, kMax, kMax, kMax, kLogOfTwo},
      {0, 0, 100000, 100000, kLogOfTwo},
      {0, 0, kMax, kMax, kLogOfTwo},
      {100000, 100000, 100000, 0, 23.02587},
      {100, 100, 100, 0, 9.230339},
      {kMax, kMax, kMax, 0, 42.97513},
      {13736, 9047, 41, 1433, 7.061479},
      {66, 14, 64, 4, 2.248203},
      {351169, 306836, 153739, 2379, 8.066731},
      {116449, 131216, 289, 16957, 7.898818},
      {137, 159, 9, 23, 1.664854},
      {129, 90, 21, 20, 0.4303384},
      {14054, 9160, 16, 7827, 12.2645},
      {32803, 9184, 32117, 3283, 2.139932},
      {2068, 6796, 1133, 0, 14.06701},
  };
  for (const Case& c : cases) {
    const ContingencyTable t = table(c.a, c.b, c.c, c.d);
    EXPECT_NEAR(strand_odds_ratio(t), c.sor, 0.001);
    EXPECT_NEAR(std::stod(strand_odds_ratio_text(t)), c.sor, 0.001);
  }
}

// StrandOddsRatioUnitTest.testUsingGT's table and testUsingLikelihoods (REF {2,0}, ALT {1,1});
// strings from GATK's calculateSOR + String.format.
TEST(StrandOddsRatio, UsingLikelihoods) {
  EXPECT_EQ(strand_odds_ratio_text(table(1, 2, 3, 4)), "0.527");
  const SiteEvidence site = biallelic_site(reads(2), {kReverseRead, kForwardRead});
  const SiteAnnotations a = annotate_site(site);
  EXPECT_NEAR(std::stod(*info_value(a, "SOR")), strand_odds_ratio(table(2, 0, 1, 1)), 0.001);
  EXPECT_EQ(info_value(a, "SOR"), "0.105");
  EXPECT_EQ(strand_odds_ratio_text(table(10, 0, 0, 10)), "4.796");
}

TEST(StrandBias, OnlyInformativeReadsOfCalledAllelesCount) {
  SiteEvidence site;
  site.likelihood_allele_count = 3;  // REF, ALT1, ALT2; the call dropped ALT2
  site.call_alleles = {0, 1};
  site.samples = {{{0, 1}, {30, 0, 190}}};
  for (int i = 0; i < 4; ++i) add_read(site, kForwardRead, {-1, -100, -100});  // REF fwd
  add_read(site, kReverseRead, {-100, -1, -100});                              // ALT1 rev
  add_read(site, kReverseRead, {-100, -100, -1});                              // ALT2: none
  add_read(site, kReverseRead, {-1.05, -1.0, -100});                           // near-tie
  const SiteAnnotations a = annotate_site(site);
  EXPECT_EQ(info_value(a, "FS"), fisher_strand_text(table(4, 0, 0, 1)));
  EXPECT_EQ(info_value(a, "SOR"), strand_odds_ratio_text(table(4, 0, 0, 1)));
}

TEST(FisherExactTest, HypergeometricLogProbability) {
  // P(X = 1) drawing 3 from 4 with 2 successes: C(2,1) C(2,2) / C(4,3) = 1/2.
  EXPECT_NEAR(hypergeometric_log_probability(1, 4, 2, 3), std::log(0.5), 1e-15);
  EXPECT_NEAR(hypergeometric_log_probability(5, 20, 10, 10), std::log(63504.0 / 184756.0), 1e-14);
  EXPECT_TRUE(std::isinf(hypergeometric_log_probability(0, 4, 2, 3)));
}

}  // namespace
}  // namespace gpp::stages::call
