// Tests of the allele-frequency model (stages/call/allele_frequency_calculator): GATK's
// AlleleFrequencyCalculatorUnitTest and AFCalculationResultUnitTest ported, and results of GATK's
// own AlleleFrequencyCalculator on fixed sites.
#include "stages/call/allele_frequency_calculator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"
#include "stages/call/genotype_assignment.hpp"

namespace gpp::stages::call {
namespace {

constexpr int kExtremelyConfidentPl = 1000;
constexpr int kFairlyConfidentPl = 20;
const std::vector<AlleleDescription> kBiallelic = {{1, false}, {1, false}};               // A, C
const std::vector<AlleleDescription> kTriallelic = {{1, false}, {1, false}, {1, false}};  // A, C, G

// AlleleFrequencyCalculatorUnitTest.makeGenotype: the model reads PLs as PL / -10.
SampleGenotypeLikelihoods from_pls(int ploidy, const std::vector<int>& pls) {
  return {ploidy, log10_likelihoods_from_pls(pls)};
}

// AlleleFrequencyCalculatorUnitTest.genotypeWithObviousCall: PL everywhere but 0 at the call.
SampleGenotypeLikelihoods obvious_call(int ploidy, int alleles, std::vector<int> call, int pl) {
  std::vector<int> pls(genotype_count(ploidy, alleles), pl);
  pls[allele_counts_to_index(call)] = 0;
  return from_pls(ploidy, pls);
}

AfCalcResult calculate(const AlleleFrequencyPriors& priors,
                       const std::vector<AlleleDescription>& alleles,
                       const std::vector<SampleGenotypeLikelihoods>& samples) {
  return calculate_allele_frequencies(samples, alleles, priors);
}

TEST(AlleleFrequencyCalculator, DefaultPriors) {
  const AlleleFrequencyPriors priors = priors_from_heterozygosity();
  EXPECT_NEAR(priors.ref_pseudocount, 10.0, 1e-12);
  EXPECT_NEAR(priors.snp_pseudocount, 0.01, 1e-15);
  EXPECT_NEAR(priors.indel_pseudocount, 0.00125, 1e-15);
}

// AlleleFrequencyCalculatorUnitTest.testSymmetries: swapping B and C swaps their results.
TEST(AlleleFrequencyCalculator, Symmetries) {
  const AlleleFrequencyPriors priors{1, 0.1, 0.1};
  const auto AA = obvious_call(2, 3, {0, 2}, kFairlyConfidentPl);
  const auto BB = obvious_call(2, 3, {1, 2}, kFairlyConfidentPl);
  const auto CC = obvious_call(2, 3, {2, 2}, kFairlyConfidentPl);
  const auto AB = obvious_call(2, 3, {0, 1, 1, 1}, kFairlyConfidentPl);
  const auto AC = obvious_call(2, 3, {0, 1, 2, 1}, kFairlyConfidentPl);
  const auto BBB = obvious_call(3, 3, {1, 3}, kFairlyConfidentPl);
  const auto CCC = obvious_call(3, 3, {2, 3}, kFairlyConfidentPl);
  const std::vector<
      std::pair<std::vector<SampleGenotypeLikelihoods>, std::vector<SampleGenotypeLikelihoods>>>
      pairs = {{{AA, BB}, {AA, CC}},         {{AA, AB}, {AA, AC}},         {{AB, AB}, {AC, AC}},
               {{AA, AA, BB}, {AA, AA, CC}}, {{AA, AB, AB}, {AA, AC, AC}}, {{AA, BBB}, {AA, CCC}}};
  for (const auto& [first, second] : pairs) {
    const auto r1 = calculate(priors, kTriallelic, first);
    const auto r2 = calculate(priors, kTriallelic, second);
    EXPECT_NEAR(r1.log10_p_no_variant, r2.log10_p_no_variant, 1e-3);
    EXPECT_NEAR(r1.log10_p_allele_absent[0], r2.log10_p_allele_absent[1], 1e-3);
    EXPECT_NEAR(r1.log10_p_allele_absent[1], r2.log10_p_allele_absent[0], 1e-3);
  }
}

// AlleleFrequencyCalculatorUnitTest.testMLECounts
TEST(AlleleFrequencyCalculator, MleCounts) {
  const AlleleFrequencyPriors priors{1, 1, 1};
  const auto AA = obvious_call(2, 3, {0, 2}, kFairlyConfidentPl);
  const auto BB = obvious_call(2, 3, {1, 2}, kFairlyConfidentPl);
  const auto AB = obvious_call(2, 3, {0, 1, 1, 1}, kFairlyConfidentPl);
  const auto AC = obvious_call(2, 3, {0, 1, 2, 1}, kFairlyConfidentPl);
  const auto BBB = obvious_call(3, 3, {1, 3}, kFairlyConfidentPl);
  const auto CCC = obvious_call(3, 3, {2, 3}, kFairlyConfidentPl);
  const std::vector<std::pair<std::vector<SampleGenotypeLikelihoods>, std::vector<int>>> cases = {
      {{AA, BB}, {2, 0}},       {{AA, AB}, {1, 0}},     {{AB, AB}, {2, 0}},
      {{AA, AA, BB}, {2, 0}},   {{AA, AB, AB}, {2, 0}}, {{AA, BBB}, {3, 0}},
      {{AA, BBB, CCC}, {3, 3}}, {{AA, AB, AC}, {1, 1}}, {{AA, AB, AC, BBB, CCC}, {4, 4}}};
  for (const auto& [samples, expected] : cases) {
    EXPECT_EQ(calculate(priors, kTriallelic, samples).mle_allele_counts, expected);
  }
}

// AlleleFrequencyCalculatorUnitTest.testManySamplesWithLowConfidence
TEST(AlleleFrequencyCalculator, ManySamplesWithLowConfidence) {
  const AlleleFrequencyPriors priors{1000, 1, 1};
  const auto AB = obvious_call(2, 2, {0, 1, 1, 1}, kFairlyConfidentPl);
  std::vector<int> counts;
  for (int n = 1; n <= 10; ++n) {
    const std::vector<SampleGenotypeLikelihoods> samples(n, AB);
    counts.push_back(calculate(priors, kBiallelic, samples).mle_allele_counts[0]);
  }
  EXPECT_EQ(counts[0], 0);
  EXPECT_EQ(counts[1], 0);
  EXPECT_EQ(counts[4], 2);
  EXPECT_GE(counts[8], 3);
}

// AlleleFrequencyCalculatorUnitTest.testManyVeryConfidentSamples (gatk issue #4833)
TEST(AlleleFrequencyCalculator, ManyVeryConfidentSamples) {
  const AlleleFrequencyPriors priors{1, 1, 1};
  const auto AC = obvious_call(2, 3, {0, 1, 2, 1}, kExtremelyConfidentPl);
  for (const int n : {100, 1000}) {
    const auto result =
        calculate(priors, kTriallelic, std::vector<SampleGenotypeLikelihoods>(n, AC));
    EXPECT_EQ(result.mle_allele_counts[0], 0);
    EXPECT_EQ(result.mle_allele_counts[1], n);
    EXPECT_NEAR(result.log10_p_no_variant, result.log10_p_allele_absent[1], n * 0.01);
    const double expected = n * (std::log10(0.5) - kExtremelyConfidentPl / 10.0);
    EXPECT_NEAR(result.log10_p_allele_absent[1], expected, n * 0.01);
  }
}

// AlleleFrequencyCalculatorUnitTest.testApproximateMultiplicativeConfidence
TEST(AlleleFrequencyCalculator, ApproximateMultiplicativeConfidence) {
  const AlleleFrequencyPriors priors{1, 1, 1};
  const auto AA = obvious_call(2, 2, {0, 2}, kFairlyConfidentPl);
  const auto BB = obvious_call(2, 2, {1, 2}, kFairlyConfidentPl);
  std::vector<SampleGenotypeLikelihoods> samples;
  std::vector<double> log10_p_refs;
  for (int n = 0; n < 10; ++n) {
    samples.push_back(AA);
    samples.push_back(BB);
    log10_p_refs.push_back(calculate(priors, kBiallelic, samples).log10_p_no_variant);
  }
  for (int n = 0; n < 9; ++n) {
    EXPECT_NEAR(log10_p_refs[n + 1] - log10_p_refs[n], log10_p_refs[0], 0.01);
  }
}

// AlleleFrequencyCalculatorUnitTest.testManyRefSamplesDontKillGoodVariant
TEST(AlleleFrequencyCalculator, ManyRefSamplesDontKillGoodVariant) {
  const AlleleFrequencyPriors priors{1, 0.1, 0.1};
  const auto AA = obvious_call(2, 2, {0, 2}, kExtremelyConfidentPl);
  const auto AB = obvious_call(2, 2, {0, 1, 1, 1}, kExtremelyConfidentPl);
  for (const int num_ref : {1, 10, 100, 1000, 10000, 100000}) {
    std::vector<SampleGenotypeLikelihoods> samples(num_ref, AA);
    samples.push_back(AB);
    const double log10_p_ref = calculate(priors, kBiallelic, samples).log10_p_no_variant;
    EXPECT_LT(log10_p_ref, (-kExtremelyConfidentPl / 10.0) + std::log10(num_ref) + 1);
  }
}

// AlleleFrequencyCalculatorUnitTest.testSpanningDeletionIsNotConsideredVariant
TEST(AlleleFrequencyCalculator, SpanningDeletionIsNotConsideredVariant) {
  const AlleleFrequencyPriors priors{1, 0.1, 0.1};
  const std::vector<AlleleDescription> alleles = {{1, false}, {1, false}, {1, true}};  // A, C, *
  const auto span_del = from_pls(2, {50, 100, 100, 0, 100, 100});
  const auto low_qual_snp = from_pls(2, {10, 0, 40, 100, 70, 300});
  EXPECT_LT(calculate(priors, alleles, {span_del}).log10_p_variant_present(), -10);

  const double snp_alone = calculate(priors, alleles, {low_qual_snp}).log10_p_variant_present();
  const double both =
      calculate(priors, alleles, {low_qual_snp, span_del}).log10_p_variant_present();
  EXPECT_NEAR(snp_alone, both, 0.1);
  EXPECT_LT(both, snp_alone);

  const auto haploid_ref = from_pls(1, {0, 100, 100});
  const double with_haploid_ref =
      calculate(priors, alleles, {low_qual_snp, haploid_ref}).log10_p_variant_present();
  EXPECT_NEAR(both, with_haploid_ref, 1e-5);

  const double no_span_del =
      calculate(priors, kBiallelic, {from_pls(2, {10, 0, 40}), from_pls(1, {0, 100})})
          .log10_p_variant_present();
  EXPECT_NEAR(both, no_span_del, 1e-6);
}

// AlleleFrequencyCalculatorUnitTest.testPresenceOfUnlikelySpanningDeletionDoesntAffectResults
TEST(AlleleFrequencyCalculator, UnlikelySpanningDeletionDoesntAffectResults) {
  const AlleleFrequencyPriors priors{1, 0.1, 0.1};
  const std::vector<AlleleDescription> with_span_del = {{1, false}, {1, false}, {1, true}};
  const double without =
      calculate(priors, kBiallelic, {from_pls(2, {50, 0, 50})}).log10_p_variant_present();
  const double with = calculate(priors, with_span_del, {from_pls(2, {50, 0, 50, 100, 100, 100})})
                          .log10_p_variant_present();
  EXPECT_NEAR(without, with, 0.0001);
}

// AlleleFrequencyCalculatorUnitTest.testSpanningDeletionWithVeryUnlikelyAltAllele: tetraploid, the
// only evidence is hom-ref; the finite-precision bug gave NaN / positive probabilities.
TEST(AlleleFrequencyCalculator, SpanningDeletionWithVeryUnlikelyAltAllele) {
  const AlleleFrequencyPriors priors{1, 0.1, 0.1};
  const std::vector<AlleleDescription> alleles = {{1, false}, {1, true}, {1, false}};  // A, *, C
  std::vector<int> pls(15, 10000);
  pls[0] = 0;
  const auto result = calculate(priors, alleles, {from_pls(4, pls)});
  EXPECT_FALSE(std::isnan(result.log10_p_variant_present()));
  EXPECT_LE(result.log10_p_no_variant, 0.0);
  EXPECT_LT(result.log10_p_variant_present(), -100);
}

// AlleleFrequencyCalculatorUnitTest.testSingleSampleBiallelicShortcut
TEST(AlleleFrequencyCalculator, SingleSampleBiallelicShortcut) {
  for (const double pseudocount : {1.0, 5.0, 10.0}) {
    const AlleleFrequencyPriors priors{pseudocount, pseudocount, pseudocount};
    for (const int pl : {10, 100, 1000}) {
      const std::vector<double> gls = {0, pl / 10.0};
      const double expected = 1.0 / (1.0 + std::pow(10.0, -pl / 10.0));
      EXPECT_NEAR(single_sample_biallelic_non_ref_posterior(priors, gls, false), expected, 1e-10);
    }
  }
  for (const double het : {0.1, 0.01, 0.001}) {
    const AlleleFrequencyPriors priors{100, 100 * het, 100 * het};
    for (const int pl : {10, 100, 1000}) {
      const std::vector<double> gls = {0, pl / 10.0, -100};
      const double priors_log10[] = {std::log10((1 - het) * (1 - het)),
                                     std::log10(2 * het * (1 - het)), het * het};
      double total = 0.0;
      for (int i = 0; i < 3; ++i) total += std::pow(10.0, gls[i] + priors_log10[i]);
      const double expected = 1 - std::pow(10.0, gls[0] + priors_log10[0]) / total;
      EXPECT_NEAR(single_sample_biallelic_non_ref_posterior(priors, gls, false), expected, 0.03);
    }
  }
  EXPECT_EQ(
      single_sample_biallelic_non_ref_posterior({10, 0.01, 0.01}, std::vector<double>{0, -1}, true),
      0.0);
}

// AFCalculationResultUnitTest.test: log10ProbVariantPresent and the per-allele threshold.
TEST(AfCalcResult, VariantProbabilityAndThreshold) {
  AfCalcResult result;
  result.log10_p_no_variant = std::log10(0.4);
  result.log10_p_allele_absent = {std::log10(0.5), std::log10(0.7)};
  result.mle_allele_counts = {2, 3};
  EXPECT_NEAR(result.log10_p_variant_present(), std::log10(1 - 0.4), 1e-10);
  EXPECT_NEAR(result.qual(), -10 * std::log10(0.4), 1e-12);
  // Hand: P(absent) = 0.5 passes phred 3 (0.501) but not phred 3.1 (0.49).
  EXPECT_TRUE(result.passes_threshold(1, 3.0));
  EXPECT_FALSE(result.passes_threshold(1, 3.1));
  EXPECT_THROW(result.passes_threshold(0, 30.0), Error);
  EXPECT_THROW(result.passes_threshold(3, 30.0), Error);
}

struct GatkAlleleFrequencyCase {
  std::vector<AlleleDescription> alleles;
  std::vector<std::pair<int, std::vector<int>>> samples;  // ploidy, PLs
  double log10_p_no_variant;
  std::vector<double> log10_p_allele_absent;
  std::vector<int> mle_allele_counts;
};

// Results of GATK's own AlleleFrequencyCalculator (see the .inc header), default pseudocounts.
TEST(AlleleFrequencyCalculator, MatchesGatkValues) {
  const std::vector<GatkAlleleFrequencyCase> cases = {
#include "tests/stages/call/gatk_allele_frequency_cases.inc"
  };
  const AlleleFrequencyPriors priors = priors_from_heterozygosity();
  for (const auto& c : cases) {
    std::vector<SampleGenotypeLikelihoods> samples;
    for (const auto& [ploidy, pls] : c.samples) samples.push_back(from_pls(ploidy, pls));
    const AfCalcResult result = calculate(priors, c.alleles, samples);
    const double tolerance = 1e-9 * std::max(1.0, std::abs(c.log10_p_no_variant));
    EXPECT_NEAR(result.log10_p_no_variant, c.log10_p_no_variant, tolerance);
    ASSERT_EQ(result.log10_p_allele_absent.size(), c.log10_p_allele_absent.size());
    for (std::size_t a = 0; a < c.log10_p_allele_absent.size(); ++a) {
      EXPECT_NEAR(result.log10_p_allele_absent[a], c.log10_p_allele_absent[a],
                  1e-9 * std::max(1.0, std::abs(c.log10_p_allele_absent[a])));
    }
    EXPECT_EQ(result.mle_allele_counts, c.mle_allele_counts);
  }
}

TEST(AlleleFrequencyCalculator, RejectsInconsistentInput) {
  const AlleleFrequencyPriors priors = priors_from_heterozygosity();
  EXPECT_THROW(calculate(priors, {{1, false}}, {from_pls(2, {0})}), Error);
  EXPECT_THROW(calculate(priors, kBiallelic, {}), Error);
  EXPECT_THROW(calculate(priors, kBiallelic, {from_pls(2, {0, 10})}), Error);
}

}  // namespace
}  // namespace gpp::stages::call
