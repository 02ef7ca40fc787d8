// Tests of stages/call/indel_left_alignment: GATK's AlignmentUtilsUnitTest leftAlignIndel cases
// (makeLeftAlignIndelData, run through testWithClipsAndReferenceContext's permutations of hard
// and soft clips and extra reference on either side; GATK fills the extra bases at random, here
// they come from a fixed generator), the normalizeAlleles examples of its Javadoc, and cases
// derived by hand.
#include "stages/call/indel_left_alignment.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;
using test::text_of;

/// Deterministic stand-in for BaseUtils.fillWithRandomBases.
std::string pseudo_random_bases(std::size_t count, std::uint64_t& state) {
  std::string bases;
  for (std::size_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    bases.push_back("ACGT"[(state >> 33) & 3]);
  }
  return bases;
}

std::string clipped(int leading_hard, int leading_soft, const std::string& body, int trailing_soft,
                    int trailing_hard) {
  std::string text;
  if (leading_hard > 0) text += std::to_string(leading_hard) + "H";
  if (leading_soft > 0) text += std::to_string(leading_soft) + "S";
  text += body;
  if (trailing_soft > 0) text += std::to_string(trailing_soft) + "S";
  if (trailing_hard > 0) text += std::to_string(trailing_hard) + "H";
  return text;
}

using Shifts = std::pair<std::int64_t, std::int64_t>;

struct LeftAlignCase {
  const char* ref;
  const char* read;
  const char* cigar;
  const char* expected;
};

// AlignmentUtilsUnitTest.makeLeftAlignIndelData
constexpr LeftAlignCase kGatkCases[] = {
    // nothing happens when there is no indel
    {"ACGT", "ACGT", "4M", "4M"},
    {"ACCT", "ACGT", "4M", "4M"},
    {"ACGT", "ACAT", "2M1X1M", "2M1X1M"},
    // one insertion already left-aligned
    {"AAATTT", "AAACCCTTT", "3M3I3M", "3M3I3M"},
    {"CCCTTT", "AAACCCTTT", "3I6M", "3I6M"},
    {"AAACCC", "AAACCCTTT", "6M3I", "6M3I"},
    {"AAACCC", "AAACCGTTT", "6M3I", "6M3I"},
    // one deletion already left-aligned
    {"AAACCCTTT", "AAATTT", "3M3D3M", "3M3D3M"},
    // one insertion not left-aligned in homopolymer and STR with greater unit length
    {"AAACCCTTT", "AAACCCCCCTTT", "5M3I4M", "3M3I6M"},
    {"AAACCCTTT", "AAACCCCCCTTT", "6M3I3M", "3M3I6M"},
    {"AAACCCTTT", "AAGCCCCCCTGT", "6M3I3M", "3M3I6M"},
    {"AAACGCGCGCGTTT", "AAACGCGCGCGCGCGTTT", "7M4I7M", "3M4I11M"},
    {"CCGCCG", "CCGCCGCCG", "6M3I", "3I6M"},
    {"ACCGCCG", "TCCGCCGCCG", "7M3I", "1M3I6M"},
    // one deletion not left-aligned in homopolymer and STR with greater unit length
    {"AAACCCCCCTTT", "AAACCCTTT", "5M3D4M", "3M3D6M"},
    {"AAACCCCCCTTT", "AAACCCTTT", "6M3D3M", "3M3D6M"},
    {"AAACGCGCGCGCGCGTTT", "AAACGCGCGCGTTT", "7M4D7M", "3M4D11M"},
    // multiple separated indels
    {"AAACCCTTTGGGAAA", "AAACCCCCCTTTGGGGGGAAA", "6M3I6M3I3M", "3M3I6M3I6M"},
    {"AAACCCTTTGGGGGGAAA", "AAACCCCCCTTTGGGAAA", "6M3I6M3D3M", "3M3I6M3D6M"},
    // multiple indels in the same STR that combine or cancel
    {"AAACCCCCTTT", "AAACCCCCTTT", "4M3I3D4M", "11M"},
    {"AAACCCCCTTT", "AAACCCCCTTT", "4M3D3I4M", "11M"},
    {"AAACCCCCTTT", "AAACCCCCTTT", "3M3I2M3D3M", "11M"},
    {"AACGCGCGCGTT", "AACGCGCGCGCGCGTT", "2M2I8M2I2M", "2M4I10M"},
    {"AACGCGCGCGCGCGTT", "AACGCGCGCGTT", "2M2D8M2D2M", "2M4D10M"},
};

// AlignmentUtilsUnitTest.testLeftAlignIndel / testWithClipsAndReferenceContext
TEST(LeftAlignIndels, GatkCasesWithClipsAndReferenceContext) {
  std::uint64_t state = 12345;
  for (const LeftAlignCase& c : kGatkCases) {
    for (int leading_hard : {0, 5}) {
      for (int trailing_hard : {0, 5}) {
        for (int leading_soft : {0, 5}) {
          for (int trailing_soft : {0, 5}) {
            for (int ref_in_front : {0, 10}) {
              for (int ref_in_back : {0, 10}) {
                const std::string read = pseudo_random_bases(leading_soft, state) + c.read +
                                         pseudo_random_bases(trailing_soft, state);
                const std::string ref = pseudo_random_bases(ref_in_front, state) + c.ref +
                                        pseudo_random_bases(ref_in_back, state);
                const std::string cigar =
                    clipped(leading_hard, leading_soft, c.cigar, trailing_soft, trailing_hard);
                const std::string expected =
                    clipped(leading_hard, leading_soft, c.expected, trailing_soft, trailing_hard);
                const CigarBuildResult result =
                    left_align_indels(cigar_of(cigar), ref, read, ref_in_front);
                EXPECT_EQ(text_of(result.cigar), expected)
                    << c.ref << " " << c.read << " " << cigar << " ref offset " << ref_in_front;
              }
            }
          }
        }
      }
    }
  }
}

// AlignmentUtils.normalizeAlleles Javadoc: reference GAAT, read GAAAT with the insertion before
// the T ([3,3) and [3,4)) moves two bases left to [1,1) and [1,2); the non-parsimonious [3,4)
// and [3,5) shift 2 at the front and 3 at the end.
TEST(NormalizeAlleles, JavadocExamples) {
  AlleleRange ref{3, 3};
  AlleleRange read{3, 4};
  auto shifts = normalize_alleles("GAAT", "GAAAT", ref, read, 3, true);
  EXPECT_EQ(shifts, Shifts(2, 2));
  EXPECT_EQ(ref, (AlleleRange{1, 1}));
  EXPECT_EQ(read, (AlleleRange{1, 2}));

  ref = {3, 4};
  read = {3, 5};
  shifts = normalize_alleles("GAAT", "GAAAT", ref, read, 3, true);
  EXPECT_EQ(shifts, Shifts(2, 3));
  EXPECT_EQ(ref, (AlleleRange{1, 1}));
  EXPECT_EQ(read, (AlleleRange{1, 2}));
}

// By hand: max_shift caps the move (and may not exceed a range's start); without trimming the
// alleles keep their shared bases.
TEST(NormalizeAlleles, ShiftIsCappedAndChecked) {
  AlleleRange ref{3, 3};
  AlleleRange read{3, 4};
  auto shifts = normalize_alleles("GAAT", "GAAAT", ref, read, 1, true);
  EXPECT_EQ(shifts, Shifts(1, 1));
  EXPECT_EQ(read, (AlleleRange{2, 3}));

  ref = {3, 4};
  read = {3, 5};
  // untrimmed "T" vs "AT": the shared T at the right end lets the pair slide to the front
  shifts = normalize_alleles("GAAT", "GAAAT", ref, read, 3, false);
  EXPECT_EQ(shifts, Shifts(3, 3));
  EXPECT_EQ(ref, (AlleleRange{0, 1}));
  EXPECT_EQ(read, (AlleleRange{0, 2}));

  ref = {1, 1};
  read = {1, 2};
  EXPECT_THROW(normalize_alleles("GAAT", "GAAAT", ref, read, 2, true), Error);
}

// By hand: a deletion moved to the very front is dropped and counted; a CIGAR without indels
// comes back unconsolidated; reads running past the reference and negative starts are rejected.
TEST(LeftAlignIndels, HandDerivedCases) {
  // ref CAAAG, read CAG: 2M2D1M -> the AA deletion moves left to 1M2D2M
  CigarBuildResult r = left_align_indels(cigar_of("2M2D1M"), "CAAAG", "CAG", 0);
  EXPECT_EQ(text_of(r.cigar), "1M2D2M");
  EXPECT_EQ(r.leading_deletions_removed, 0);

  // ref AAAG, read AG aligned 1M2D1M: the deletion reaches the start and is dropped
  r = left_align_indels(cigar_of("1M2D1M"), "AAAG", "AG", 0);
  EXPECT_EQ(text_of(r.cigar), "2M");
  EXPECT_EQ(r.leading_deletions_removed, 2);

  r = left_align_indels(cigar_of("2M2M"), "ACGT", "ACGT", 0);
  EXPECT_EQ(text_of(r.cigar), "2M2M");

  EXPECT_THROW(left_align_indels(cigar_of("2M2D1M"), "CAA", "CAG", 0), Error);
  EXPECT_THROW(left_align_indels(cigar_of("2M2D1M"), "CAAAG", "CAG", -1), Error);
  EXPECT_THROW(left_align_indels(cigar_of("2M2D2M"), "CAAAGG", "CAG", 0), Error);
}

}  // namespace
}  // namespace gpp::stages::call
