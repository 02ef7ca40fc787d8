// Tests of the batched region API of stages/call/read_realignment (add_read_realignment_pairs,
// apply_read_realignments, realign_reads_to_best_haplotypes) and of bases_without_soft_clips,
// on cases whose expected starts and CIGARs were derived by hand from GATK's rules
// (realignReadsToTheirBestHaplotype / createReadAlignedToRef /
// ReadClipper.hardClipSoftClippedBases).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/read_realignment.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;
using test::text_of;

CallRead read_of(const std::string& name, const std::string& bases, const std::string& cigar,
                 std::int64_t start = 1003) {
  CallRead read;
  read.name = name;
  read.contig = 0;
  read.start = start;
  read.bases = bases;
  read.quals.assign(bases.size(), 25);
  read.cigar = cigar_of(cigar);
  read.mapping_quality = 60;
  return read;
}

// Region A. Reference haplotype R (20 bases, at offset 5 of the padded reference that starts at
// contig position 1000); haplotype H deletes R's GC at 8-9 (8M2D10M). The deletion cannot move
// left: the base before it (A) differs from its last base (C).
const std::string kR = "ACGTTGCAGCTAGGCATCCA";
const std::string kH = "ACGTTGCATAGGCATCCA";
const std::vector<Haplotype> kRegionAHaplotypes = {
    make_haplotype(kH, cigar_of("8M2D10M"), 5, {1005, 1024}, false),
    make_haplotype(kR, cigar_of("20M"), 5, {1005, 1024}, true)};
const std::vector<CallRead> kRegionAReads = {
    // H[2..14) after 2 soft-clipped bases: on H at 2, so on R at 2, i.e. 1000 + 5 + 2; the
    // haplotype's deletion comes through as 6M2D6M and the clip is put back
    read_of("through_deletion", "TT" + kH.substr(2, 12), "2S12M"),
    // R[3..15), best on R: at 1000 + 5 + 3
    read_of("reference", kR.substr(3, 12), "12M"),
    // the same bases, H 0.1 better: a near-tie, which the reference (priority 1) wins over H's
    // three-element CIGAR (priority -2)
    read_of("near_tie", kR.substr(3, 12), "12M"),
    // hard and soft clips on both sides are put back as they were
    read_of("clipped", "CC" + kH.substr(2, 12) + "G", "3H2S12M1S"),
    // nothing left once the soft clip is removed: kept as it is
    read_of("all_soft_clip", "ACGT", "4S"),
    // two bases hanging over H's start: the aligner clips them (2S10M at 0), they become an
    // insertion; the read's last two bases lie past H's deletion
    read_of("overhang", "GG" + kH.substr(0, 10), "12M")};
const std::vector<double> kRegionALikelihoods = {-1.0,  -10.0,   // through_deletion: H
                                                 -10.0, -1.0,    // reference: R
                                                 -1.0,  -1.1,    // near_tie: R
                                                 -1.0,  -10.0,   // clipped: H
                                                 -1.0,  -10.0,   // all_soft_clip: H
                                                 -1.0,  -10.0};  // overhang: H

ReadRealignmentInput region_a() {
  return {kRegionAReads, kRegionAHaplotypes, kRegionALikelihoods, 1, 1000};
}

// Region B: one reference haplotype with a run of five A; the read lacks one A. Wherever the
// aligner puts the deletion, left alignment moves it to the start of the run: 5M1D16M at the
// padded reference start (2000 + 0 + 0).
const std::string kR2 = "GACTCAAAAAGTCCTAGTCAGG";
const std::vector<Haplotype> kRegionBHaplotypes = {
    make_haplotype(kR2, cigar_of("22M"), 0, {2000, 2021}, true)};
const std::vector<CallRead> kRegionBReads = {
    read_of("homopolymer_deletion", "GACTCAAAAGTCCTAGTCAGG", "21M", 2003)};
const std::vector<double> kRegionBLikelihoods = {-3.0};

ReadRealignmentInput region_b() {
  return {kRegionBReads, kRegionBHaplotypes, kRegionBLikelihoods, 0, 2000};
}

struct Expected {
  std::int64_t start;
  const char* cigar;
};

void expect_reads(const std::vector<CallRead>& realigned, const std::vector<CallRead>& original,
                  const std::vector<Expected>& expected) {
  ASSERT_EQ(realigned.size(), expected.size());
  for (std::size_t r = 0; r < expected.size(); ++r) {
    EXPECT_EQ(realigned[r].start, expected[r].start) << original[r].name;
    EXPECT_EQ(text_of(realigned[r].cigar), expected[r].cigar) << original[r].name;
    EXPECT_EQ(realigned[r].name, original[r].name);
    EXPECT_EQ(realigned[r].bases, original[r].bases);
    EXPECT_EQ(realigned[r].quals, original[r].quals);
  }
}

const std::vector<Expected> kRegionAExpected = {{1007, "2S6M2D6M"}, {1008, "12M"},
                                                {1008, "12M"},      {1007, "3H2S6M2D6M1S"},
                                                {1003, "4S"},       {1005, "2I8M2D2M"}};
const std::vector<Expected> kRegionBExpected = {{2000, "5M1D16M"}};

TEST(ReadRealignment, PlanPicksBestHaplotypesAndNumbersPairsAcrossRegions) {
  kernels::SequencePairs pairs;
  const ReadRealignmentPlan a = add_read_realignment_pairs(region_a(), pairs);
  const ReadRealignmentPlan b = add_read_realignment_pairs(region_b(), pairs);
  EXPECT_EQ(a.pairs, (std::vector<std::int64_t>{0, 1, 2, 3, ReadRealignmentPlan::kNoPair, 4}));
  EXPECT_EQ(b.pairs, (std::vector<std::int64_t>{5}));
  ASSERT_EQ(pairs.size(), 6u);
  EXPECT_EQ(pairs.ref(0), kH);
  EXPECT_EQ(pairs.alt(0), kH.substr(2, 12));
  EXPECT_EQ(pairs.ref(1), kR);
  EXPECT_EQ(pairs.alt(3), kH.substr(2, 12));  // clips removed
  EXPECT_EQ(pairs.ref(5), kR2);

  const std::vector<int> best = {0, 1, 1, 0, 0, 0};
  for (std::size_t r = 0; r < best.size(); ++r) EXPECT_EQ(a.best[r].allele, best[r]) << r;
  EXPECT_TRUE(a.best[0].informative);
  EXPECT_FALSE(a.best[2].informative);  // won on priority
  EXPECT_EQ(a.best[2].second_allele, 0);
}

TEST(ReadRealignment, RegionsInOneBatch) {
  const std::vector<ReadRealignmentInput> regions = {region_a(), region_b()};
  kernels::SwStats stats;
  kernels::SmithWaterman aligner(kernels::Backend::kCpu);
  const auto realigned = realign_reads_to_best_haplotypes(regions, aligner, &stats);
  ASSERT_EQ(realigned.size(), 2u);
  expect_reads(realigned[0], kRegionAReads, kRegionAExpected);
  expect_reads(realigned[1], kRegionBReads, kRegionBExpected);
  EXPECT_EQ(stats.cpu_pairs, 6u);
}

TEST(ReadRealignment, StepByStepEqualsOneRegionAlone) {
  kernels::SequencePairs pairs;
  const ReadRealignmentPlan plan = add_read_realignment_pairs(region_a(), pairs);
  const kernels::SwAlignments alignments =
      kernels::SmithWaterman(kernels::Backend::kCpu)
          .align(pairs, kernels::kSwReadToHaplotype, kReadToHaplotypeOverhang);
  expect_reads(apply_read_realignments(region_a(), plan, alignments), kRegionAReads,
               kRegionAExpected);
}

TEST(ReadRealignment, FailedAlignmentKeepsTheRead) {
  const CallRead& read = kRegionAReads[0];
  for (std::int32_t offset : {-1, kernels::SwAlignments::kNoAlignment}) {
    const CallRead kept =
        create_read_aligned_to_ref(read, kRegionAHaplotypes[0], kR, 1000, offset, cigar_of("12M"));
    EXPECT_EQ(kept.start, read.start);
    EXPECT_EQ(text_of(kept.cigar), "2S12M");
  }
}

TEST(ReadRealignment, RejectsInconsistentInputs) {
  kernels::SequencePairs pairs;
  ReadRealignmentInput bad = region_a();
  bad.log10_likelihoods = bad.log10_likelihoods.first(10);
  EXPECT_THROW(add_read_realignment_pairs(bad, pairs), Error);
  bad = region_a();
  bad.reference_haplotype = 2;
  EXPECT_THROW(add_read_realignment_pairs(bad, pairs), Error);
  bad = region_a();
  bad.padded_reference_start = -1;
  EXPECT_THROW(add_read_realignment_pairs(bad, pairs), Error);

  Haplotype no_cigar = kRegionBHaplotypes[0];
  no_cigar.cigar.clear();
  bad = region_b();
  bad.haplotypes = {&no_cigar, 1};
  EXPECT_THROW(add_read_realignment_pairs(bad, pairs), Error);

  const ReadRealignmentPlan plan_b = add_read_realignment_pairs(region_b(), pairs);
  EXPECT_THROW(apply_read_realignments(region_a(), plan_b, kernels::SwAlignments{}), Error);
  EXPECT_TRUE(apply_read_realignments({}, ReadRealignmentPlan{}, kernels::SwAlignments{}).empty());
}

// ReadClipper.hardClipSoftClippedBases: leading soft clips and the last soft clip after the
// aligned bases go; with an unconsolidated 2S3S tail only the last clip goes (GATK's loop).
TEST(BasesWithoutSoftClips, FollowsTheReadClipper) {
  EXPECT_EQ(bases_without_soft_clips(read_of("r", "AACCCCG", "2S4M1S")), "CCCC");
  EXPECT_EQ(bases_without_soft_clips(read_of("r", "AACCCCG", "3H2S4M1S2H")), "CCCC");
  EXPECT_EQ(bases_without_soft_clips(read_of("r", "AACCCCG", "1S1S5M")), "CCCCG");
  EXPECT_EQ(bases_without_soft_clips(read_of("r", "ACGTACGTAC", "5M2S3S")), "ACGTACG");
  EXPECT_EQ(bases_without_soft_clips(read_of("r", "ACGT", "4S")), "");
  EXPECT_EQ(bases_without_soft_clips(read_of("r", "ACGT", "2M1I1M")), "ACGT");
  EXPECT_EQ(bases_without_soft_clips(read_of("r", "", "")), "");
}

}  // namespace
}  // namespace gpp::stages::call
