// AC / AF / AN, MLEAC / MLEAF and ExcessHet (stages/call/annotations/genotype_counts and
// annotate_site). Cases named after a GATK test port ChromosomeCountsUnitTest and ExcessHetUnitTest
// with their inputs and expected values.
#include "stages/call/annotations/genotype_counts.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/annotations/site_annotations.hpp"
#include "tests/stages/call/annotation_test_sites.hpp"

namespace gpp::stages::call {
namespace {

using namespace annotation_testing;

constexpr double kDelta = 1e-6;       // ExcessHetUnitTest.DELTA_PRECISION
constexpr double kDeltaParse = 1e-3;  // ExcessHetUnitTest.DELTA_PRECISION_PARSE

Genotype g(int a1, int a2, std::vector<int> pls) { return {{a1, a2}, std::move(pls)}; }

double excess_het(const std::vector<Genotype>& genotypes, int allele_count) {
  return excess_het_phred(diploid_genotype_counts(genotypes, allele_count));
}

// ChromosomeCountsUnitTest.testVC: two 0/1 samples.
TEST(ChromosomeCounts, TwoHets) {
  const std::vector<Genotype> genotypes = {g(0, 1, {30, 0, 190}), g(0, 1, {30, 0, 190})};
  const auto counts = chromosome_counts(genotypes, 1);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->allele_number, 4);
  EXPECT_EQ(counts->allele_counts, std::vector<int>{2});
  EXPECT_EQ(counts->allele_frequencies, std::vector<double>{0.5});
  const SiteAnnotations a = annotate_site(biallelic_site({}, {}, -100, -100, genotypes));
  EXPECT_EQ(info_value(a, "AN"), "4");
  EXPECT_EQ(info_value(a, "AC"), "2");
  EXPECT_EQ(info_value(a, "AF"), "0.500");
}

// ChromosomeCountsUnitTest.testEmptyVC; an all-no-call site writes nothing either.
TEST(ChromosomeCounts, EmptyWithoutCalledAlleles) {
  EXPECT_FALSE(chromosome_counts({}, 1));
  EXPECT_FALSE(chromosome_counts(std::vector<Genotype>{{{-1, -1}, {}}}, 1));
  const SiteAnnotations a = annotate_site(biallelic_site({}, {}, -100, -100, {{{-1, -1}, {}}}));
  EXPECT_FALSE(info_value(a, "AN"));
  EXPECT_FALSE(info_value(a, "AF"));
}

TEST(ChromosomeCounts, MultiAllelicAndMixed) {
  // 1/2, 0/2, ./1: AN = 5, AC = 2,2, AF = 0.4,0.4.
  const std::vector<Genotype> genotypes = {{{1, 2}, {}}, {{0, 2}, {}}, {{-1, 1}, {}}};
  const auto counts = chromosome_counts(genotypes, 2);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->allele_number, 5);
  EXPECT_EQ(counts->allele_counts, (std::vector<int>{2, 2}));
  EXPECT_EQ(mle_allele_frequencies(std::vector<int>{2, 6}, genotypes),
            (std::vector<double>{0.4, 1.0}));  // capped at 1
}

TEST(MleAlleleCounts, WrittenAsLists) {
  SiteEvidence site = biallelic_site(reads(2), reads(2));
  site.mle_allele_counts = {1};
  const SiteAnnotations a = annotate_site(site);
  EXPECT_EQ(info_value(a, "MLEAC"), "1");
  EXPECT_EQ(info_value(a, "MLEAF"), "0.500");
  site.mle_allele_counts = {1, 2};
  EXPECT_THROW(annotate_site(site), Error);
}

// ExcessHetUnitTest.testPositiveZeroPhredScore: 101 genotypes whose PLs say hom-ref.
TEST(ExcessHet, PositiveZeroPhredScore) {
  const std::vector<Genotype> genotypes(101, g(0, 1, {0, 1000, 1000}));
  EXPECT_NEAR(excess_het(genotypes, 2), 0.0, kDelta);
  EXPECT_EQ(excess_het_text(genotypes, 2), "0.0000");  // not "-0.0000"
}

std::vector<Genotype> compound_het_genotypes(bool flip) {
  return {g(0, 1, {2530, 0, 7099, 366, 3056, 14931}),
          g(1, 1, {7099, 2530, 0, 7099, 366, 3056}),
          g(1, 2, {7099, 2530, 7099, 3056, 0, 14931}),
          flip ? g(1, 0, {2530, 0, 7099, 366, 3056, 14931})
               : g(0, 1, {2530, 0, 7099, 366, 3056, 14931}),
          g(1, 1, {7099, 2530, 0, 7099, 366, 3056}),
          g(0, 1, {2530, 0, 7099, 366, 3056, 14931}),
          g(1, 1, {7099, 2530, 0, 7099, 366, 3056}),
          g(0, 1, {2530, 0, 7099, 366, 3056, 14931}),
          g(1, 1, {7099, 2530, 0, 7099, 366, 3056}),
          g(0, 1, {2530, 0, 7099, 366, 3056, 14931})};
}

// ExcessHetUnitTest.testExcessHetForMultiallelicVCCompoundHets / ...RefAltFlip.
TEST(ExcessHet, MultiallelicCompoundHets) {
  EXPECT_NEAR(excess_het(compound_het_genotypes(false), 3), 2.8389324060524004, kDelta);
  EXPECT_NEAR(excess_het(compound_het_genotypes(true), 3), 2.8389324060524004, kDelta);
}

std::vector<Genotype> different_alt_genotypes() {
  return {
      g(0, 2, {4878, 1623, 11297, 0, 7970, 8847}),   g(0, 1, {2530, 0, 7099, 366, 3056, 14931}),
      g(0, 1, {3382, 0, 6364, 1817, 5867, 12246}),   g(0, 1, {2488, 0, 9110, 3131, 9374, 12505}),
      g(0, 2, {4530, 2006, 18875, 0, 6847, 23949}),  g(0, 1, {5325, 0, 18692, 389, 16014, 24570}),
      g(0, 1, {2936, 0, 29743, 499, 21979, 38630}),  g(0, 1, {6902, 0, 8976, 45, 5844, 9061}),
      g(0, 1, {5732, 0, 10876, 6394, 11408, 17802}), g(0, 1, {2780, 0, 25045, 824, 23330, 30939})};
}

// ExcessHetUnitTest.testExcessHetForMultiallelicVCDifferentAlts.
TEST(ExcessHet, MultiallelicDifferentAlts) {
  const auto genotypes = different_alt_genotypes();
  EXPECT_NEAR(excess_het(genotypes, 3), 22.562985944843152, kDelta);
  EXPECT_NEAR(std::stod(*excess_het_text(genotypes, 3)), 22.562985944843152, kDeltaParse);
}

// ExcessHetUnitTest.testFounderIDsAndPedigreeFile: only founders s1..s5 (we take the subset).
TEST(ExcessHet, FounderSubset) {
  const auto all = different_alt_genotypes();
  const std::vector<Genotype> founders(all.begin(), all.begin() + 5);
  EXPECT_NEAR(excess_het(founders, 3), 8.96250562461638, kDelta);
}

// ExcessHetUnitTest.testSingletonVsCommonAllele.
TEST(ExcessHet, SingletonVsCommonAllele) {
  std::vector<Genotype> genotypes(10000, g(0, 0, {0, 60, 600}));
  genotypes.push_back(g(0, 1, {240, 0, 240}));
  const double singleton = excess_het(genotypes, 2);
  for (int i = 1; i < 20; ++i) genotypes.push_back(g(0, 1, {240, 0, 240}));
  EXPECT_LT(std::fabs(singleton), std::fabs(excess_het(genotypes, 2)));
}

// ExcessHetUnitTest.testLargeCohorts and testAllHetsForLargeCohorts, on the genotype counts those
// cohorts round to (a million Genotypes would only repeat the rounding tested above).
TEST(ExcessHet, LargeCohorts) {
  auto phred = [](double hom_ref, double het) { return excess_het_phred({hom_ref, het, 0}); };
  const double singleton = phred(1000000, 1);
  const double hundredton = phred(1000000, 100);
  const double common = phred(1000000, 1000000 - 1);
  EXPECT_LT(std::fabs(singleton), std::fabs(hundredton));
  EXPECT_LT(std::fabs(hundredton), std::fabs(common));
  EXPECT_LT(std::fabs(singleton), std::fabs(excess_het_phred({0, 1000000, 0})));
  EXPECT_NEAR(excess_het_phred({0, 1000000, 0}), 160.0, kDelta);  // PHRED_SCALED_MIN_P_VALUE
}

// ExcessHetUnitTest.smallSets (het, hom-ref, hom-var, p), both hom orders.
TEST(ExcessHet, SmallSets) {
  struct Case {
    int het, hom_ref, hom_var;
    double p;
  };
  const Case cases[] = {
      {1, 0, 0, 1.},
      {1, 1, 0, 1.},
      {5, 87, 8, 0.9999999998661845},
      {17, 81, 2, 0.9304235455950692},
      {21, 79, 0, 0.3096036754839548},
      {707, 359, 9, 0.},
      {804, 599, 70, 0.},
      {684, 559, 629, 1.},
      {192, 835, 763, 1.},
      {723, 277, 754, 0.9999982776347127},
      {537, 845, 72, 0.14763417247333427},
      {847, 431, 448, 0.7957628300988617},
      {659, 147, 910, 0.9664916975760656},
      {633, 938, 84, 0.04808183902489469},
      {881, 690, 292, 0.6731260236412528},
      {554, 371, 184, 0.1930042049715512},
      {552, 438, 207, 0.9367121245319978},
      {886, 812, 216, 0.1488013326311986},
      {537, 845, 72, 0.14763417247333427},
      {8700, 3186, 5918, 0.46111947799744585},
      {1998, 1, 998001, 0.7359430663641368},
      {19800, 100, 980100, 0.5267641864418983},
      {180000, 10000, 810000, 0.5028886002589862},
      {500000, 250000, 250000, 0.5009973527964665},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(excess_het_exact_test(c.het, c.hom_ref, c.hom_var), c.p, kDelta) << c.het;
    EXPECT_NEAR(excess_het_exact_test(c.het, c.hom_var, c.hom_ref), c.p, kDelta) << c.het;
  }
}

// ExcessHetUnitTest.testIllegalArgs.
TEST(ExcessHet, IllegalArguments) {
  EXPECT_THROW(excess_het_exact_test(-1, 1, 1), Error);
  EXPECT_THROW(excess_het_exact_test(1, -1, 1), Error);
  EXPECT_THROW(excess_het_exact_test(1, 1, -1), Error);
}

// ExcessHetUnitTest.testEmptyIfNoGenotypes; haploid and no-call genotypes do not count.
TEST(ExcessHet, EmptyWithoutCalledDiploidGenotypes) {
  EXPECT_FALSE(excess_het_text({}, 2));
  EXPECT_FALSE(excess_het_text(std::vector<Genotype>{{{1}, {10, 0}}}, 2));
  EXPECT_FALSE(excess_het_text(std::vector<Genotype>{{{-1, -1}, {0, 0, 0}}}, 2));
}

TEST(ExcessHet, SingleSampleSite) {
  // One het sample: p = 1 (no mid-p correction since GATK 4.2.4; older versions wrote 3.0103).
  EXPECT_EQ(info_value(annotate_site(biallelic_site(reads(2), reads(2))), "ExcessHet"), "0.0000");
  // [0,0,X] PLs round to hom-ref only, [X,0,0] to het only (GenotypeUtils' special cases).
  const DiploidGenotypeCounts ref_tie =
      diploid_genotype_counts(std::vector<Genotype>{g(0, 1, {0, 0, 1000})}, 2);
  EXPECT_EQ(ref_tie.hom_ref, 1);
  EXPECT_EQ(ref_tie.het, 0);
  const DiploidGenotypeCounts var_tie =
      diploid_genotype_counts(std::vector<Genotype>{g(0, 1, {1000, 0, 0})}, 2);
  EXPECT_EQ(var_tie.het, 1);
  EXPECT_EQ(var_tie.hom_var, 0);
  EXPECT_THROW(diploid_genotype_counts(std::vector<Genotype>{g(0, 1, {0, 1})}, 2), Error);
}

}  // namespace
}  // namespace gpp::stages::call
