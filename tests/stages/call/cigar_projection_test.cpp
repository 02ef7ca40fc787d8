// Tests of stages/call/cigar_projection: the cases of GATK's AlignmentUtilsUnitTest
// (ApplyCigarToCigarData, AppendClippedElementsFromOriginalCigarData,
// ReadStartOnReferenceHaplotypeData) with their inputs and expected values, plus cases derived
// by hand from the rules (soft clips as insertions, D over I, deletions dropped at the ends).
#include "stages/call/cigar_projection.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;
using test::text_of;

std::string apply(const std::string& first_to_second, const std::string& second_to_third) {
  return text_of(apply_cigar_to_cigar(cigar_of(first_to_second), cigar_of(second_to_third)));
}

// AlignmentUtilsUnitTest.makeApplyCigarToCigarData / testApplyCigarToCigar
TEST(ApplyCigarToCigar, GatkCases) {
  for (int i = 1; i < 5; ++i) {
    const std::string m = std::to_string(i) + "M";
    EXPECT_EQ(apply(m, m), m);
  }
  EXPECT_EQ(apply("3M", "2M3D1M"), "2M3D1M");
  EXPECT_EQ(apply("3M1I2M", "2M1D3M"), "2M1D1M1I2M");
  EXPECT_EQ(apply("1M1D2M", "1M1D3M"), "1M2D2M");
  EXPECT_EQ(apply("1M2D2M", "1M1D1M1I2M"), "1M2D2M");
  EXPECT_EQ(apply("1M1I4M", "5M"), "1M1I4M");
  EXPECT_EQ(apply("1M2D2M", "5M"), "1M2D2M");
  EXPECT_EQ(apply("108M14D24M2M18I29M92M1000M", "2M1I3M"), "2M1I3M");
}

// By hand: a soft clip of the read against the haplotype is a base the haplotype lacks, so it
// becomes an insertion against the reference (S,M -> I without advancing the haplotype).
TEST(ApplyCigarToCigar, SoftClipsBecomeInsertions) {
  EXPECT_EQ(apply("2S3M", "5M"), "2I3M");
  EXPECT_EQ(apply("3M2S", "5M"), "3M2I");
  EXPECT_EQ(apply("2S3M1S", "2M1D4M"), "2I2M1D1M1I");
}

// By hand: a read deleting a base the haplotype inserted leaves nothing (D,I -> no-op); = and X
// count as M; deletions at either end are dropped by the builder.
TEST(ApplyCigarToCigar, HandDerivedRules) {
  EXPECT_EQ(apply("1M1D1M", "1M1I1M"), "2M");
  EXPECT_EQ(apply("2=1X", "3M"), "3M");
  EXPECT_EQ(apply("2M", "2D2M"), "2M");        // M,D at the start: a leading deletion, dropped
  EXPECT_EQ(apply("2M", "2M3D"), "2M");        // the walk ends with the read
  EXPECT_EQ(apply("2M1D2M", "6M"), "2M1D2M");  // D,M consumes one haplotype base
  EXPECT_EQ(apply("1I2M", "1D2M"), "1I2M");    // I,D -> I, then M,D -> D: dropped as leading
}

TEST(ApplyCigarToCigar, ZeroLengthElementsAreSkipped) { EXPECT_EQ(apply("0M3M", "1M0I2M"), "3M"); }

TEST(ApplyCigarToCigar, RejectsOperatorsWithoutTransform) {
  EXPECT_THROW(apply("2N3M", "5M"), Error);
  EXPECT_THROW(apply("3M", "1H3M"), Error);
}

// AlignmentUtilsUnitTest.makeReadStartOnReferenceHaplotypeData
TEST(ReadStartOnReferenceHaplotype, GatkCases) {
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("30M5D20M"), 50), 55);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("30M5I20M"), 50), 45);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("55M"), 50), 50);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("30M5D30M5D30M"), 80), 90);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("30M5D30M5I30M"), 80), 80);
}

// By hand: a start inside an insertion maps to the reference base after it; a start one base
// past a deletion skips it, but a start on the first base after a deletion stops at the end of
// the element before it (GATK's walk), i.e. on the deletion's first base; start 0 is 0 whatever
// the CIGAR; past the end throws.
TEST(ReadStartOnReferenceHaplotype, HandDerivedCases) {
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("5I10M"), 3), 0);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("4M3I10M"), 6), 4);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("4M3I10M"), 7), 4);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("4M3I10M"), 8), 5);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("4M2D10M"), 4), 4);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("4M2D10M"), 5), 7);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("2D4M"), 0), 0);
  EXPECT_EQ(read_start_on_reference_haplotype(cigar_of("10M"), 10), 10);
  EXPECT_THROW(read_start_on_reference_haplotype(cigar_of("10M"), 11), Error);
}

std::string append(const std::string& original, const std::string& shifted) {
  return text_of(append_clipped_elements(cigar_of(shifted), cigar_of(original)));
}

// AlignmentUtilsUnitTest.testAppendClippedElementsFromOriginalCigar
TEST(AppendClippedElements, GatkCases) {
  EXPECT_EQ(append("30M", "30M"), "30M");
  EXPECT_EQ(append("30M", "15M6I15M"), "15M6I15M");
  EXPECT_EQ(append("5S30M", "30M"), "5S30M");
  EXPECT_EQ(append("5H30M", "30M"), "5H30M");
  EXPECT_EQ(append("5H5S30M", "30M"), "5H5S30M");
  EXPECT_EQ(append("30M5H", "30M"), "30M5H");
  EXPECT_EQ(append("30M5S", "30M"), "30M5S");
  EXPECT_EQ(append("10H30M5S5H", "30M"), "10H30M5S5H");
  EXPECT_EQ(append("10H10M6D6M6D50M5S5H", "10M6I50M"), "10H10M6I50M5S5H");
}

// By hand, GATK's loop bounds: the walks stop where they meet, so a CIGAR that is all clip adds
// nothing from its last element.
TEST(AppendClippedElements, WalksStopWhereTheyMeet) {
  EXPECT_EQ(append("5S", "3M"), "3M");
  EXPECT_EQ(append("2H3S", "3M"), "2H3M");
  EXPECT_EQ(append("3S2H", "3M"), "3S3M");
  EXPECT_EQ(append("2H3S4M3S2H", "2I2M"), "2H3S2I2M3S2H");
  EXPECT_EQ(text_of(append_clipped_elements(cigar_of("4M"), {})), "4M");
}

}  // namespace
}  // namespace gpp::stages::call
