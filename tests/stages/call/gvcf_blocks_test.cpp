// GQ bands, hom-ref blocks and the block combiner, ported from GATK's GVCFWriterUnitTest and
// HomRefBlockUnitTest (utils/variant/writers). The combiner's text against whole runs of GATK's
// records is checked in gvcf_format_test.cpp.
#include "stages/call/gvcf_blocks.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::call {
namespace {

const std::vector<VcfContig> kContigs = {{"1", 1000000}, {"2", 1000000}};

// VariantContextTestUtils.makeHomRef: REF G, DP 10, AD 1,2, PL 0,GQ,20+GQ. `position` is 1-based.
ReferenceSite hom_ref(std::int32_t contig, std::int64_t position, int gq) {
  return {contig, position - 1, 'G', 2, {1, 2}, 10, gq, {0, gq, 20 + gq}};
}
ReferenceSite hom_ref(std::int64_t position, int gq = 0) { return hom_ref(0, position, gq); }

// VariantContextTestUtils.makeNonRef: a 0/1 SNP with GQ 30 (and <NON_REF>, as HaplotypeCaller
// writes calls in reference-confidence mode).
VariantCall non_ref(std::int32_t contig, std::int64_t position) {
  VariantCall call;
  call.contig = contig;
  call.position = position - 1;
  call.alleles = {"G", "A", kNonRefAllele};
  call.genotype.alleles = {0, 1};
  call.genotype.gq = 30;
  call.genotype.pls = {0, 30, 50, 40, 60, 90};
  call.sample.depth = 10;
  return call;
}

// VariantContextTestUtils.makeDeletion: REF of `size` A's, ALT A, 0/1 with GQ 50.
VariantCall deletion(std::int64_t position, int size) {
  VariantCall call = non_ref(0, position);
  call.alleles = {std::string(static_cast<std::size_t>(size), 'A'), "A", kNonRefAllele};
  call.genotype.gq = 50;
  return call;
}

/// What GATK's tests check of an emitted record: where it is, whether it is a block, its GQ.
struct Emitted {
  std::string contig;
  std::int64_t start = 0;  // 1-based
  std::int64_t stop = 0;   // 1-based inclusive
  bool block = false;
  int gq = -1;
  bool operator==(const Emitted&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Emitted& e) {
  return os << e.contig << ':' << e.start << '-' << e.stop << (e.block ? " block" : " call")
            << " GQ " << e.gq;
}

std::vector<Emitted> emitted(const std::string& text) {
  std::vector<Emitted> records;
  for (const std::string& line : test::split(text, '\n')) {
    const std::vector<std::string> f = test::split(line, '\t');
    Emitted e;
    e.contig = f.at(0);
    e.start = std::stoll(f.at(1));
    e.block = f.at(7).starts_with("END=");
    e.stop = e.block ? std::stoll(f[7].substr(4))
                     : e.start + static_cast<std::int64_t>(f.at(3).size()) - 1;
    const std::vector<std::string> keys = test::split(f.at(8), ':');
    const std::vector<std::string> values = test::split(f.at(9), ':');
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] == "GQ") e.gq = std::stoi(values.at(k));
    }
    records.push_back(e);
  }
  return records;
}

GvcfOptions bands_options(std::vector<int> bounds, bool floor_blocks = false) {
  GvcfOptions options;
  options.gq_band_upper_bounds = std::move(bounds);
  options.floor_blocks = floor_blocks;
  return options;
}

// GVCFWriterUnitTest.standardPartition.
GvcfBlockCombiner standard_combiner() {
  return GvcfBlockCombiner(kContigs, bands_options({1, 10, 20}));
}

// --- GQ bands (GVCFWriterUnitTest.makeBandPartitionData / makeBadBandPartitionData) ---

TEST(GqBands, GoodPartitions) {
  using Bands = std::vector<GqBand>;
  EXPECT_EQ(gq_bands(std::vector{1}), (Bands{{0, 1}, {1, 100}}));
  EXPECT_EQ(gq_bands(std::vector{1, 2, 3}), (Bands{{0, 1}, {1, 2}, {2, 3}, {3, 100}}));
  EXPECT_EQ(gq_bands(std::vector{1, 10}), (Bands{{0, 1}, {1, 10}, {10, 100}}));
  EXPECT_EQ(gq_bands(std::vector{1, 10, 30}), (Bands{{0, 1}, {1, 10}, {10, 30}, {30, 100}}));
  EXPECT_EQ(gq_bands(std::vector{1, 10, 98}), (Bands{{0, 1}, {1, 10}, {10, 98}, {98, 100}}));
  EXPECT_EQ(gq_bands(std::vector{1, 10, 99}), (Bands{{0, 1}, {1, 10}, {10, 99}, {99, 100}}));
  EXPECT_EQ(gq_bands(std::vector{1, 10, 100}), (Bands{{0, 1}, {1, 10}, {10, 100}}));
  EXPECT_EQ(gq_bands(std::vector{100}), (Bands{{0, 100}}));
}

TEST(GqBands, BadPartitionsAreErrors) {
  EXPECT_THROW(gq_bands(std::vector<int>{}), Error);
  EXPECT_THROW(gq_bands(std::vector{10, 1, 30}), Error);
  EXPECT_THROW(gq_bands(std::vector{-1, 1}), Error);
  EXPECT_THROW(gq_bands(std::vector{1, 1, 10}), Error);
  EXPECT_THROW(gq_bands(std::vector{1, 10, 101}), Error);
  EXPECT_THROW(gq_bands(std::vector{0, 10}), Error);  // 0 repeats the implicit lower bound
  EXPECT_THROW(GvcfBlockCombiner(kContigs, bands_options({20, 10})), Error);
}

TEST(GqBands, HaplotypeCallerDefault) {
  const std::vector<GqBand> bands = gq_bands(default_gq_band_upper_bounds());
  ASSERT_EQ(bands.size(), 65u);
  EXPECT_EQ(bands[0], (GqBand{0, 1}));
  EXPECT_EQ(bands[59], (GqBand{59, 60}));
  EXPECT_EQ(bands[60], (GqBand{60, 70}));
  EXPECT_EQ(bands[63], (GqBand{90, 99}));
  EXPECT_EQ(bands[64], (GqBand{99, 100}));
}

// --- HomRefBlock (HomRefBlockUnitTest; its block is [10, 20) at 20:1001) ---

ReferenceSite block_site(std::int64_t position, int depth, int gq, std::vector<int> pls) {
  return {0, position - 1, 'A', 2, {depth, 0}, depth, gq, std::move(pls)};
}

TEST(HomRefBlock, BandBounds) {
  const HomRefBlock block(block_site(1001, 10, 15, {}), {10, 20});
  EXPECT_EQ(block.band(), (GqBand{10, 20}));
  for (const auto& [gq, inside] : std::vector<std::pair<int, bool>>{
           {1, false}, {10, true}, {11, true}, {20, false}, {21, false}}) {
    EXPECT_EQ(block.can_merge(block_site(1002, 10, gq, {0, gq, 100})), inside) << gq;
  }
  // testAddGQGreaterThanMaxGenotypeQual: a GQ above 99 is banded as 99.
  HomRefBlock top(block_site(1001, 10, 95, {0, 95, 200}), {90, 100});
  EXPECT_TRUE(top.can_merge(block_site(1002, 10, 150, {0, 10, 100})));
  EXPECT_NO_THROW(top.add(block_site(1002, 10, 150, {0, 10, 100})));
  EXPECT_THROW(HomRefBlock(block_site(1001, 10, 95, {}), {90, 101}), Error);
}

TEST(HomRefBlock, MinAndMedianDepth) {
  HomRefBlock block(block_site(1001, 10, 15, {}), {10, 20});
  EXPECT_EQ(block.min_depth(), 10);
  EXPECT_EQ(block.median_depth(), 10);
  EXPECT_EQ(block.end(), 1001);
  block.add(block_site(1002, 11, 10, {0, 10, 100}));
  EXPECT_EQ(block.min_depth(), 10);
  EXPECT_EQ(block.median_depth(), 11);  // median of 10, 11 is 10.5, rounded up
  block.add(block_site(1003, 12, 12, {0, 12, 100}));
  EXPECT_EQ(block.median_depth(), 11);
  block.add(block_site(1004, 13, 15, {0, 15, 100}));
  block.add(block_site(1005, 14, 16, {0, 16, 100}));
  block.add(block_site(1006, 15, 17, {0, 17, 100}));
  block.add(block_site(1007, 16, 18, {0, 18, 100}));
  EXPECT_EQ(block.min_depth(), 10);
  EXPECT_EQ(block.median_depth(), 13);
  EXPECT_EQ(block.end() - block.start(), 7);
  EXPECT_EQ(std::vector<int>(block.min_pls().begin(), block.min_pls().end()),
            (std::vector<int>{0, 10, 100}));
}

TEST(HomRefBlock, BadAdditionsAreErrors) {
  // testBadAdd after a block over 1001..2001 and testCantAddDifferentNumbersOfPls.
  const auto valid = [](std::int64_t position) {
    return block_site(position, 10, 15, {0, 15, 100});
  };
  const auto block = [&] {
    HomRefBlock b(valid(1001), {10, 20});
    for (std::int64_t p = 1002; p <= 2001; ++p) b.add(valid(p));
    return b;
  };
  EXPECT_THROW(block().add(valid(2003)), Error);                              // a gap
  EXPECT_THROW(block().add(valid(1001)), Error);                              // overlaps
  EXPECT_THROW(block().add(valid(1000)), Error);                              // before the start
  EXPECT_THROW(block().add(block_site(2002, 10, 1, {0, 1, 100})), Error);     // GQ below the band
  EXPECT_THROW(block().add(block_site(2002, 10, 100, {0, 15, 100})), Error);  // 100 -> 99
  ReferenceSite triploid = valid(2002);
  triploid.ploidy = 3;
  EXPECT_THROW(block().add(triploid), Error);
  EXPECT_THROW(block().add(block_site(2002, 10, 15, {1, 2, 4, 5, 6})), Error);
}

TEST(HomRefBlock, SitesWithoutPls) {
  // testNoPLs: the PLs come from the first site that has them; GQ then follows them.
  HomRefBlock block(block_site(1001, 10, 15, {}), {10, 20});
  EXPECT_TRUE(block.min_pls().empty());
  block.add(block_site(1002, 10, 15, {0, 15, 100}));
  EXPECT_EQ(block.min_pls()[1], 15);
  EXPECT_EQ(block.gq(), 15);
  block.add(block_site(1003, 10, 15, {}));
  EXPECT_EQ(block.end() - block.start(), 3);
  EXPECT_EQ(block.min_pls()[1], 15);
  EXPECT_EQ(block.gq(), 15);
}

TEST(HomRefBlock, IsContiguous) {
  const HomRefBlock block(block_site(1001, 10, 15, {}), {10, 20});
  for (const int offset : {-10, -1, 0, 1, 10}) {
    EXPECT_EQ(block.is_contiguous(0, 1000 + offset), offset >= -1 && offset <= 1) << offset;
    EXPECT_FALSE(block.is_contiguous(1, 1000 + offset)) << offset;
  }
}

TEST(HomRefBlock, RecordTakesMedianDepthAndGqOfMinimumPls) {
  // testToVariantContext: DPs 10, 6, 10 -> 10; GQ recomputed from the minimum PLs 0,5,80 -> 5.
  HomRefBlock block(block_site(1001, 10, 15, {}), {10, 20});
  block.add(block_site(1002, 6, 15, {0, 10, 100}));
  block.add(block_site(1003, 10, 17, {0, 5, 80}));
  const ReferenceBlock record = block.record(false);
  EXPECT_EQ(record, (ReferenceBlock{0, 1000, 1003, 'A', 2, 10, 6, 5, {0, 5, 80}}));
  EXPECT_EQ(block.record(true), (ReferenceBlock{0, 1000, 1003, 'A', 2, 10, std::nullopt, 10, {}}));
}

// --- GvcfBlockCombiner (GVCFWriterUnitTest) ---

Emitted block(const char* contig, std::int64_t start, std::int64_t stop, int gq) {
  return {contig, start, stop, true, gq};
}
Emitted call_at(const char* contig, std::int64_t start, std::int64_t stop, int gq) {
  return {contig, start, stop, false, gq};
}

TEST(GvcfBlockCombiner, FinishWritesTheOpenBlockOnly) {
  // testCloseEmitsLastVariant / testCloseDoesntEmitsLastVariantWhenNonRef.
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1), out);
  EXPECT_TRUE(out.empty());
  combiner.finish(out);
  EXPECT_EQ(emitted(out), (std::vector{block("1", 1, 1, 0)}));

  GvcfBlockCombiner calls = standard_combiner();
  std::string call_out;
  calls.add(non_ref(0, 1), call_out);
  calls.finish(call_out);
  EXPECT_EQ(emitted(call_out), (std::vector{call_at("1", 1, 1, 30)}));
}

TEST(GvcfBlockCombiner, ContigChangeEndsTheBlock) {
  // testCrossingContigBoundaryRef / ...ToLowerPositionsRef / ...FromNonRefToLowerPositionsRef.
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1), out);
  combiner.add(hom_ref(2), out);
  combiner.add(hom_ref(1, 3, 0), out);
  EXPECT_EQ(emitted(out), (std::vector{block("1", 1, 2, 0)}));
  combiner.finish(out);
  EXPECT_EQ(emitted(out), (std::vector{block("1", 1, 2, 0), block("2", 3, 3, 0)}));

  GvcfBlockCombiner lower = standard_combiner();
  out.clear();
  lower.add(hom_ref(30), out);
  lower.add(hom_ref(31), out);
  lower.add(hom_ref(1, 10, 0), out);
  lower.add(non_ref(1, 11), out);
  EXPECT_EQ(emitted(out),
            (std::vector{block("1", 30, 31, 0), block("2", 10, 10, 0), call_at("2", 11, 11, 30)}));

  GvcfBlockCombiner from_call = standard_combiner();
  out.clear();
  from_call.add(non_ref(0, 20), out);
  from_call.add(hom_ref(1, 10, 30), out);
  EXPECT_EQ(emitted(out).size(), 1u);
  from_call.add(non_ref(1, 11), out);
  EXPECT_EQ(emitted(out), (std::vector{call_at("1", 20, 20, 30), block("2", 10, 10, 30),
                                       call_at("2", 11, 11, 30)}));
}

TEST(GvcfBlockCombiner, CallsEndBlocksAndPassThrough) {
  // testCrossingContigBoundaryNonRef, ...NonRefThenNonRef, testVariantForcesNonRef.
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1), out);
  combiner.add(hom_ref(2), out);
  combiner.add(non_ref(1, 3), out);
  combiner.add(non_ref(1, 4), out);
  EXPECT_EQ(emitted(out),
            (std::vector{block("1", 1, 2, 0), call_at("2", 3, 3, 30), call_at("2", 4, 4, 30)}));

  GvcfBlockCombiner forced = standard_combiner();
  out.clear();
  for (const std::int64_t p : {1, 2}) forced.add(hom_ref(p), out);
  forced.add(non_ref(0, 3), out);
  for (const std::int64_t p : {4, 5}) forced.add(hom_ref(p), out);
  EXPECT_EQ(emitted(out).size(), 2u);
  forced.finish(out);
  EXPECT_EQ(emitted(out),
            (std::vector{block("1", 1, 2, 0), call_at("1", 3, 3, 30), block("1", 4, 5, 0)}));
}

TEST(GvcfBlockCombiner, BandChangeAndGapEndTheBlock) {
  // testEmittingTwoBands, testNonContiguousBlocks.
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1), out);
  combiner.add(hom_ref(2), out);
  combiner.add(hom_ref(3, 50), out);
  combiner.add(hom_ref(4, 50), out);
  combiner.add(hom_ref(10, 50), out);
  combiner.add(hom_ref(11, 50), out);
  combiner.finish(out);
  EXPECT_EQ(emitted(out),
            (std::vector{block("1", 1, 2, 0), block("1", 3, 4, 50), block("1", 10, 11, 50)}));
}

TEST(GvcfBlockCombiner, SitesUnderACallAreDropped) {
  // testDeletion: the sites at 4 and 5 lie under the deletion at 3..5.
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1), out);
  combiner.add(hom_ref(2), out);
  combiner.add(deletion(3, 3), out);
  for (const std::int64_t p : {4, 5, 6, 7}) combiner.add(hom_ref(p), out);
  combiner.finish(out);
  EXPECT_EQ(emitted(out),
            (std::vector{block("1", 1, 2, 0), call_at("1", 3, 5, 50), block("1", 6, 7, 0)}));
}

TEST(GvcfBlockCombiner, HomRefCallWithARealAltIsACall) {
  // testHomRefAlt: a 0/0 call whose ALT is not only <NON_REF> is written as it is.
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1), out);
  combiner.add(hom_ref(2), out);
  VariantCall hom_ref_call = non_ref(0, 3);
  hom_ref_call.genotype.alleles = {0, 0};
  hom_ref_call.genotype.gq = 0;
  combiner.add(hom_ref_call, out);
  for (const std::int64_t p : {4, 5, 6, 7}) combiner.add(hom_ref(p), out);
  combiner.finish(out);
  EXPECT_EQ(emitted(out),
            (std::vector{block("1", 1, 2, 0), call_at("1", 3, 3, 0), block("1", 4, 7, 0)}));
}

TEST(GvcfBlockCombiner, WrittenGqsOfGatksDiskCases) {
  // writeGVCFToDisk with GQ partitions 1, 10, 30.
  const auto run = [](const std::vector<ReferenceSite>& sites, const VariantCall* call,
                      std::size_t call_before) {
    GvcfBlockCombiner combiner(kContigs, bands_options({1, 10, 30}));
    std::string out;
    for (std::size_t i = 0; i < sites.size(); ++i) {
      if (call != nullptr && i == call_before) combiner.add(*call, out);
      combiner.add(sites[i], out);
    }
    if (call != nullptr && call_before == sites.size()) combiner.add(*call, out);
    combiner.finish(out);
    return emitted(out);
  };
  EXPECT_EQ(run({hom_ref(1, 33), hom_ref(2, 31), hom_ref(3, 30)}, nullptr, 0),
            (std::vector{block("1", 1, 3, 30)}));
  EXPECT_EQ(run({hom_ref(0, 1, 10), hom_ref(1, 2, 10)}, nullptr, 0),
            (std::vector{block("1", 1, 1, 10), block("2", 2, 2, 10)}));
  EXPECT_EQ(run({hom_ref(1, 30), hom_ref(2, 15), hom_ref(3, 15)}, nullptr, 0),
            (std::vector{block("1", 1, 1, 30), block("1", 2, 3, 15)}));
  const VariantCall long_deletion = deletion(100, 5);
  EXPECT_EQ(run({}, &long_deletion, 0), (std::vector{call_at("1", 100, 104, 50)}));
  const VariantCall snp = non_ref(0, 3);
  EXPECT_EQ(run({hom_ref(1, 15), hom_ref(2, 16), hom_ref(4, 15)}, &snp, 2),
            (std::vector{block("1", 1, 2, 15), call_at("1", 3, 3, 30), block("1", 4, 4, 15)}));
}

TEST(GvcfBlockCombiner, PloidyOrPlCountChangeEndsTheBlock) {
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1, 50), out);
  ReferenceSite haploid = hom_ref(2, 50);
  haploid.ploidy = 1;
  haploid.pls = {0, 50};
  combiner.add(haploid, out);
  ReferenceSite more_pls = hom_ref(3, 50);
  more_pls.pls = {0, 50, 70, 90};
  combiner.add(more_pls, out);
  combiner.add(hom_ref(4, 50), out);
  combiner.finish(out);
  EXPECT_EQ(emitted(out), (std::vector{block("1", 1, 1, 50), block("1", 2, 2, 50),
                                       block("1", 3, 3, 50), block("1", 4, 4, 50)}));
  EXPECT_NE(out.find("\tGT:DP:GQ:MIN_DP:PL\t0:10:50:10:0,50\n"), std::string::npos);
}

TEST(GvcfBlockCombiner, OverlappingSiteIsAnError) {
  GvcfBlockCombiner combiner = standard_combiner();
  std::string out;
  combiner.add(hom_ref(1), out);
  combiner.add(hom_ref(2), out);
  EXPECT_THROW(combiner.add(hom_ref(2), out), Error);
}

TEST(GvcfBlockCombiner, NeedsAReferenceConfidenceMode) {
  GvcfOptions options;
  options.mode = ReferenceConfidenceMode::kNone;
  EXPECT_THROW(GvcfBlockCombiner(kContigs, options), Error);
}

}  // namespace
}  // namespace gpp::stages::call
