// Tests of allele selection and likelihood subsetting (stages/call/allele_subsetting), ported from
// GATK's AlleleSubsettingUtilsUnitTest, plus hand-derived cases.
#include "stages/call/allele_subsetting.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "stages/call/genotype_assignment.hpp"

namespace gpp::stages::call {
namespace {

// GenotypeBuilder.PL(double[]) stores PLs; GATK reads them back as PL / -10.
SampleGenotypeLikelihoods as_gatk_holds(int ploidy, const std::vector<double>& gls) {
  return {ploidy, log10_likelihoods_from_pls(pls_from_log10_likelihoods(gls))};
}

// AlleleSubsettingUtilsUnitTest.testCalculateLikelihoodSums
TEST(AlleleSubsetting, LikelihoodSums) {
  const std::vector<SampleGenotypeLikelihoods> biallelic = {as_gatk_holds(2, {1.1, 0.1, 2.3}),
                                                            as_gatk_holds(2, {3.1, 0.1, 2.3}),
                                                            as_gatk_holds(2, {1.1, 4.1, 2.3})};
  EXPECT_NEAR(likelihood_sums(biallelic, 2)[1], 4.2, 1e-8);

  const std::vector<SampleGenotypeLikelihoods> triallelic = {
      as_gatk_holds(2, {0.0, 0.0, 0.0, 0.0, 3.1, 0.0}),
      as_gatk_holds(2, {0.0, 1.0, 0.0, 0.0, 0.0, 0.0})};
  const auto sums = likelihood_sums(triallelic, 3);
  EXPECT_NEAR(sums[1], 4.1, 1e-8);
  EXPECT_NEAR(sums[2], 3.1, 1e-8);

  const std::vector<SampleGenotypeLikelihoods> triploid = {as_gatk_holds(3, {0.0, 0.0, 0.0, 3.5})};
  EXPECT_NEAR(likelihood_sums(triploid, 2)[1], 3.5, 1e-8);
  EXPECT_THROW(likelihood_sums(triploid, 3), Error);
}

// AlleleSubsettingUtilsUnitTest.testThatFilteringWorksCorrectly (cases without <NON_REF>)
TEST(AlleleSubsetting, FilterToMaxAltAllelesByScore) {
  EXPECT_EQ(filter_to_max_alt_alleles(1, std::vector<double>{0, 5, 2}), (std::vector<int>{0, 1}));
  EXPECT_EQ(filter_to_max_alt_alleles(1, std::vector<double>{0, 2, 5}), (std::vector<int>{0, 2}));
  EXPECT_EQ(filter_to_max_alt_alleles(1, std::vector<double>{0, 1, 1}), (std::vector<int>{0, 1}));
  EXPECT_EQ(filter_to_max_alt_alleles(1, std::vector<double>{5, 1, 1}), (std::vector<int>{0, 1}));
  // Hand: keeping 2 of 4 alts by score returns them in their original order.
  EXPECT_EQ(filter_to_max_alt_alleles(2, std::vector<double>{0, 1, 7, 3, 7}),
            (std::vector<int>{0, 2, 4}));
}

// AlleleSubsettingUtilsUnitTest.testCalculateMostLikelyAllelesTieDoesntRemoveAllTiedAlleles
// (gatk issue #2157) and testCalculateMostLikelyAllelesPreconditions
TEST(AlleleSubsetting, MostLikelyAlleles) {
  const std::vector<SampleGenotypeLikelihoods> samples = {as_gatk_holds(2, {5, 5, 5, 5, 0, 5})};
  EXPECT_EQ(most_likely_alleles(samples, 3, 1), (std::vector<int>{0, 1}));
  EXPECT_EQ(most_likely_alleles(samples, 3, 2), (std::vector<int>{0, 1, 2}));
  EXPECT_THROW(most_likely_alleles(samples, 3, 0), Error);
  // Hand: the sample's likeliest genotype is 0/2 (PL 0), so allele 2 is kept over allele 1.
  const std::vector<SampleGenotypeLikelihoods> second = {
      {2, log10_likelihoods_from_pls(std::vector<int>{90, 60, 200, 0, 150, 300})}};
  EXPECT_EQ(most_likely_alleles(second, 3, 1), (std::vector<int>{0, 2}));
}

// AlleleSubsettingUtilsUnitTest.testAlleleReorderingBehavior: [A, G, C] -> [A, C, G]
TEST(AlleleSubsetting, ReorderingAlleles) {
  const auto sample = as_gatk_holds(2, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0});
  const std::vector<int> new_to_old = {0, 2, 1};
  const auto subset =
      subset_log10_likelihoods(sample.log10_likelihoods, subsetted_genotype_indices(2, new_to_old));
  EXPECT_EQ(pls_from_log10_likelihoods(subset), (std::vector<int>{50, 20, 0, 40, 10, 30}));
}

// AlleleSubsettingUtilsUnitTest.testUpdatePLsAndADData: PLs after subsetting A,C,G to A,C or A,G.
TEST(AlleleSubsetting, SubsettedPls) {
  struct Case {
    int ploidy;
    std::vector<double> gls;
    std::vector<int> kept;
    std::vector<double> expected_gls;
  };
  const std::vector<Case> cases = {
      {1, {0, -50, -50}, {0, 1}, {0, -50}},
      {1, {-30, 0, -60}, {0, 1}, {-30, 0}},
      {1, {-40, -70, 0}, {0, 2}, {-40, 0}},
      {3, {0, -30, -60, -90, -30, -60, -90, -60, -90, -90}, {0, 1}, {0, -30, -60, -90}},
      {3, {-20, 0, -20, -50, -40, -70, -90, -90, -100, -100}, {0, 1}, {-20, 0, -20, -50}},
      {3, {-20, -40, -90, -100, 0, -70, -100, -20, -90, -50}, {0, 2}, {-20, 0, -20, -50}},
      {2, {0, -30, -60, -30, -60, -60}, {0, 1}, {0, -30, -60}},
      {2, {-20, 0, -20, -30, -40, -60}, {0, 1}, {-20, 0, -20}},
      {2, {-50, -30, 0, -70, -30, -70}, {0, 1}, {-50, -30, 0}},
      {2, {-50, -30, -70, 0, -30, -20}, {0, 2}, {-50, 0, -20}},
      {2, {-50, -70, -70, -30, -30, 0}, {0, 2}, {-50, -30, 0}},
  };
  for (const Case& c : cases) {
    const auto sample = as_gatk_holds(c.ploidy, c.gls);
    const auto subset = subset_log10_likelihoods(sample.log10_likelihoods,
                                                 subsetted_genotype_indices(c.ploidy, c.kept));
    EXPECT_EQ(pls_from_log10_likelihoods(subset), pls_from_log10_likelihoods(c.expected_gls));
  }
  EXPECT_THROW(subset_log10_likelihoods(std::vector<double>{0.0, -1.0}, std::vector<int>{2}),
               Error);
}

}  // namespace
}  // namespace gpp::stages::call
