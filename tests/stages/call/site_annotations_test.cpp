// annotate_site end to end, and the informative-read rule (best_allele). The expected INFO values
// of the full site were computed by GATK's MannWhitneyU.java / FisherExactTest.java (commit
// 51797aa, commons-math 3.6.1, OpenJDK 17) and Java String.format on the per-read values listed
// in the test, which were derived by hand from the reads' CIGARs.
#include "stages/call/annotations/site_annotations.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/annotations/best_allele.hpp"
#include "stages/call/annotations/rank_sum.hpp"
#include "tests/stages/call/annotation_test_sites.hpp"

namespace gpp::stages::call {
namespace {

using namespace annotation_testing;
using V = std::vector<double>;

TEST(BestAllele, InformativeRule) {
  BestAllele b = best_allele_breaking_ties(V{-1.0, -100.0});
  EXPECT_EQ(b.allele, 0);
  EXPECT_TRUE(b.informative);
  b = best_allele_breaking_ties(V{-100.0, -1.0});
  EXPECT_EQ(b.allele, 1);
  EXPECT_TRUE(b.informative);
  // Difference of exactly 0.2 is not informative (> threshold needed).
  EXPECT_FALSE(best_allele_breaking_ties(V{0.0, -0.2}).informative);
  EXPECT_TRUE(best_allele_breaking_ties(V{0.0, -0.21}).informative);
  // Equal likelihoods: confidence 0.
  b = best_allele_breaking_ties(V{0.0, 0.0});
  EXPECT_EQ(b.allele, 0);
  EXPECT_EQ(b.confidence, 0);
  EXPECT_FALSE(b.informative);
  EXPECT_EQ(best_allele_breaking_ties(V{}).allele, -1);
}

TEST(BestAllele, NearTiesGoToReference) {
  // ALT best by 0.1: REF takes over (priority 1) and the read is not informative.
  BestAllele b = best_allele_breaking_ties(V{-1.1, -1.0});
  EXPECT_EQ(b.allele, 0);
  EXPECT_EQ(b.second_allele, 1);
  EXPECT_FALSE(b.informative);
  // Two ALTs tied, REF far behind: the first ALT stays best, not informative.
  b = best_allele_breaking_ties(V{-10, -1.0, -1.0});
  EXPECT_EQ(b.allele, 1);
  EXPECT_FALSE(b.informative);
  // ALT2 clear of everything: informative whatever the priorities.
  b = best_allele_breaking_ties(V{-10, -5, -1});
  EXPECT_EQ(b.allele, 2);
  EXPECT_EQ(b.second_allele, 1);
  EXPECT_DOUBLE_EQ(b.confidence, 4);
  EXPECT_TRUE(b.informative);
  // Every likelihood -inf: not informative.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(best_allele_breaking_ties(V{-inf, -inf}).informative);
}

CallRead make_read(std::int64_t start, std::vector<std::uint32_t> cigar, bool reverse,
                   std::uint8_t mq, std::uint8_t qual) {
  CallRead read;
  read.start = start;
  read.cigar = std::move(cigar);
  const auto length = static_cast<std::size_t>(cigar_query_length(read.cigar));
  read.bases.assign(length, 'C');
  read.quals.assign(length, qual);
  read.flag = reverse ? 0x10 : 0;
  read.mapping_quality = mq;
  return read;
}

void add_call_read(SiteEvidence& site, const CallRead& read, std::vector<double> likelihoods,
                   std::int64_t site_start, std::int64_t site_end) {
  const RankSumReadValues values = rank_sum_read_values(read, site_start, site_end);
  TestRead t = kForwardRead.with_mapping_quality(read.mapping_quality);
  if (read.is_reverse_strand()) t = t.reversed();
  if (values.base_quality) t = t.with_base_quality(*values.base_quality);
  if (values.read_position) t = t.with_read_position(*values.read_position);
  add_read(site, t, likelihoods);
}

SiteEvidence het_snp_site() {
  const std::int64_t site = 100;  // SNP, 0-based
  const auto m20 = std::vector<std::uint32_t>{cigar_element(CigarOp::kMatch, 20)};
  SiteEvidence s;
  s.contig = 0;
  s.start = site;
  s.likelihood_allele_count = 2;
  s.call_alleles = {0, 1};
  s.samples = {{{0, 1}, {62, 0, 78}}};
  s.log10_p_error = -6.2;  // QUAL 62
  s.mle_allele_counts = {1};
  const V ref{-1, -10}, alt{-10, -1};
  // REF reads: (base quality, read position) = (30, 5), (35, 9), (25, 6).
  add_call_read(s, make_read(95, m20, false, 60, 30), ref, site, site);
  add_call_read(s, make_read(90, m20, false, 60, 35), ref, site, site);
  add_call_read(
      s,
      make_read(99, {cigar_element(CigarOp::kSoftClip, 5), cigar_element(CigarOp::kMatch, 20)},
                false, 50, 25),
      ref, site, site);
  // ALT reads: (20, 0), (28, 4), and an MQ 0 read (in AD and FS, not in the rank sums).
  add_call_read(s, make_read(100, m20, true, 60, 20), alt, site, site);
  add_call_read(s, make_read(85, m20, true, 40, 28), alt, site, site);
  add_call_read(s, make_read(90, m20, true, 0, 30), alt, site, site);
  // A near-tie read and a genotyping-filtered read (likelihood 0): DP and MQ only.
  add_call_read(s, make_read(92, m20, false, 60, 30), {-1.0, -1.1}, site, site);
  add_call_read(s, make_read(93, m20, false, 15, 30), {0.0, 0.0}, site, site);
  return s;
}

TEST(SiteAnnotations, HetSnpEndToEnd) {
  const SiteAnnotations a = annotate_site(het_snp_site());
  EXPECT_EQ(info_field_text(a.info),
            "AC=1;AF=0.500;AN=2;BaseQRankSum=-1.036;DP=8;ExcessHet=0.0000;FS=10.000;MLEAC=1;"
            "MLEAF=0.500;MQ=48.38;MQRankSum=-0.674;QD=10.33;ReadPosRankSum=-1.645;SOR=2.776");
  ASSERT_EQ(a.samples.size(), 1u);
  EXPECT_EQ(join_integers(*a.samples[0].allele_depths), "3,3");
  EXPECT_EQ(a.samples[0].depth, 6);
}

// -AX FisherStrand -AX DepthPerAlleleBySample -A StrandBiasBySample: no FS and no AD; QD then
// divides by the sample's annotation reads (QualByDepth.getDepth without AD: the likelihoods'
// evidence count, 8 here, the filtered read among them); FORMAT SB in VCF mode.
TEST(SiteAnnotations, AnnotationSetChoosesTheFields) {
  SiteEvidence s = het_snp_site();
  s.annotations.remove(Annotation::kFisherStrand);
  s.annotations.remove(Annotation::kDepthPerAlleleBySample);
  s.annotations.add(Annotation::kStrandBiasBySample);
  const SiteAnnotations a = annotate_site(s);
  EXPECT_EQ(info_field_text(a.info),
            "AC=1;AF=0.500;AN=2;BaseQRankSum=-1.036;DP=8;ExcessHet=0.0000;MLEAC=1;"
            "MLEAF=0.500;MQ=48.38;MQRankSum=-0.674;QD=7.75;ReadPosRankSum=-1.645;SOR=2.776");
  EXPECT_FALSE(a.samples[0].allele_depths.has_value());
  EXPECT_EQ(a.samples[0].depth, 6);
  // REF reads 3 forward, ALT reads 3 reverse (the MQ 0 one too); the tie and the filtered read
  // are not informative.
  EXPECT_EQ(a.samples[0].strand_bias, (std::array<int, 4>{3, 0, 0, 3}));
  // Only MLEAC/MLEAF (the genotyper's) without the tool's defaults.
  s.annotations = AnnotationSet();
  const SiteAnnotations bare = annotate_site(s);
  EXPECT_EQ(info_field_text(bare.info), "MLEAC=1;MLEAF=0.500");
  EXPECT_FALSE(bare.samples[0].depth.has_value());
  EXPECT_FALSE(bare.samples[0].strand_bias.has_value());
  // Reference-confidence mode takes the set through for_reference_confidence: SB, no QD.
  s.annotations = AnnotationSet::haplotype_caller_defaults();
  s.reference_confidence = true;
  const SiteAnnotations gvcf = annotate_site(s);
  EXPECT_EQ(info_field_text(gvcf.info),
            "BaseQRankSum=-1.036;DP=8;ExcessHet=0.0000;MLEAC=1;MLEAF=0.500;MQRankSum=-0.674;"
            "RAW_MQandDP=18725,8;ReadPosRankSum=-1.645");
  EXPECT_EQ(gvcf.samples[0].strand_bias, (std::array<int, 4>{3, 0, 0, 3}));
}

TEST(SiteAnnotations, TwoSamplesQdUsesVariantSamplesOnly) {
  // Sample 0 hom-ref with 8 REF reads; sample 1 het with 3 REF + 2 ALT reads. QUAL 50.
  SiteEvidence s =
      biallelic_site(reads(8), {}, -100, -100, {{{0, 0}, {0, 24, 240}}, {{0, 1}, {40, 0, 60}}});
  for (int i = 0; i < 3; ++i) add_read(s, kForwardRead.in_sample(1), {-1, -100});
  for (int i = 0; i < 2; ++i) add_read(s, kReverseRead.in_sample(1), {-100, -1});
  const SiteAnnotations a = annotate_site(s);
  EXPECT_EQ(info_value(a, "QD"), "10.00");  // 50 / (3 + 2)
  EXPECT_EQ(info_value(a, "AN"), "4");
  EXPECT_EQ(info_value(a, "AF"), "0.250");
  EXPECT_EQ(info_value(a, "DP"), "13");
  EXPECT_EQ(join_integers(*a.samples[0].allele_depths), "8,0");
  EXPECT_EQ(join_integers(*a.samples[1].allele_depths), "3,2");
}

TEST(SiteAnnotations, InfoFieldTextAndValidation) {
  EXPECT_EQ(info_field_text({}), ".");
  const std::vector<InfoField> fields = {{"AC", "1"}, {"DP", "4"}};
  EXPECT_EQ(info_field_text(fields), "AC=1;DP=4");
  SiteEvidence s = biallelic_site(reads(1), reads(1));
  s.log10_likelihoods.pop_back();
  EXPECT_THROW(annotate_site(s), Error);
  s = biallelic_site(reads(1), {});
  s.reads[0].sample = 3;
  EXPECT_THROW(annotate_site(s), Error);
  s = biallelic_site(reads(1), {});
  s.call_alleles = {1, 0};
  EXPECT_THROW(annotate_site(s), Error);
  s = biallelic_site(reads(1), {});
  s.samples[0].alleles = {0, 2};
  EXPECT_THROW(annotate_site(s), Error);
}

}  // namespace
}  // namespace gpp::stages::call
