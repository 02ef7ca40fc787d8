// Tests of stages/call/overlapping_mates: GATK FragmentUtilsUnitTest, case for case (GATK's
// 1-based alignment starts minus one), and FragmentCollection pairing, hand-derived.
#include "stages/call/overlapping_mates.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::make_read;
using testing::parse_cigar;

constexpr std::uint8_t kHigh = 30;
constexpr std::uint8_t kOverlapping = 20;

/// FragmentUtilsUnitTest.makeOverlappingRead
CallRead overlapping_read(const std::string& left_flank, std::uint8_t left_qual,
                          const std::string& overlap,
                          const std::vector<std::uint8_t>& overlap_quals,
                          const std::string& right_flank, std::uint8_t right_qual,
                          std::int64_t alignment_start_1, int left_softclip, int right_softclip) {
  const std::string bases = left_flank + overlap + right_flank;
  const int length = static_cast<int>(bases.size());
  std::string cigar = left_softclip != 0 ? std::to_string(left_softclip) + "S" : "";
  cigar += std::to_string(length - right_softclip - left_softclip) + "M";
  if (right_softclip != 0) cigar += std::to_string(right_softclip) + "S";
  CallRead read = make_read("myRead", alignment_start_1 + left_softclip - 1, cigar, bases);
  read.quals.assign(left_flank.size(), left_qual);
  read.quals.insert(read.quals.end(), overlap_quals.begin(), overlap_quals.end());
  read.quals.insert(read.quals.end(), right_flank.size(), right_qual);
  return read;
}

const std::string kAllOverlapping = "ACGTACGTGGAACCTTAG";

void expect_quals(const CallRead& read, std::size_t from, std::size_t to, std::uint8_t quality,
                  const char* what) {
  for (std::size_t i = from; i < to; ++i) EXPECT_EQ(read.quals[i], quality) << what << " " << i;
}

// FragmentUtilsUnitTest.testAdjustingTwoReads
TEST(OverlappingMates, AdjustTwoReads) {
  for (std::size_t size = 1; size < kAllOverlapping.size(); ++size) {
    const std::string overlap = kAllOverlapping.substr(0, size);
    const std::vector<std::uint8_t> quals(size, kHigh);
    CallRead read1 = overlapping_read("CCC", kHigh, overlap, quals, "", kHigh, 1, 0, 0);
    CallRead read2 = overlapping_read("", kHigh, overlap, quals, "AAA", kHigh, 4, 0, 0);
    adjust_quals_of_overlapping_mates(read1, read2);
    expect_quals(read1, 0, read1.bases.size() - size, kHigh, "read1 flank");
    expect_quals(read1, read1.bases.size() - size, read1.bases.size(), kOverlapping, "read1");
    expect_quals(read2, 0, size, kOverlapping, "read2");
    expect_quals(read2, size, read2.bases.size(), kHigh, "read2 flank");
  }
}

// FragmentUtilsUnitTest.testAdjustingTwoReadsWithSoftClipping
TEST(OverlappingMates, SoftClipsOutsideTheOverlap) {
  for (std::size_t size = 1; size < kAllOverlapping.size(); ++size) {
    for (int left_clip = 0; left_clip <= 3; ++left_clip) {
      for (int right_clip = 0; right_clip <= 3; ++right_clip) {
        const std::string overlap = kAllOverlapping.substr(0, size);
        const std::vector<std::uint8_t> quals(size, kHigh);
        CallRead read1 = overlapping_read("CCC", kHigh, overlap, quals, "", kHigh, 1, left_clip, 0);
        CallRead read2 =
            overlapping_read("", kHigh, overlap, quals, "AAA", kHigh, 4, 0, right_clip);
        adjust_quals_of_overlapping_mates(read1, read2);
        expect_quals(read1, 0, read1.bases.size() - size, kHigh, "read1 flank");
        expect_quals(read1, read1.bases.size() - size, read1.bases.size(), kOverlapping, "read1");
        expect_quals(read2, 0, size, kOverlapping, "read2");
        expect_quals(read2, size, read2.bases.size(), kHigh, "read2 flank");
      }
    }
  }
}

// FragmentUtilsUnitTest.testAdjustingTwoReadsWithSoftClippingOverlappingEachother
TEST(OverlappingMates, SoftClipsInsideTheOverlap) {
  for (std::size_t size = 1; size < kAllOverlapping.size(); ++size) {
    for (std::size_t clip2 = 0; clip2 <= size; ++clip2) {
      for (std::size_t clip1 = 0; clip1 <= size; ++clip1) {
        const std::string overlap = kAllOverlapping.substr(0, size);
        const std::vector<std::uint8_t> quals(size, kHigh);
        CallRead read1 = overlapping_read("CCC", kHigh, overlap, quals, "", kHigh, 1, 0,
                                          static_cast<int>(clip1));
        CallRead read2 = overlapping_read("", kHigh, overlap, quals, "AAA", kHigh, 4,
                                          static_cast<int>(clip2), 0);
        adjust_quals_of_overlapping_mates(read1, read2);
        const std::size_t n1 = read1.bases.size();
        expect_quals(read1, 0, n1 - size, kHigh, "read1 untouched");
        if (n1 - size + clip2 < n1 - clip1) {
          expect_quals(read1, n1 - size + clip2, n1 - clip1, kOverlapping, "read1 overlap");
        }
        expect_quals(read1, n1 - clip1, n1, kHigh, "read1 soft clip");
        expect_quals(read2, 0, clip2, kHigh, "read2 soft clip");
        if (clip2 < size - clip1) expect_quals(read2, clip2, size - clip1, kOverlapping, "read2");
        expect_quals(read2, size, read2.bases.size(), kHigh, "read2 untouched");
      }
    }
  }
}

// FragmentUtilsUnitTest.testLeadingIndelBehaviorForOverlappingReads
TEST(OverlappingMates, LeadingInsertion) {
  const std::vector<std::uint8_t> quals(4, kHigh);
  CallRead read1 = overlapping_read("CCC", kHigh, "ACGT", quals, "", kHigh, 1, 0, 0);
  CallRead read2 = overlapping_read("T", kHigh, "ACGT", quals, "AAA", kHigh, 4, 0, 0);
  read2.cigar = parse_cigar("1I7M");
  adjust_quals_of_overlapping_mates(read1, read2);
  EXPECT_EQ(read1.quals, (std::vector<std::uint8_t>{30, 30, 30, 20, 20, 20, 20}));
  EXPECT_EQ(read2.quals, (std::vector<std::uint8_t>{30, 20, 20, 20, 20, 30, 30, 30}));
}

// FragmentUtilsUnitTest.testIndelBehaviorForOverlappingReads (GATK's documented flaw: the
// overlap is walked without regard to the insertion). GATK's read 2 has 12 qualities for 11
// bases; so does this one.
TEST(OverlappingMates, InsertionInsideTheOverlap) {
  CallRead read1 = overlapping_read("CCC", kHigh, "ACGTTG", std::vector<std::uint8_t>(6, kHigh), "",
                                    kHigh, 1, 0, 0);
  CallRead read2 = overlapping_read("", kHigh, "ACGAATTG", std::vector<std::uint8_t>(9, kHigh),
                                    "AAA", kHigh, 4, 0, 0);
  read2.cigar = parse_cigar("3M2I6M");
  adjust_quals_of_overlapping_mates(read1, read2);
  EXPECT_EQ(read1.quals, (std::vector<std::uint8_t>{30, 30, 30, 20, 20, 20, 0, 0, 0}));
  EXPECT_EQ(read2.quals, (std::vector<std::uint8_t>{20, 20, 20, 0, 0, 0, 30, 30, 30, 30, 30, 30}));
}

// Hand-derived: the order of the arguments does not matter, other names are rejected, the
// optional indel cap, no overlap.
TEST(OverlappingMates, OrderNamesIndelCapAndNoOverlap) {
  CallRead a = make_read("p", 100, "6M", "ACGTAC");
  CallRead b = make_read("p", 103, "6M", "TACGGG");  // overlap 103..105: TAC / TAC
  adjust_quals_of_overlapping_mates(b, a, true, std::nullopt, 25);
  EXPECT_EQ(a.quals, (std::vector<std::uint8_t>{30, 30, 30, 20, 20, 20}));
  EXPECT_EQ(b.quals, (std::vector<std::uint8_t>{20, 20, 20, 30, 30, 30}));
  EXPECT_EQ(a.insertion_quals, (std::vector<std::uint8_t>{45, 45, 45, 25, 25, 25}));
  EXPECT_EQ(b.deletion_quals, (std::vector<std::uint8_t>{25, 25, 25, 45, 45, 45}));
  CallRead c = make_read("p", 100, "6M", "ACGTAC");
  CallRead d = make_read("p", 103, "6M", "TTCGGG");  // second base disagrees, kept at 30
  adjust_quals_of_overlapping_mates(c, d, false, 10);
  EXPECT_EQ(c.quals, (std::vector<std::uint8_t>{30, 30, 30, 10, 30, 10}));
  EXPECT_EQ(d.quals, (std::vector<std::uint8_t>{10, 30, 10, 30, 30, 30}));
  CallRead e = make_read("p", 100, "6M", "ACGTAC");
  CallRead f = make_read("p", 106, "6M", "ACGTAC");
  adjust_quals_of_overlapping_mates(e, f);
  EXPECT_EQ(e.quals, std::vector<std::uint8_t>(6, 30));
  CallRead g = make_read("q", 103, "6M", "TACGGG");
  EXPECT_THROW(adjust_quals_of_overlapping_mates(a, g), Error);
}

CallRead paired(std::string name, std::int64_t start, std::int64_t mate_start) {
  CallRead read = make_read(std::move(name), start, "10M", "ACGTACGTAC");
  testing::set_mate(read, mate_start, 0, false, true);
  return read;
}

// Hand-derived FragmentCollection.create: candidates need a mapped mate starting at or before
// their alignment stop; pairs are completed in order, and a name is free again once paired.
TEST(OverlappingMates, PairsByName) {
  std::vector<CallRead> reads = {
      paired("a", 100, 105),  // candidate
      paired("b", 101, 200),  // mate starts past its stop (110): singleton
      paired("a", 105, 100),  // completes a
      paired("c", 106, 108),  // candidate, mate never comes
      paired("a", 107, 100),  // a third "a" starts a new wait
  };
  const auto pairs = overlapping_mate_pairs(reads);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0], (std::pair<std::size_t, std::size_t>{0, 2}));
  std::vector<CallRead> unsorted = {paired("a", 105, 100), paired("a", 100, 105)};
  EXPECT_THROW(overlapping_mate_pairs(unsorted), Error);
}

// Hand-derived cleanOverlappingReadPairs: mates of one name in two samples are not paired.
TEST(OverlappingMates, CleanPairsPerSample) {
  std::vector<CallRead> reads = {paired("a", 100, 105), paired("a", 105, 100)};
  reads[1].read_group = 1;
  const std::vector<std::uint32_t> two_samples = {0, 1};
  clean_overlapping_read_pairs(reads, two_samples);
  EXPECT_EQ(reads[0].quals, std::vector<std::uint8_t>(10, 30));
  const std::vector<std::uint32_t> one_sample = {0, 0};
  clean_overlapping_read_pairs(reads, one_sample);
  // overlap 105..109: CGTAC (first read, indices 5..9) against ACGTA (second, 0..4): all differ
  EXPECT_EQ(reads[0].quals, (std::vector<std::uint8_t>{30, 30, 30, 30, 30, 0, 0, 0, 0, 0}));
  EXPECT_EQ(reads[1].quals, (std::vector<std::uint8_t>{0, 0, 0, 0, 0, 30, 30, 30, 30, 30}));
  const std::vector<std::uint32_t> too_few = {0};
  EXPECT_THROW(clean_overlapping_read_pairs(reads, too_few), Error);
}

}  // namespace
}  // namespace gpp::stages::call
