// QD, MQ, INFO DP, FORMAT AD and FORMAT DP (stages/call/annotations/depth_annotations and
// annotate_site). Cases named after a GATK test port QualByDepthUnitTest,
// RMSMappingQualityUnitTest, CoverageUnitTest, DepthPerAlleleBySampleUnitTest and
// DepthPerSampleHCUnitTest with their values.
#include "stages/call/annotations/depth_annotations.hpp"

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

struct TestGenotype {
  GenotypeType type;
  std::vector<int> ad;  // empty: no AD
  std::optional<int> dp;
};

double qd(const std::vector<TestGenotype>& genotypes) {
  std::vector<QualByDepthGenotype> view;
  for (const TestGenotype& g : genotypes) view.push_back({g.type, g.ad, g.dp});
  const auto text = qual_by_depth_text(-5, qual_by_depth_depth(view), 0, 0);
  return text ? std::stod(*text) : -1;  // -1: QD not written
}

// QualByDepthUnitTest.testUsingAD (QUAL 50, no likelihoods: FORMAT DP is the fallback depth).
TEST(QualByDepth, UsingAd) {
  using enum GenotypeType;
  const TestGenotype ac{kHet, {5, 5}, 10};
  const TestGenotype ac_no_ad_no_dp{kHet, {0, 0}, std::nullopt};
  const TestGenotype ac_no_ad{kHet, {0, 0}, 10};
  const TestGenotype aa{kHomRef, {10, 0}, 10};
  const TestGenotype ac_error{kHet, {9, 1}, 10};
  const TestGenotype ac_no_error{kHet, {8, 2}, 17};
  const TestGenotype gg{kHomVar, {1, 9}, 10};
  const TestGenotype ac_weird_dp{kHet, {5, 5}, 70};
  const double qual = 50;
  EXPECT_NEAR(qd({ac}), qual / 10, 0.0001);
  EXPECT_EQ(qd({ac_no_ad_no_dp}), -1);  // depth 0: no QD
  EXPECT_NEAR(qd({ac_no_ad}), qual / 10, 0.0001);
  EXPECT_NEAR(qd({ac, ac_no_ad_no_dp}), qual / 10, 0.0001);
  EXPECT_NEAR(qd({ac_error}), qual / 10, 0.0001);
  EXPECT_NEAR(qd({aa, ac}), qual / 10, 0.0001);
  EXPECT_NEAR(qd({ac, ac_error}), qual / 10, 0.0001);
  EXPECT_NEAR(qd({ac, ac_no_error}), qual / (10 + 10), 0.0001);
  EXPECT_NEAR(qd({aa, ac, ac_error, gg}), qual / (10 + 10), 0.0001);
  EXPECT_NEAR(qd({ac_weird_dp}), qual / 10, 0.0001);
}

// QualByDepthUnitTest.testUsingDP and testEmpty (no hets).
TEST(QualByDepth, UsingDpAndEmpty) {
  EXPECT_NEAR(qd({{GenotypeType::kHet, {}, 20}}), 50.0 / 20, 0.0001);
  EXPECT_EQ(qd({{GenotypeType::kHomRef, {10, 0}, 10}}), -1);
  EXPECT_EQ(qd({}), -1);
}

// QualByDepthUnitTest.testUsingReads: 20 REF reads, the sample's DP 30 is not used.
TEST(QualByDepth, UsingReads) {
  const SiteAnnotations a = annotate_site(biallelic_site(reads(20), {}));
  EXPECT_NEAR(std::stod(*info_value(a, "QD")), 50.0 / 20, 0.0001);
  EXPECT_EQ(info_value(a, "QD"), "2.50");
  // With AD present it trumps everything.
  EXPECT_NEAR(qd({{GenotypeType::kHet, {5, 5}, 30}}), 50.0 / 10, 0.0001);
}

// QualByDepthUnitTest.testVeryHighQD: QD >= 35 becomes 30 + N(0, 3); here the draw is keyed by
// the site, so we average over 100000 sites instead of 100000 calls.
TEST(QualByDepth, VeryHighQdIsJittered) {
  double sum = 0;
  const int sites = 100000;
  for (int i = 0; i < sites; ++i) {
    sum += std::stod(*qual_by_depth_text(-kMaxQualByDepthBeforeFixing - 10, 10, 1, 1000 + 7 * i));
  }
  EXPECT_NEAR(sum / sites, kIdealHighQualByDepth, 0.02);
  // Deterministic: the same site always gets the same value.
  EXPECT_EQ(qual_by_depth_text(-45, 10, 3, 12345), qual_by_depth_text(-45, 10, 3, 12345));
  EXPECT_EQ(fix_too_high_qual_by_depth(34.99, 0, 0), 34.99);
  EXPECT_NE(fix_too_high_qual_by_depth(35.0, 0, 0), 35.0);
}

// RMSMappingQualityUnitTest.testLikelihoods: MQ 1..10 and one 255 read (left out).
TEST(RmsMappingQuality, Likelihoods) {
  std::vector<TestRead> ref_reads;
  for (int mq = 1; mq <= 10; ++mq) {
    ref_reads.push_back(kForwardRead.with_mapping_quality(static_cast<std::uint8_t>(mq)));
  }
  ref_reads.push_back(kForwardRead.with_mapping_quality(255));
  const SiteAnnotations a = annotate_site(biallelic_site(ref_reads, {}, -10.0));
  EXPECT_EQ(info_value(a, "MQ"), "6.20");  // sqrt(385 / 10)
}

// RMSMappingQualityUnitTest.testEmptyLikelihoods; CoverageUnitTest.testLikelihoodsEmpty.
TEST(RmsMappingQuality, NoReadsNoValue) {
  const SiteAnnotations a = annotate_site(biallelic_site({}, {}));
  EXPECT_FALSE(info_value(a, "MQ"));
  EXPECT_FALSE(info_value(a, "DP"));
}

// RMSMappingQualityUnitTest.testCombineAndFinalize*, testFinalizeRawData,
// testFinalizeHighMQSquaredRawData, testFinalizeRawMQ: the same sqrt(sum / n) formatting.
TEST(RmsMappingQuality, FinalizedValues) {
  EXPECT_EQ(rms_mapping_quality_text(69640, 20), "59.01");
  EXPECT_EQ(rms_mapping_quality_text(11925002601ULL, 5500001), "46.56");
  EXPECT_EQ(rms_mapping_quality_text(43732, 13), "58.00");
  EXPECT_EQ(rms_mapping_quality_text(3415207168ULL, 1749038), "44.19");
  EXPECT_EQ(rms_mapping_quality_text(2000, 20), "10.00");
}

// CoverageUnitTest.testLikelihoods: 5 REF + 3 ALT reads.
TEST(Coverage, CountsEveryAnnotationRead) {
  SiteEvidence site = biallelic_site(reads(5), reads(3));
  EXPECT_EQ(info_value(annotate_site(site), "DP"), "8");
  // Uninformative reads (e.g. the genotyping-filtered ones, likelihood 0 everywhere) count too.
  add_read(site, kForwardRead, {0.0, 0.0});
  add_read(site, kForwardRead, {-1.0, -1.1});
  const SiteAnnotations a = annotate_site(site);
  EXPECT_EQ(info_value(a, "DP"), "10");
  EXPECT_EQ(a.samples[0].depth, 8);
}

// DepthPerAlleleBySampleUnitTest.testUsingReads (and its no-call no-op).
TEST(DepthPerAlleleBySample, UsingReads) {
  for (auto [ref_depth, alt_depth] : {std::pair{20, 17}, std::pair{0, 0}}) {
    const SiteAnnotations a = annotate_site(biallelic_site(reads(ref_depth), reads(alt_depth)));
    ASSERT_TRUE(a.samples[0].allele_depths);
    EXPECT_EQ(*a.samples[0].allele_depths, (std::vector<int>{ref_depth, alt_depth}));
  }
  const SiteAnnotations no_call =
      annotate_site(biallelic_site(reads(3), reads(2), -100, -100, {{{-1, -1}, {0, 0, 0}}}));
  EXPECT_FALSE(no_call.samples[0].allele_depths);
  EXPECT_FALSE(no_call.samples[0].depth);
}

// DepthPerAlleleBySampleUnitTest.testBlowUp: the likelihoods lack an allele of the call.
TEST(DepthPerAlleleBySample, CallAlleleMissingFromLikelihoods) {
  SiteEvidence site = biallelic_site(reads(1), {});
  site.call_alleles = {0, 2};
  EXPECT_THROW(annotate_site(site), Error);
}

// DepthPerSampleHCUnitTest.testNoReads.
TEST(DepthPerSampleHc, NoReads) {
  const SiteAnnotations a = annotate_site(biallelic_site({}, {}));
  EXPECT_EQ(a.samples[0].depth, 0);
}

TEST(DepthPerAlleleBySample, MarginalizedToCalledAlleles) {
  SiteEvidence site;
  site.likelihood_allele_count = 3;  // REF, ALT1, ALT2; the call keeps REF and ALT2
  site.call_alleles = {0, 2};
  site.samples = {{{0, 1}, {30, 0, 190}}};
  site.log10_p_error = -5;
  add_read(site, kForwardRead, {-1, -100, -100});    // REF
  add_read(site, kForwardRead, {-100, -1, -50});     // best ALT1 (dropped); ALT2 among the call's
  add_read(site, kForwardRead, {-100, -100, -1});    // ALT2
  add_read(site, kForwardRead, {-100, -1, -100.1});  // among the call's: REF by 0.1, a near-tie
  const SiteAnnotations a = annotate_site(site);
  EXPECT_EQ(*a.samples[0].allele_depths, (std::vector<int>{1, 2}));
  EXPECT_EQ(a.samples[0].depth, 3);
  EXPECT_EQ(info_value(a, "DP"), "4");
}

}  // namespace
}  // namespace gpp::stages::call
