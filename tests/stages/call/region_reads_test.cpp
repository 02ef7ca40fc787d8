// Tests of stages/call/region_reads: GATK AssemblyBasedCallerUtilsUnitTest.testfinalizeRegion's
// two mates (expected reads derived by hand from GATK's rules: soft-clip reversion, adaptor
// clipping at mate start - 1, the Q20 / Q0 overlap correction), ReadCoordinateComparator order,
// and hand-derived cases of each finalisation switch, the trim and the genotyping selection.
#include "stages/call/region_reads.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::cigar_text;
using testing::make_read;
using testing::parse_cigar;

std::vector<std::uint8_t> phred33(const std::string& text) {
  std::vector<std::uint8_t> quals;
  for (char c : text) quals.push_back(static_cast<std::uint8_t>(c - 33));
  return quals;
}

/// The two SAM lines of testfinalizeRegion (positions 1-based there).
std::vector<CallRead> gatk_finalize_region_mates() {
  CallRead read0 = make_read(
      "HWI-ST807:461:C2P0JACXX:4:2204:18080:5857", 42596802, "1S95M5S",
      "GAATCATCATCAAATGGAATCTAATGGAATCATTGAACAGAATTGAATGGAATCGTCATCGAATGAATTGAATGCAATCATCGAATGG"
      "TCTCGAATAGAAT");
  read0.quals = phred33(
      "DAAAEDCFCCGEEDDBEDDDGCCDEDECDDFDCEECCFEECDCEDBCDBDBCC>DCECC>DBCDDBCBDDBCDDEBCCECC>DBCDBDB"
      "GC?FCCBDB>>?");
  read0.flag = 83;
  read0.mapping_quality = 39;
  read0.mate_contig = 0;
  read0.mate_start = 42596890;
  read0.insert_size = -7;
  CallRead read1 = make_read(
      "HWI-ST807:461:C2P0JACXX:4:2204:18080:5857", 42596890, "101M",
      "CTCGAATGGAATCATTTTCTACTGGAAAGGAATGGAATCATCGCATAGAATCGAATGGAATTAACATGGAATGGAATCGAATGTAAT"
      "CATCATCAAATGGA");
  read1.quals = phred33(
      ">@>:ABCDECCCEDCBBBDDBDDEBCCBEBBCBEBCBCDDCD>DECBGCDCF>CCCFCDDCBABDEDFCDCDFFDDDG?DDEGDDFDHF"
      "EGDDGECB@BAA");
  read1.flag = 163;
  read1.mapping_quality = 39;
  read1.mate_contig = 0;
  read1.mate_start = 42596802;
  read1.insert_size = 7;
  return {read0, read1};
}

// AssemblyBasedCallerUtilsUnitTest.testfinalizeRegion: region 1:42596728-42598843, padding 100.
TEST(FinalizeRegion, GatkOverlappingMates) {
  const std::vector<CallRead> reads = gatk_finalize_region_mates();
  const AssemblyRegion region = make_assembly_region(0, 42596727, 42598843, true, 100, 50000000);
  ASSERT_EQ(region.padded_start, 42596627);
  ASSERT_EQ(region.padded_end, 42598943);
  const auto finalized = finalize_region_reads(reads, region);
  ASSERT_EQ(finalized.size(), 2u);
  // read 1 (forward) sorts first at the shared start; no well-defined fragment size (it starts
  // past mate start + TLEN), so nothing is clipped
  const CallRead& forward = finalized[0];
  EXPECT_EQ(forward.flag, 163);
  EXPECT_EQ(forward.start, 42596890);
  EXPECT_EQ(cigar_text(forward.cigar), "101M");
  // read 0: 1S95M5S reverted to 101M at 42596801, then the adaptor (up to mate start - 1 =
  // 42596889) hard-clipped: 89H12M at 42596890
  const CallRead& reverse = finalized[1];
  EXPECT_EQ(reverse.flag, 83);
  EXPECT_EQ(reverse.start, 42596890);
  EXPECT_EQ(cigar_text(reverse.cigar), "89H12M");
  EXPECT_EQ(reverse.bases, "CTCGAATAGAAT");
  // the 12 overlapping bases: all agree but the 8th (A / G)
  EXPECT_EQ(reverse.quals,
            (std::vector<std::uint8_t>{20, 20, 20, 20, 20, 20, 20, 0, 20, 20, 20, 20}));
  std::vector<std::uint8_t> forward_quals = reads[1].quals;
  for (int i = 0; i < 12; ++i) forward_quals[i] = i == 7 ? 0 : 20;
  EXPECT_EQ(forward.quals, forward_quals);
  // without the overlap correction the qualities are the reads' own
  RegionFinalizationOptions no_correction;
  no_correction.correct_overlapping_base_qualities = false;
  const auto raw = finalize_region_reads(reads, 0, 42596627, 42598943, no_correction);
  EXPECT_EQ(raw[0].quals, reads[1].quals);
  EXPECT_EQ(raw[1].quals,
            std::vector<std::uint8_t>(reads[0].quals.begin() + 89, reads[0].quals.end()));
}

TEST(FinalizeRegion, SoftClipsTailsAndRegion) {
  // well-defined fragment: soft clips reverted; low tails (<= 9) clipped
  CallRead read = make_read("r", 100, "2S8M", "GGACGTACGT");
  testing::set_mate(read, 150, 60, false, true);
  read.quals = {30, 30, 30, 30, 30, 30, 30, 30, 9, 9};
  auto out = finalize_region_reads(std::vector<CallRead>{read}, 0, 0, 1000);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(cigar_text(out[0].cigar), "8M2H");
  EXPECT_EQ(out[0].start, 98);
  // --dont-use-soft-clipped-bases: the soft clip is hard-clipped instead
  RegionFinalizationOptions dont_use;
  dont_use.dont_use_soft_clipped_bases = true;
  out = finalize_region_reads(std::vector<CallRead>{read}, 0, 0, 1000, dont_use);
  EXPECT_EQ(cigar_text(out[0].cigar), "2H6M2H");
  EXPECT_EQ(out[0].start, 100);
  // error correction lowers the tail threshold to 6: the 9s stay
  RegionFinalizationOptions error_correct;
  error_correct.error_correct_reads = true;
  out = finalize_region_reads(std::vector<CallRead>{read}, 0, 0, 1000, error_correct);
  EXPECT_EQ(cigar_text(out[0].cigar), "10M");
  // soft-clipping the low tails instead
  RegionFinalizationOptions soft;
  soft.soft_clip_low_quality_ends = true;
  out = finalize_region_reads(std::vector<CallRead>{read}, 0, 0, 1000, soft);
  EXPECT_EQ(cigar_text(out[0].cigar), "8M2S");
  // an unpaired read has no fragment size: its soft clip is hard-clipped
  CallRead single = make_read("s", 100, "2S8M", "GGACGTACGT");
  out = finalize_region_reads(std::vector<CallRead>{single}, 0, 0, 1000);
  EXPECT_EQ(cigar_text(out[0].cigar), "2H8M");
  // clipped to the padded region [103, 105), dropped outside it or when all low quality
  out = finalize_region_reads(std::vector<CallRead>{single}, 0, 103, 105);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(cigar_text(out[0].cigar), "5H2M3H");
  EXPECT_EQ(out[0].bases, "TA");
  EXPECT_TRUE(finalize_region_reads(std::vector<CallRead>{single}, 0, 200, 300).empty());
  single.quals.assign(10, 9);
  EXPECT_TRUE(finalize_region_reads(std::vector<CallRead>{single}, 0, 0, 1000).empty());
}

// ReadCoordinateComparator, hand-derived: each key in turn, unplaced reads last, ties stable.
TEST(ReadCoordinateOrder, KeysInTurn) {
  auto read = [](std::string name, std::int32_t contig, std::int64_t start) {
    CallRead r = make_read(std::move(name), start, "4M", "ACGT");
    r.contig = contig;
    return r;
  };
  EXPECT_LT(compare_read_coordinates(read("z", 0, 5), read("a", 1, 1)), 0);
  EXPECT_LT(compare_read_coordinates(read("z", 0, 5), read("a", 0, 6)), 0);
  EXPECT_GT(compare_read_coordinates(read("a", -1, 0), read("z", 3, 9)), 0);
  CallRead reverse = read("a", 0, 5);
  reverse.flag = 0x10;
  EXPECT_GT(compare_read_coordinates(reverse, read("z", 0, 5)), 0);
  EXPECT_LT(compare_read_coordinates(read("a", 0, 5), read("b", 0, 5)), 0);
  CallRead duplicate = read("a", 0, 5);
  duplicate.flag = 0x400;
  EXPECT_GT(compare_read_coordinates(duplicate, read("a", 0, 5)), 0);
  CallRead low_mq = read("a", 0, 5);
  low_mq.mapping_quality = 20;
  EXPECT_LT(compare_read_coordinates(low_mq, read("a", 0, 5)), 0);
  CallRead mate_far = read("a", 0, 5);
  testing::set_mate(mate_far, 90, 0, false, false);
  CallRead mate_near = mate_far;
  mate_near.mate_start = 10;
  EXPECT_LT(compare_read_coordinates(mate_near, mate_far), 0);
  CallRead longer = mate_near;
  longer.insert_size = 5;
  EXPECT_GT(compare_read_coordinates(longer, mate_near), 0);

  std::vector<CallRead> reads = {read("b", 0, 7), read("a", 0, 7), read("c", 0, 3)};
  reads[0].name = reads[1].name = "same";  // equal keys: input order kept
  reads[0].quals[0] = 1;
  sort_reads_by_coordinate(reads);
  EXPECT_EQ(reads[0].name, "c");
  EXPECT_EQ(reads[1].quals[0], 1);
}

TEST(TrimReadsToRegion, ClipsDropsAndSorts) {
  const std::vector<CallRead> reads = {make_read("b", 100, "10M", "ACGTACGTAC"),
                                       make_read("a", 95, "10M", "ACGTACGTAC"),
                                       make_read("c", 120, "10M", "ACGTACGTAC")};
  const auto trimmed = trim_reads_to_region(reads, 0, 102, 110);
  ASSERT_EQ(trimmed.size(), 2u);
  EXPECT_EQ(trimmed[0].name, "a");
  EXPECT_EQ(cigar_text(trimmed[0].cigar), "7H3M");
  EXPECT_EQ(trimmed[0].start, 102);
  EXPECT_EQ(trimmed[1].name, "b");
  EXPECT_EQ(cigar_text(trimmed[1].cigar), "2H8M");
}

TEST(SelectGenotypingReads, StubsDroppedFailuresSetAside) {
  std::vector<CallRead> reads = {
      make_read("stub", 100, "9M", "ACGTACGTA"), make_read("ok", 100, "10M", "ACGTACGTAC"),
      make_read("lowmq", 101, "10M", "ACGTACGTAC"), make_read("other", 102, "10M", "ACGTACGTAC")};
  reads[2].mapping_quality = 19;
  testing::set_mate(reads[3], 50, 0, false, true);
  reads[3].mate_contig = 1;
  const GenotypingReads selected = select_genotyping_reads(reads);
  ASSERT_EQ(selected.reads.size(), 1u);
  EXPECT_EQ(selected.reads[0].name, "ok");
  ASSERT_EQ(selected.filtered.size(), 2u);
  EXPECT_EQ(selected.filtered[0].name, "lowmq");
  EXPECT_EQ(selected.filtered[1].name, "other");
}

}  // namespace
}  // namespace gpp::stages::call
