// BaseQRankSum, MQRankSum and ReadPosRankSum (stages/call/annotations/rank_sum and their use in
// annotate_site). Cases named after a GATK test port BaseQualityRankSumTestUnitTest,
// MappingQualityRankSumTestUnitTest and ReadPosRankSumTestUnitTest (1-based GATK positions are
// converted to our 0-based ones); "-1.383" etc. were printed by GATK's MannWhitneyU.java + Java
// String.format for the same values.
#include "stages/call/annotations/rank_sum.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cigar.hpp"
#include "stages/call/annotations/site_annotations.hpp"
#include "tests/stages/call/annotation_test_sites.hpp"

namespace gpp::stages::call {
namespace {

using namespace annotation_testing;

std::vector<std::uint32_t> parse_cigar(const std::string& text) {
  std::vector<std::uint32_t> cigar;
  std::uint32_t length = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      length = length * 10 + static_cast<std::uint32_t>(c - '0');
      continue;
    }
    const std::string ops = "MIDNSHP=X";
    cigar.push_back(cigar_element(static_cast<CigarOp>(ops.find(c)), length));
    length = 0;
  }
  return cigar;
}

/// ArtificialReadUtils.createArtificialRead(cigar): bases for every query-consuming op.
CallRead make_read(const std::string& cigar, std::int64_t start_0based, std::uint8_t mq = 60,
                   std::uint8_t qual = 30) {
  CallRead read;
  read.start = start_0based;
  read.cigar = parse_cigar(cigar);
  const auto length = static_cast<std::size_t>(cigar_query_length(read.cigar));
  read.bases.assign(length, 'A');
  read.quals.assign(length, qual);
  read.mapping_quality = mq;
  return read;
}

/// One site with the given reads as REF / ALT supporters (GATK test likelihoods -1 / -100).
SiteAnnotations annotate(const std::vector<CallRead>& ref_reads,
                         const std::vector<CallRead>& alt_reads, std::int64_t site_start,
                         std::int64_t site_end) {
  auto to_test_read = [&](const CallRead& read) {
    const RankSumReadValues values = rank_sum_read_values(read, site_start, site_end);
    TestRead t = kForwardRead.with_mapping_quality(read.mapping_quality);
    if (values.base_quality) t = t.with_base_quality(*values.base_quality);
    if (values.read_position) t = t.with_read_position(*values.read_position);
    return t;
  };
  std::vector<TestRead> refs, alts;
  for (const CallRead& r : ref_reads) refs.push_back(to_test_read(r));
  for (const CallRead& r : alt_reads) alts.push_back(to_test_read(r));
  // GATK's makeVC: two 0/1 samples, reads only in the first.
  return annotate_site(
      biallelic_site(refs, alts, -100, -100, {{{0, 1}, {30, 0, 190}}, {{0, 1}, {30, 0, 190}}}));
}

// BaseQualityRankSumTestUnitTest.testBaseQual: 10M reads at 1-based 10, site at 1-based 15.
TEST(BaseQualityRankSum, BaseQual) {
  std::vector<CallRead> refs = {make_read("10M", 9, 50, 50), make_read("10M", 9, 50, 60)};
  std::vector<CallRead> alts = {make_read("10M", 9, 50, 10), make_read("10M", 9, 50, 20)};
  const SiteAnnotations a = annotate(refs, alts, 14, 14);
  EXPECT_EQ(info_value(a, "BaseQRankSum"),
            rank_sum_text(std::vector<double>{10, 20}, std::vector<double>{50, 60}));
  EXPECT_EQ(info_value(a, "BaseQRankSum"), "-1.383");
}

// BaseQualityRankSumTestUnitTest.testEmptyIfNoGenotypes / testNullLikelihoodsReturnsEmpty.
TEST(BaseQualityRankSum, EmptyWithoutGenotypesOrReads) {
  EXPECT_FALSE(info_value(annotate_site(biallelic_site({}, {}, -100, -100, {})), "BaseQRankSum"));
  EXPECT_FALSE(info_value(annotate_site(biallelic_site({}, {})), "BaseQRankSum"));
}

// MappingQualityRankSumTestUnitTest.testMQ.
TEST(MappingQualityRankSum, MappingQualities) {
  std::vector<CallRead> refs = {make_read("10M", 0, 100), make_read("10M", 0, 110)};
  std::vector<CallRead> alts = {make_read("10M", 0, 10), make_read("10M", 0, 20)};
  const SiteAnnotations a = annotate(refs, alts, 4, 4);
  EXPECT_EQ(info_value(a, "MQRankSum"), "-1.383");
}

// ReadPosRankSumTestUnitTest.testReadPos: 10M reads at 1-based 1, 2 (REF) and 3, 4 (ALT).
TEST(ReadPosRankSum, ReadPos) {
  std::vector<CallRead> refs = {make_read("10M", 0, 30), make_read("10M", 1, 30)};
  std::vector<CallRead> alts = {make_read("10M", 2, 30), make_read("10M", 3, 30)};
  // Site at 1-based 5: distances from the start.
  EXPECT_EQ(info_value(annotate(refs, alts, 4, 4), "ReadPosRankSum"),
            rank_sum_text(std::vector<double>{5 - 3, 5 - 4}, std::vector<double>{5 - 1, 5 - 2}));
  // Site at 1-based 9, past the middle: distances from the end.
  EXPECT_EQ(info_value(annotate(refs, alts, 8, 8), "ReadPosRankSum"),
            rank_sum_text(std::vector<double>{3, 4}, std::vector<double>{1, 2}));
  EXPECT_EQ(info_value(annotate(refs, alts, 8, 8), "ReadPosRankSum"), "1.383");
  // Site at 1-based 20, past every read: nothing.
  EXPECT_FALSE(info_value(annotate(refs, alts, 19, 19), "ReadPosRankSum"));
}

// ReadPosRankSumTestUnitTest.testIsUsableRead (cigar, MQ, 1-based start, 1-based site, usable).
TEST(ReadPosRankSum, IsUsableRead) {
  struct Case {
    const char* cigar;
    int mq;
    int start;
    int site;
    bool usable;
  };
  const Case cases[] = {
      {"20M6D2M", 10, 1, 0, true},   {"20M6D2M", 10, 1, 27, true},   {"20M6D2M", 10, 1, 29, false},
      {"1I20M1S", 10, 1, 0, true},   {"1I20M1S", 0, 1, 0, false},    {"1I20M1S", 255, 1, 0, false},
      {"1I20M1S", 10, 1, 22, false}, {"1I20M1S", 10, 21, 42, false}, {"1I20M1H", 10, 1, 21, false},
  };
  for (const Case& c : cases) {
    const CallRead read = make_read(c.cigar, c.start - 1, static_cast<std::uint8_t>(c.mq));
    EXPECT_EQ(read_pos_rank_sum_usable(read, c.site - 1, c.site - 1), c.usable)
        << c.cigar << " " << c.site;
  }
}

// ReadPosRankSumTestUnitTest.testLeadingInsertion: site 1-based 99 (REF T, ALT TTTTT), read
// 10I10M at 1-based 100.
TEST(ReadPosRankSum, LeadingInsertion) {
  EXPECT_EQ(rank_sum_read_position(make_read("10I10M", 99), 98, 98), 0.0);
}

// ReadPosRankSumTestUnitTest.testSNPBetweenTwoDeletions: 10M10D1M10D10M at 1-based 100.
TEST(ReadPosRankSum, SnpBetweenTwoDeletions) {
  const CallRead read = make_read("10M10D1M10D10M", 99);
  EXPECT_EQ(rank_sum_read_position(read, 119, 119), 10.0);  // the 1M base
  EXPECT_EQ(rank_sum_read_position(read, 118, 118), 10.0);  // in the deletion: next base
}

TEST(ReadPosRankSum, ClipsAndBounds) {
  // 3S7M at 10: soft clips count as aligned from 7 and as read bases.
  const CallRead soft = make_read("3S7M", 10);
  EXPECT_EQ(rank_sum_read_position(soft, 7, 7), 0.0);
  EXPECT_EQ(rank_sum_read_position(soft, 12, 12), 4.0);  // index 5 of 10: min(5, 4)
  EXPECT_FALSE(rank_sum_read_position(soft, 6, 6));      // before the soft start
  EXPECT_FALSE(rank_sum_read_position(soft, 17, 17));    // past the end
  // Hard clips count on their side: 5H10M2H at 0, site 1 -> min(5 + 1, 10 - 1 - 1 + 2).
  EXPECT_EQ(rank_sum_read_position(make_read("5H10M2H", 0), 1, 1), 6.0);
  EXPECT_EQ(rank_sum_read_position(make_read("5H10M2H", 0), 8, 8), 3.0);
}

TEST(BaseQualityRankSum, ReadBaseQuality) {
  CallRead read = make_read("3S4M2D4M", 10);
  for (std::size_t i = 0; i < read.quals.size(); ++i) read.quals[i] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(rank_sum_base_quality(read, 10), 3.0);  // first aligned base, after 3S
  EXPECT_EQ(rank_sum_base_quality(read, 13), 6.0);
  EXPECT_FALSE(rank_sum_base_quality(read, 14));  // deletion
  EXPECT_EQ(rank_sum_base_quality(read, 16), 7.0);
  EXPECT_FALSE(rank_sum_base_quality(read, 9));   // soft clip: outside [start, end)
  EXPECT_FALSE(rank_sum_base_quality(read, 20));  // past the end
}

TEST(RankSum, MappingQualityZeroAndUninformativeReadsLeftOut) {
  // MQ 0 reads never count; a read in a near-tie is not informative.
  SiteEvidence site =
      biallelic_site({kForwardRead.with_mapping_quality(40), kForwardRead.with_mapping_quality(50),
                      kForwardRead.with_mapping_quality(0)},
                     {kForwardRead.with_mapping_quality(30), kForwardRead.with_mapping_quality(0)});
  add_read(site, kForwardRead.with_mapping_quality(1), {-1.0, -1.1});
  EXPECT_EQ(info_value(annotate_site(site), "MQRankSum"),
            rank_sum_text(std::vector<double>{30}, std::vector<double>{40, 50}));
  EXPECT_FALSE(rank_sum_text(std::vector<double>{}, std::vector<double>{40}));
}

}  // namespace
}  // namespace gpp::stages::call
