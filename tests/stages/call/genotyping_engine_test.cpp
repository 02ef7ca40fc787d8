// Tests of one site's genotyping in HaplotypeCaller VCF mode (stages/call/genotyping_engine):
// every record of GATK's NA12878 HaplotypeCaller golden VCF re-derived from its PLs, GATK's
// GenotypingEngineUnitTest regression, and hand-derived cases.
#include "stages/call/genotyping_engine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"

namespace gpp::stages::call {
namespace {

SampleGenotypeLikelihoods from_pls(int ploidy, const std::vector<int>& pls) {
  return {ploidy, log10_likelihoods_from_pls(pls)};
}

struct GoldenSite {
  int position;
  std::vector<AlleleDescription> alleles;
  double qual;
  std::vector<int> gt;
  int gq;
  std::vector<int> pl;
  std::vector<int> mleac;
  std::vector<double> mleaf;
};

// GATK's golden VCF (HaplotypeCallerIntegrationTest testVCFMode): a single diploid sample, so the
// written PLs are the ones the model saw whenever every alt was output. Feeding them back must give
// the written QUAL (to its 2 decimals), GT, GQ, PL, MLEAC and MLEAF (3 decimals). A '*' was output,
// so an emitted upstream deletion covered those sites. At 10002458 and 10024300 GATK dropped
// implausible alts (see the next test), so the written PLs are not the model's input.
TEST(GenotypingEngine, ReproducesGatkGoldenVcfRecords) {
  const std::vector<GoldenSite> sites = {
#include "tests/stages/call/hc_na12878_chr20_sites.inc"
  };
  ASSERT_EQ(sites.size(), 252u);
  const GenotypingOptions options;
  for (const GoldenSite& site : sites) {
    if (site.position == 10002458 || site.position == 10024300) continue;
    SCOPED_TRACE("20:" + std::to_string(site.position));
    bool has_star = false;
    for (const AlleleDescription& allele : site.alleles) has_star |= allele.is_spanning_deletion;
    const std::vector<SampleGenotypeLikelihoods> samples = {from_pls(2, site.pl)};
    const SiteCall call = calculate_genotypes(samples, site.alleles, has_star, options);
    ASSERT_TRUE(call.emitted);
    EXPECT_NEAR(call.qual, site.qual, 0.005 + 1e-9);
    EXPECT_FALSE(call.low_qual);
    EXPECT_EQ(static_cast<int>(call.alleles.size()), static_cast<int>(site.alleles.size()));
    ASSERT_EQ(call.genotypes.size(), 1u);
    EXPECT_EQ(call.genotypes[0].alleles, site.gt);
    EXPECT_EQ(call.genotypes[0].gq, site.gq);
    EXPECT_EQ(call.genotypes[0].pls, site.pl);
    EXPECT_EQ(call.mle_allele_counts, site.mleac);
    ASSERT_EQ(call.mle_allele_frequencies.size(), site.mleaf.size());
    for (std::size_t i = 0; i < site.mleaf.size(); ++i) {
      EXPECT_NEAR(call.mle_allele_frequencies[i], site.mleaf[i], 0.0005 + 1e-9);
    }
  }
}

// The two golden sites whose model saw more alleles than the VCF shows: GATK's GVCF-mode golden
// (expected.testGVCFMode.gatk4.g.vcf, same reads) lists them all with their PLs. Restricted to the
// real alleles (without <NON_REF>), they must give the VCF record: the implausible alts dropped,
// QUAL, GT, GQ and PLs re-derived over the output alleles, and MLEAC/MLEAF of the kept alt.
TEST(GenotypingEngine, DropsImplausibleAltsAsGatkGolden) {
  struct Case {
    std::vector<AlleleDescription> alleles;
    std::vector<int> gvcf_pls;  // over the alleles plus <NON_REF>
    std::vector<int> output_alleles;
    double qual;
    std::vector<int> gt;
    std::vector<int> pl;
  };
  const std::vector<Case> cases = {
      // 20:10002458 G -> GT,GTTT,GTTTTT; the VCF writes G -> GTTT 2154.96 1/1 PL 2090,167,0
      {{{1, false}, {2, false}, {4, false}, {6, false}},
       {2172, 655, 493, 249, 0, 82, 352, 33, 9, 214, 876, 512, 167, 254, 730},
       {0, 2},
       2154.96,
       {1, 1},
       {2090, 167, 0}},
      // 20:10024300 CTT -> C,CT,CTTTT; the VCF writes C -> CTT (trimmed CTT -> CTTTT) 134.01 0/1
      {{{3, false}, {1, false}, {2, false}, {5, false}},
       {151, 94, 400, 118, 223, 241, 45, 0, 8, 156, 188, 279, 265, 107, 347},
       {0, 3},
       134.01,
       {0, 1},
       {106, 0, 111}},
  };
  for (const Case& c : cases) {
    const std::vector<int> real_alleles = {0, 1, 2, 3};
    std::vector<int> pls;
    for (const int old_index : new_to_old_genotype_map(2, real_alleles)) {
      pls.push_back(c.gvcf_pls[old_index]);
    }
    const SiteCall call = calculate_genotypes(std::vector{from_pls(2, pls)}, c.alleles, false, {});
    ASSERT_TRUE(call.emitted);
    EXPECT_EQ(call.alleles, c.output_alleles);
    EXPECT_NEAR(call.qual, c.qual, 0.005 + 1e-9);
    EXPECT_EQ(call.genotypes[0].alleles, c.gt);
    EXPECT_EQ(call.genotypes[0].gq, 99);
    EXPECT_EQ(call.genotypes[0].pls, c.pl);
    EXPECT_EQ(call.mle_allele_counts, (std::vector<int>{1}));
    EXPECT_EQ(call.mle_allele_frequencies, (std::vector<double>{0.5}));
  }
}

// GenotypingEngineUnitTest.testCalculateGenotypes, last case: 19 diploid samples over C, *, T.
std::vector<SampleGenotypeLikelihoods> spanning_deletion_regression_samples() {
  const std::vector<std::vector<int>> pls = {
      {42, 43, 45, 3, 3, 0},      {0, 0, 0, 0, 0, 0},         {0, 15, 250, 15, 250, 250},
      {0, 9, 184, 9, 184, 184},   {43, 0, 78, 53, 84, 152},   {210, 15, 0, 216, 15, 225},
      {55, 6, 0, 59, 6, 74},      {0, 3, 45, 3, 45, 45},      {55, 6, 0, 59, 6, 74},
      {30, 0, 123, 40, 126, 168}, {27, 0, 165, 40, 168, 210}, {0, 6, 131, 9, 132, 135},
      {0, 18, 311, 21, 312, 315}, {0, 12, 180, 12, 180, 180}, {0, 6, 90, 6, 90, 90},
      {0, 6, 90, 6, 90, 90},      {0, 0, 0, 0, 0, 0},         {52, 0, 246, 74, 252, 336},
      {0, 21, 315, 21, 315, 315}};
  std::vector<SampleGenotypeLikelihoods> samples;
  for (const auto& p : pls) samples.push_back(from_pls(2, p));
  return samples;
}

// That regression with no upstream deletion recorded. T is not plausible and '*' is spurious, so
// there is no call.
TEST(GenotypingEngine, SpanningDeletionRegressionIsNotEmitted) {
  const std::vector<SampleGenotypeLikelihoods> samples = spanning_deletion_regression_samples();
  const std::vector<AlleleDescription> alleles = {{1, false}, {1, true}, {1, false}};
  const SiteCall call = calculate_genotypes(samples, alleles, false, GenotypingOptions{});
  EXPECT_FALSE(call.emitted);
  // GATK's model gives log10 P(no variant) = -2.7971... and P(T absent) the same (harness value).
  EXPECT_NEAR(call.model.log10_p_no_variant, -2.797171570220271, 1e-9);
  // Even with the deletion recorded only '*' would pass, and a lone '*' is not emitted either.
  EXPECT_FALSE(calculate_genotypes(samples, alleles, true, GenotypingOptions{}).emitted);
}

// Hand: QUAL below stand_call_conf (GATK golden 20:10079476 has QUAL 31.64 from PL 39,0,1137;
// PL 25,0,300 gives about 17.6) is not emitted; a site whose best guess is ref is monomorphic.
TEST(GenotypingEngine, CallThreshold) {
  const std::vector<AlleleDescription> snp = {{1, false}, {1, false}};
  const SiteCall passing =
      calculate_genotypes(std::vector{from_pls(2, {39, 0, 1137})}, snp, false, GenotypingOptions{});
  EXPECT_TRUE(passing.emitted);
  EXPECT_NEAR(passing.qual, 31.64, 0.005);
  const SiteCall weak =
      calculate_genotypes(std::vector{from_pls(2, {25, 0, 300})}, snp, false, GenotypingOptions{});
  EXPECT_FALSE(weak.emitted);
  EXPECT_NEAR(weak.model.log10_p_no_variant, -1.7634883562472625, 1e-9);
  GenotypingOptions lenient;
  lenient.standard_confidence_for_calling = 10.0;
  EXPECT_TRUE(
      calculate_genotypes(std::vector{from_pls(2, {25, 0, 300})}, snp, false, lenient).emitted);
  const SiteCall ref =
      calculate_genotypes(std::vector{from_pls(2, {0, 30, 300})}, snp, false, GenotypingOptions{});
  EXPECT_FALSE(ref.emitted);
}

// -10 log10 P(variant) from the model's log10 P(no variant): a monomorphic site's QUAL.
double monomorphic_qual(const SiteCall& call) {
  return -10.0 * std::log10(1.0 - std::pow(10.0, call.model.log10_p_no_variant));
}

void expect_hom_ref_only(const SiteCall& call, std::size_t samples) {
  EXPECT_EQ(call.alleles, (std::vector<int>{0}));
  ASSERT_EQ(call.genotypes.size(), samples);
  for (const Genotype& genotype : call.genotypes) {
    EXPECT_EQ(genotype.alleles, (std::vector<int>{0, 0}));
    EXPECT_TRUE(genotype.pls.empty());  // subsetToRefOnly keeps neither PL nor GQ
    EXPECT_EQ(genotype.gq, -1);
  }
  EXPECT_TRUE(call.mle_allele_counts.empty());
}

// --output-mode (GenotypingEngine.passesEmitThreshold, emitAllActiveSites): a confident hom-ref
// site is written with the reference allele alone in EMIT_ALL_CONFIDENT_SITES, QUAL = -10 log10
// P(variant); EMIT_ALL_ACTIVE_SITES writes every site, LowQual under stand_call_conf, a weak het
// as hom-ref (its alt not plausible), and the lone '*' EMIT_VARIANTS_ONLY drops.
TEST(GenotypingEngine, OutputModes) {
  const std::vector<AlleleDescription> snp = {{1, false}, {1, false}};
  GenotypingOptions confident;
  confident.output_mode = OutputMode::kAllConfidentSites;
  GenotypingOptions active;
  active.output_mode = OutputMode::kAllActiveSites;
  const auto site = [&](const std::vector<int>& pls, const GenotypingOptions& options) {
    return calculate_genotypes(std::vector{from_pls(2, pls)}, snp, false, options);
  };

  const SiteCall ref = site({0, 60, 600}, confident);
  ASSERT_TRUE(ref.emitted);
  EXPECT_GE(ref.qual, 30.0);
  EXPECT_NEAR(ref.qual, monomorphic_qual(ref), 1e-6);  // the model keeps more digits
  EXPECT_FALSE(ref.low_qual);
  expect_hom_ref_only(ref, 1);
  EXPECT_FALSE(site({0, 60, 600}, GenotypingOptions{}).emitted);
  // A variant site is what EMIT_VARIANTS_ONLY makes of it.
  const SiteCall variant = site({39, 0, 1137}, confident);
  ASSERT_TRUE(variant.emitted);
  EXPECT_EQ(variant.alleles, (std::vector<int>{0, 1}));
  EXPECT_NEAR(variant.qual, 31.64, 0.005);

  // Not confident either way: only EMIT_ALL_ACTIVE_SITES writes it, LowQual.
  const SiteCall unsure = site({0, 3, 30}, confident);
  EXPECT_LT(monomorphic_qual(unsure), 30.0);
  EXPECT_FALSE(unsure.emitted);
  const SiteCall unsure_active = site({0, 3, 30}, active);
  ASSERT_TRUE(unsure_active.emitted);
  EXPECT_TRUE(unsure_active.low_qual);
  expect_hom_ref_only(unsure_active, 1);

  const SiteCall weak = site({25, 0, 300}, active);
  ASSERT_TRUE(weak.emitted);
  EXPECT_TRUE(weak.low_qual);
  expect_hom_ref_only(weak, 1);
  EXPECT_NEAR(weak.qual, -10.0 * std::log10(1.0 - std::pow(10.0, -1.7634883562472625)), 1e-6);

  // GATK's spanning-deletion regression (above): with the deletion recorded the lone '*' is
  // written (QUAL 27.97 < 30: LowQual); without it the site is hom-ref.
  const std::vector<SampleGenotypeLikelihoods> samples = spanning_deletion_regression_samples();
  const std::vector<AlleleDescription> star = {{1, false}, {1, true}, {1, false}};
  const SiteCall lone_star = calculate_genotypes(samples, star, true, active);
  ASSERT_TRUE(lone_star.emitted);
  EXPECT_EQ(lone_star.alleles, (std::vector<int>{0, 1}));
  EXPECT_NEAR(lone_star.qual, 27.97171570220271, 1e-9);
  EXPECT_TRUE(lone_star.low_qual);
  const SiteCall no_star = calculate_genotypes(samples, star, false, active);
  ASSERT_TRUE(no_star.emitted);
  expect_hom_ref_only(no_star, samples.size());
}

// Hand: of a triallelic site only the confident alt is output; the genotype and PLs are re-derived
// over the two output alleles (GATK harness: log10 P(absent) -3.996 for C, ~0 for G).
TEST(GenotypingEngine, ImplausibleAltIsDropped) {
  const std::vector<AlleleDescription> alleles = {{1, false}, {1, false}, {1, false}};
  const SiteCall call = calculate_genotypes(std::vector{from_pls(2, {500, 0, 600, 20, 500, 700})},
                                            alleles, false, GenotypingOptions{});
  ASSERT_TRUE(call.emitted);
  EXPECT_EQ(call.alleles, (std::vector<int>{0, 1}));
  EXPECT_NEAR(call.qual, 492.6391698954216, 1e-7);
  EXPECT_EQ(call.genotypes[0].alleles, (std::vector<int>{0, 1}));
  EXPECT_EQ(call.genotypes[0].pls, (std::vector<int>{500, 0, 600}));
  EXPECT_EQ(call.mle_allele_counts, (std::vector<int>{1}));
  EXPECT_EQ(call.mle_allele_frequencies, (std::vector<double>{0.5}));
}

// Hand: with --max-alternate-alleles 1 the model sees the alt of larger likelihood sum only, over
// PLs re-derived for the kept alleles.
TEST(GenotypingEngine, MaxAlternateAlleles) {
  const std::vector<AlleleDescription> alleles = {{1, false}, {1, false}, {2, false}};
  const std::vector<SampleGenotypeLikelihoods> samples = {
      from_pls(2, {900, 500, 700, 450, 0, 950}), from_pls(2, {300, 200, 400, 0, 250, 500})};
  GenotypingOptions options;
  options.max_alternate_alleles = 1;
  const SiteCall call = calculate_genotypes(samples, alleles, false, options);
  EXPECT_EQ(call.model_alleles, (std::vector<int>{0, 2}));
  ASSERT_TRUE(call.emitted);
  EXPECT_EQ(call.alleles, (std::vector<int>{0, 2}));
  // Sample 1 over {ref, AT}: PLs 900, 450, 950 -> 450, 0, 500.
  EXPECT_EQ(call.genotypes[0].pls, (std::vector<int>{450, 0, 500}));
  EXPECT_EQ(call.genotypes[1].alleles, (std::vector<int>{0, 1}));
  EXPECT_EQ(call.mle_allele_frequencies, (std::vector<double>{0.5}));
}

TEST(GenotypingEngine, InputChecks) {
  const std::vector<AlleleDescription> snp = {{1, false}, {1, false}};
  EXPECT_FALSE(calculate_genotypes({}, snp, false, GenotypingOptions{}).emitted);
  EXPECT_THROW(calculate_genotypes(std::vector{from_pls(2, {0, 10})}, snp, false, {}), Error);
  EXPECT_THROW(calculate_genotypes(std::vector{from_pls(2, {0})},
                                   std::vector<AlleleDescription>{{1, false}}, false, {}),
               Error);
  std::vector<AlleleDescription> too_many(51, AlleleDescription{1, false});
  std::vector<int> pls(genotype_count(1, 51), 100);
  pls[1] = 0;
  EXPECT_FALSE(calculate_genotypes(std::vector{from_pls(1, pls)}, too_many, false, {}).emitted);
}

}  // namespace
}  // namespace gpp::stages::call
