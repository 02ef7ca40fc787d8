// Tests of stages/call/read_clipping: GATK CigarUtilsUnitTest (clipCigar, alignmentStartShift,
// revertSoftClips) and ReadClipperUnitTest (its properties over every CIGAR of
// ReadClipperTestUtils.generateCigarList(6), and its listed cases), plus hand-derived cases of
// the clips HaplotypeCaller uses.
#include "stages/call/read_clipping.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/cigar_edit.hpp"
#include "stages/call/read_filters.hpp"
#include "stages/call/read_geometry.hpp"
#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::cigar_text;
using testing::generated_cigars;
using testing::make_read;
using testing::parse_cigar;
using testing::read_from_cigar;

std::string clip(const std::string& cigar, int start, int stop, CigarOp op) {
  return cigar_text(clip_cigar(parse_cigar(cigar), start, stop, op));
}

// CigarUtilsUnitTest.testClipCigar
TEST(ClipCigar, GatkCases) {
  struct Case {
    const char* original;
    int start, stop;
    const char* soft;
    const char* hard;
  };
  const Case cases[] = {
      {"10M", 0, 5, "5S5M", "5H5M"},
      {"10M", 5, 10, "5M5S", "5M5H"},
      {"10H10M", 0, 5, "10H5S5M", "15H5M"},
      {"10H10M", 5, 10, "10H5M5S", "10H5M5H"},
      {"10M10H", 0, 5, "5S5M10H", "5H5M10H"},
      {"10M10I10M", 0, 5, "5S5M10I10M", "5H5M10I10M"},
      {"10M10I10M", 0, 15, "15S5I10M", "15H5I10M"},
      {"10M10I10M", 15, 30, "10M5I15S", "10M5I15H"},
      {"10S10M10S", 0, 5, "10S10M10S", "5H5S10M10S"},
      {"10S10M10S", 25, 30, "10S10M10S", "10S10M5S5H"},
      {"10S10M10S", 0, 15, "15S5M10S", "15H5M10S"},
      {"10M10D10M", 0, 10, "10S10M", "10H10M"},
      {"10M10D10M", 0, 15, "15S5M", "15H5M"},
      {"10M10D10M", 5, 20, "5M15S", "5M15H"},
      {"10D10M", 0, 5, "5S5M", "5H5M"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(clip(c.original, c.start, c.stop, CigarOp::kSoftClip), c.soft) << c.original;
    EXPECT_EQ(clip(c.original, c.start, c.stop, CigarOp::kHardClip), c.hard) << c.original;
  }
}

// CigarUtilsUnitTest.testAlignmentStartShift
TEST(AlignmentStartShift, GatkCases) {
  struct Case {
    const char* cigar;
    int clipped, shift;
  };
  const Case cases[] = {{"70M", 10, 10},       {"70M", 0, 0},         {"30M10D30M", 29, 29},
                        {"30M10D30M", 30, 40}, {"30M10D30M", 31, 41}, {"30M10I30M", 30, 30},
                        {"30M10I30M", 31, 30}, {"30M10I30M", 40, 30}, {"30M10I30M", 41, 31},
                        {"10H10M", 5, 5},      {"10S10M", 5, 0}};
  for (const Case& c : cases) {
    EXPECT_EQ(alignment_start_shift(parse_cigar(c.cigar), c.clipped), c.shift) << c.cigar;
  }
}

// CigarUtilsUnitTest.testRevertSoftClips
TEST(RevertSoftClipsCigar, GatkCases) {
  EXPECT_EQ(cigar_text(revert_soft_clips(parse_cigar("10M"))), "10M");
  EXPECT_EQ(cigar_text(revert_soft_clips(parse_cigar("10H10M"))), "10H10M");
  EXPECT_EQ(cigar_text(revert_soft_clips(parse_cigar("10S10M"))), "20M");
  EXPECT_EQ(cigar_text(revert_soft_clips(parse_cigar("10S10M10S"))), "30M");
  EXPECT_EQ(cigar_text(revert_soft_clips(parse_cigar("10S10M10S10H"))), "30M10H");
}

/// ReadClipperUnitTest's CIGAR list: generateCigarList(6) plus 2M3I5M.
std::vector<std::vector<std::uint32_t>> clipper_cigars() {
  auto cigars = generated_cigars(6);
  cigars.push_back(parse_cigar("2M3I5M"));
  return cigars;
}

std::int64_t clip_length(std::span<const std::uint32_t> cigar, bool from_left) {
  std::int64_t length = 0;
  for (std::size_t k = 0; k < cigar.size(); ++k) {
    const std::uint32_t e = from_left ? cigar[k] : cigar[cigar.size() - 1 - k];
    if (!is_clipping(cigar_op(e))) break;
    length += cigar_length(e);
  }
  return length;
}
std::int64_t unclipped_start(const CallRead& r) { return r.start - clip_length(r.cigar, true); }
std::int64_t unclipped_stop(const CallRead& r) {
  return alignment_stop(r) + clip_length(r.cigar, false);
}
bool has_aligned_element(const CallRead& r) {
  for (std::uint32_t e : r.cigar) {
    if (!is_clipping(cigar_op(e))) return true;
  }
  return false;
}
/// ReadClipperUnitTest.assertUnclippedLimits
void expect_unclipped_limits(const CallRead& original, const CallRead& clipped) {
  if (!has_aligned_element(original)) return;
  EXPECT_EQ(unclipped_start(original), unclipped_start(clipped)) << cigar_text(original.cigar);
  EXPECT_EQ(unclipped_stop(original), unclipped_stop(clipped)) << cigar_text(original.cigar);
}
/// ReadClipperUnitTest.assertReadLengthConsistent
void expect_consistent(const CallRead& clipped) {
  EXPECT_EQ(cigar_query_length(clipped.cigar), clipped.bases.size()) << cigar_text(clipped.cigar);
  EXPECT_EQ(clipped.quals.size(), clipped.bases.size());
}
/// GATK getSoftEnd, with its rule for CIGARs with no aligned element.
std::int64_t gatk_soft_stop(const CallRead& r) {
  return has_aligned_element(r) ? r.soft_end() - 1 : alignment_stop(r);
}

// ReadClipperUnitTest.testHardClipByReferenceCoordinates
TEST(ReadClipperProperties, HardClipByReferenceCoordinates) {
  for (const auto& cigar : clipper_cigars()) {
    const CallRead read = read_from_cigar(cigar_text(cigar));
    for (std::int64_t i = read.soft_start(); i <= gatk_soft_stop(read); ++i) {
      const CallRead left = hard_clip_left_tail(read, i);
      if (!is_empty(left)) {
        EXPECT_GE(left.start, std::min(alignment_stop(read), i + 1))
            << cigar_text(cigar) << " " << i;
        expect_consistent(left);
      }
      const CallRead right = hard_clip_right_tail(read, i);
      if (!is_empty(right) && right.start <= alignment_stop(right)) {
        EXPECT_LE(alignment_stop(right), std::max(read.start, i - 1)) << cigar_text(cigar);
        expect_consistent(right);
      }
    }
  }
}

// ReadClipperUnitTest.testHardClipByReferenceCoordinatesLeftTail / RightTail
TEST(ReadClipperProperties, HardClipTails) {
  for (const auto& cigar : clipper_cigars()) {
    const CallRead read = read_from_cigar(cigar_text(cigar));
    const std::int64_t start = read.start;
    const std::int64_t stop = alignment_stop(read);
    if (read.soft_start() == start) {
      for (std::int64_t i = start; i <= stop; ++i) {
        const CallRead left = hard_clip_left_tail(read, i);
        if (!is_empty(left)) {
          EXPECT_GE(left.start, i + 1) << cigar_text(cigar);
          expect_consistent(left);
        }
      }
    }
    if (gatk_soft_stop(read) == stop) {
      for (std::int64_t i = start; i <= stop; ++i) {
        const CallRead right = hard_clip_right_tail(read, i);
        if (!is_empty(right) && right.start <= alignment_stop(right)) {
          EXPECT_LE(alignment_stop(right), i - 1) << cigar_text(cigar);
          expect_consistent(right);
        }
      }
    }
  }
}

// Both ends at once (ReadClipperUnitTest.testHardClipBothEndsByReferenceCoordinates never runs its
// loop, its length being negative; this is the property it means).
TEST(ReadClipperProperties, HardClipBothEnds) {
  for (const auto& cigar : clipper_cigars()) {
    const CallRead read = read_from_cigar(cigar_text(cigar));
    for (std::int64_t i = 0; read.start + i < alignment_stop(read) - i; ++i) {
      const CallRead clipped = hard_clip_both_ends(read, read.start + i, alignment_stop(read) - i);
      if (is_empty(clipped)) continue;
      EXPECT_GT(clipped.start, read.start + i) << cigar_text(cigar);
      EXPECT_LT(alignment_stop(clipped), alignment_stop(read) - i) << cigar_text(cigar);
      expect_consistent(clipped);
    }
  }
}

// ReadClipperUnitTest.testHardClipLowQualEnds
TEST(ReadClipperProperties, HardClipLowQualEnds) {
  constexpr std::uint8_t kLow = 2, kHigh = 30;
  for (const auto& cigar : clipper_cigars()) {
    CallRead read = read_from_cigar(cigar_text(cigar));
    const std::size_t length = read.bases.size();
    auto check = [&](const CallRead& clipped) {
      for (std::uint8_t q : clipped.quals) EXPECT_GT(q, kLow) << cigar_text(cigar);
      if (!is_empty(clipped)) expect_consistent(clipped);
    };
    for (std::size_t n = 0; n < length; ++n) {
      read.quals.assign(length, kHigh);
      for (std::size_t k = 0; k < n; ++k) read.quals[k] = kLow;
      check(hard_clip_low_qual_ends(read, kLow));
      read.quals.assign(length, kHigh);
      for (std::size_t k = 0; k < n; ++k) read.quals[length - k - 1] = kLow;
      check(hard_clip_low_qual_ends(read, kLow));
      if (n <= length / 2) {
        read.quals.assign(length, kHigh);
        for (std::size_t k = 0; k < n; ++k) read.quals[k] = read.quals[length - k - 1] = kLow;
        check(hard_clip_low_qual_ends(read, kLow));
      }
    }
  }
}

std::int64_t operator_total(const CallRead& read, CigarOp op) {
  std::int64_t total = 0;
  for (std::uint32_t e : read.cigar) total += cigar_op(e) == op ? cigar_length(e) : 0;
  return total;
}

// ReadClipperUnitTest.testHardClipSoftClippedBases
TEST(ReadClipperProperties, HardClipSoftClippedBases) {
  for (const auto& cigar : clipper_cigars()) {
    const CallRead read = read_from_cigar(cigar_text(cigar));
    const CallRead clipped = hard_clip_soft_clipped_bases(read);
    expect_unclipped_limits(read, clipped);
    for (std::uint32_t op = 0; op <= 8; ++op) {
      const CigarOp o = static_cast<CigarOp>(op);
      if (o == CigarOp::kHardClip) {
        EXPECT_EQ(operator_total(clipped, o), operator_total(read, CigarOp::kHardClip) +
                                                  operator_total(read, CigarOp::kSoftClip))
            << cigar_text(cigar);
      } else if (o == CigarOp::kSoftClip) {
        EXPECT_EQ(operator_total(clipped, o), 0) << cigar_text(cigar);
      } else {
        EXPECT_EQ(operator_total(clipped, o), operator_total(read, o)) << cigar_text(cigar);
      }
    }
  }
}

std::int64_t leading_soft_clip(std::span<const std::uint32_t> cigar) {
  for (std::uint32_t e : cigar) {
    if (cigar_op(e) == CigarOp::kSoftClip) return cigar_length(e);
    if (cigar_op(e) != CigarOp::kHardClip) break;
  }
  return 0;
}

// ReadClipperUnitTest.testRevertSoftClippedBases and ...WithThreshold
TEST(ReadClipperProperties, RevertSoftClippedBases) {
  for (const auto& cigar : clipper_cigars()) {
    const CallRead read = read_from_cigar(cigar_text(cigar));
    const CallRead unclipped = revert_soft_clipped_bases(read);
    expect_unclipped_limits(read, unclipped);
    EXPECT_TRUE(is_valid_cigar(unclipped.cigar)) << cigar_text(cigar);
    const std::vector<std::uint32_t> reversed(cigar.rbegin(), cigar.rend());
    const std::int64_t lead = leading_soft_clip(cigar);
    const std::int64_t tail = leading_soft_clip(reversed);
    if (lead > 0 || tail > 0) {
      EXPECT_EQ(unclipped.start, read.start - lead) << cigar_text(cigar);
      EXPECT_EQ(alignment_stop(unclipped), alignment_stop(read) + tail) << cigar_text(cigar);
    } else {
      EXPECT_EQ(cigar_text(unclipped.cigar), cigar_text(read.cigar));
    }
  }
}

// ReadClipperUnitTest.testRevertSoftClippedBasesBeforeStartOfContig (1-based GATK positions
// softStart in {-10, -1, 0}, alignmentStart in {1, 10}; here 0-based, one less)
TEST(ReadClipper, RevertSoftClipsBeforeContigStart) {
  for (int soft_start_1 : {-10, -1, 0}) {
    for (int alignment_start_1 : {1, 10}) {
      const int soft = alignment_start_1 - soft_start_1;
      const std::string cigar = std::to_string(soft) + "S10M";
      const CallRead read = read_from_cigar(cigar, alignment_start_1 - 1);
      ASSERT_EQ(read.soft_start(), soft_start_1 - 1);
      const CallRead reverted = revert_soft_clipped_bases(read);
      const std::int64_t end_1 = alignment_stop(read) + 1;  // GATK read.getEnd()
      EXPECT_EQ(reverted.start, 0);
      EXPECT_EQ(reverted.soft_start(), 0);
      EXPECT_EQ(cigar_text(reverted.cigar),
                std::to_string(1 - soft_start_1) + "H" + std::to_string(end_1) + "M");
    }
  }
}

// ReadClipperUnitTest.testRevertEntirelySoftClippedReads
TEST(ReadClipper, RevertEntirelySoftClippedRead) {
  const CallRead read = read_from_cigar("2H1S3H");
  EXPECT_EQ(revert_soft_clipped_bases(read).start, read.soft_start());
}

// ReadClipperUnitTest.testHardClipSoftClippedBasesResultsInEmptyReadDontSetNegativeStartPosition
TEST(ReadClipper, HardClippingAllSoftClipsGivesEmptyRead) {
  const CallRead clipped = hard_clip_soft_clipped_bases(read_from_cigar("170H70S", 99));
  EXPECT_TRUE(is_empty(clipped));
  EXPECT_TRUE(clipped.quals.empty());
  EXPECT_TRUE(clipped.cigar.empty());
  EXPECT_TRUE(is_unmapped(clipped));
}

// ReadClipperUnitTest.testRevertSoftClippedBasesDoesntExplodeOnCompletelyClippedRead
TEST(ReadClipper, RevertingAtContigStartCanEmptyTheRead) {
  const CallRead clipped = revert_soft_clipped_bases(read_from_cigar("41S59H", 0));
  EXPECT_TRUE(is_empty(clipped));
  EXPECT_TRUE(clipped.cigar.empty());
  EXPECT_TRUE(is_unmapped(clipped));
}

// ReadClipperUnitTest.testSoftClippingOpEdgeCase reaches ClippingOp(0, 7) on 8M; the public route
// to SOFTCLIP_BASES here is softClipLowQualEnds: seven low bases then one high one -> 7S1M.
TEST(ReadClipper, SoftClipLowQualEndsKeepsOneAlignedBase) {
  CallRead read = make_read("r", 100, "8M", "ACGTACGT");
  read.quals = {5, 5, 5, 5, 5, 5, 5, 30};
  const CallRead clipped = soft_clip_low_qual_ends(read, 9);
  EXPECT_EQ(cigar_text(clipped.cigar), "7S1M");
  EXPECT_EQ(clipped.start, 107);
  EXPECT_EQ(clipped.bases, read.bases);
  read.quals = {5, 30, 30, 30, 30, 30, 30, 5};
  EXPECT_EQ(cigar_text(soft_clip_low_qual_ends(read, 9).cigar), "1S6M1S");
}

// Hand-derived: the clips of HaplotypeCaller's region finalisation.
TEST(ReadClipper, LowQualityTailsAndIndelQualities) {
  CallRead read = make_read("r", 100, "2M1I5M", "ACGTACGT");
  read.quals = {9, 30, 30, 30, 30, 30, 8, 9};
  read.insertion_quals = {1, 2, 3, 4, 5, 6, 7, 8};
  const CallRead clipped = hard_clip_low_qual_ends(read, 9);
  EXPECT_EQ(cigar_text(clipped.cigar), "1H1M1I3M2H");
  EXPECT_EQ(clipped.start, 101);
  EXPECT_EQ(clipped.bases, "CGTAC");
  EXPECT_EQ(clipped.quals, (std::vector<std::uint8_t>{30, 30, 30, 30, 30}));
  EXPECT_EQ(clipped.insertion_quals, (std::vector<std::uint8_t>{2, 3, 4, 5, 6}));
  // GATK fills the missing BD with its default 45s once one of the arrays exists
  EXPECT_EQ(clipped.deletion_quals, (std::vector<std::uint8_t>(5, 45)));
  read.quals.assign(8, 9);
  EXPECT_TRUE(is_empty(hard_clip_low_qual_ends(read, 9)));
}

TEST(ReadClipper, ClipToRegionAndAcrossDeletions) {
  const CallRead read = make_read("r", 100, "5M3D5M", "AAAAACCCCC");  // covers 100..112
  const CallRead both = hard_clip_to_region(read, 102, 111);          // keep 102..110
  EXPECT_EQ(cigar_text(both.cigar), "2H3M3D3M2H");
  EXPECT_EQ(both.start, 102);
  EXPECT_EQ(both.bases, "AAACCC");
  // a region starting inside the deletion: the left clip stops before the deletion's right side
  const CallRead in_deletion = hard_clip_to_region(read, 106, 200);
  EXPECT_EQ(cigar_text(in_deletion.cigar), "5H5M");
  EXPECT_EQ(in_deletion.start, 108);
  EXPECT_TRUE(is_empty(hard_clip_to_region(read, 113, 200)));
  EXPECT_EQ(hard_clip_to_region(read, 0, 1000).cigar, read.cigar);
}

TEST(ReadClipper, AdaptorSequence) {
  // forward read, TLEN 8: the adaptor starts at 108
  CallRead forward = make_read("f", 100, "10M", "ACGTACGTAC");
  testing::set_mate(forward, 100, 8, false, true);
  const CallRead f = hard_clip_adaptor_sequence(forward);
  EXPECT_EQ(cigar_text(f.cigar), "8M2H");
  EXPECT_EQ(f.bases, "ACGTACGT");
  // reverse read at 100, mate (forward) at 103: bases before 103 are adaptor (boundary 102)
  CallRead reverse = make_read("r", 100, "10M", "ACGTACGTAC");
  testing::set_mate(reverse, 103, -8, true, false);
  const CallRead r = hard_clip_adaptor_sequence(reverse);
  EXPECT_EQ(cigar_text(r.cigar), "3H7M");
  EXPECT_EQ(r.start, 103);
  // boundary outside the read: unchanged
  testing::set_mate(forward, 100, 50, false, true);
  EXPECT_EQ(cigar_text(hard_clip_adaptor_sequence(forward).cigar), "10M");
}

}  // namespace
}  // namespace gpp::stages::call
