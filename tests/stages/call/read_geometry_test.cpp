// Tests of stages/call/read_geometry: GATK ReadUtilsUnitTest (testGetAdaptorBoundary,
// HasWellDefinedFragmentSizeData, getReadIndexForReferenceCoordinate cases), with GATK's 1-based
// positions shifted to 0-based, plus hand-derived cases.
#include "stages/call/read_geometry.hpp"

#include <gtest/gtest.h>

#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::make_read;
using testing::read_from_cigar;

/// ReadUtilsUnitTest.makeRead: ACGTACGT, 8M, paired, mate on the same contig. GATK's default
/// ArtificialReadUtils position is 10000 (1-based) and both strands forward.
CallRead adaptor_read(std::int64_t fragment_size, std::int64_t mate_start_1) {
  CallRead read = make_read("r", 9999, "8M", "ACGTACGT");
  read.flag = 0x1 | 0x2;
  read.mate_contig = 0;
  read.mate_start = mate_start_1 - 1;
  read.insert_size = fragment_size;
  return read;
}
void set_strands(CallRead& read, bool reverse, bool mate_reverse) {
  read.flag = static_cast<std::uint16_t>((read.flag & ~0x30) | (reverse ? 0x10 : 0) |
                                         (mate_reverse ? 0x20 : 0));
}

TEST(AdaptorBoundary, GatkCases) {
  const std::int64_t fragment = 10, mate_start = 1000, before = 998, after = 1002;
  // case 1: positive strand, first read (GATK boundary myStart + fragment, 1-based)
  CallRead read = adaptor_read(fragment, mate_start);
  read.start = before - 1;
  set_strands(read, false, true);
  EXPECT_EQ(adaptor_boundary(read), before + fragment - 1);
  // case 2: positive strand, second read
  read = adaptor_read(fragment, mate_start);
  read.start = after - 1;
  set_strands(read, false, true);
  EXPECT_EQ(adaptor_boundary(read), after + fragment - 1);
  // case 3 and 4: negative strand (GATK boundary mateStart - 1, 1-based)
  for (std::int64_t start : {after, before}) {
    read = adaptor_read(fragment, mate_start);
    read.start = start - 1;
    set_strands(read, true, false);
    EXPECT_EQ(adaptor_boundary(read), mate_start - 1 - 1);
  }
  // case 5: mate on another contig (TLEN 0), both strands
  read = adaptor_read(fragment, mate_start);
  read.insert_size = 0;
  set_strands(read, true, false);
  EXPECT_FALSE(adaptor_boundary(read));
  set_strands(read, false, true);
  EXPECT_FALSE(adaptor_boundary(read));
  // case 6: unmapped read
  read = adaptor_read(fragment, mate_start);
  read.flag |= 0x4;
  EXPECT_FALSE(adaptor_boundary(read));
  // case 7: reads that do not overlap, <---|   |--->
  read = adaptor_read(fragment, mate_start);
  read.start = 980 - 1;
  read.insert_size = 20;
  set_strands(read, true, false);
  EXPECT_FALSE(adaptor_boundary(read));
  read = adaptor_read(fragment, mate_start);
  read.start = 1000 - 1;
  read.insert_size = 20;
  read.mate_start = 980 - 1;
  set_strands(read, false, false);
  EXPECT_FALSE(adaptor_boundary(read));
  // case 8: no proper-pair flag, default (both forward) strands
  read = adaptor_read(fragment, mate_start);
  read.flag &= ~0x2;
  EXPECT_FALSE(adaptor_boundary(read));
  // case 9: read and mate on the same strand fail, opposite strands succeed
  for (bool reverse : {true, false}) {
    read = adaptor_read(fragment, mate_start);
    read.start = before - 1;
    set_strands(read, reverse, !reverse);
    EXPECT_TRUE(adaptor_boundary(read));
    set_strands(read, reverse, reverse);
    EXPECT_FALSE(adaptor_boundary(read));
  }
}

// ReadUtilsUnitTest.makeHasWellDefinedFragmentSizeData: 50M at 100, mate at 130, TLEN 80.
TEST(HasWellDefinedFragmentSize, GatkCases) {
  CallRead base = read_from_cigar("50M", 99);
  base.flag = 0x1 | 0x2 | 0x40 | 0x20;  // paired, proper, first, mate reverse
  base.mate_contig = 0;
  base.mate_start = 129;
  base.insert_size = 80;
  EXPECT_TRUE(has_well_defined_fragment_size(base)) << "basic case";
  CallRead bad = base;
  bad.flag &= ~0x1;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "not paired";
  bad = base;
  bad.flag &= ~0x2;
  EXPECT_TRUE(has_well_defined_fragment_size(bad)) << "not proper pair (not required)";
  bad = base;
  bad.flag |= 0x4;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "read unmapped";
  bad = base;
  bad.flag |= 0x8;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "mate unmapped";
  bad = base;
  bad.flag &= ~0x20;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "both positive";
  bad = base;
  bad.flag |= 0x10;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "both negative";
  bad = base;
  bad.insert_size = 0;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "TLEN 0";
  bad = base;
  bad.start = 999;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "positive read starts after mate end";
  bad = base;
  bad.flag = static_cast<std::uint16_t>((bad.flag | 0x10) & ~0x20);
  bad.mate_start = 999;
  EXPECT_FALSE(has_well_defined_fragment_size(bad)) << "negative read ends before mate starts";
}

// ReadUtilsUnitTest.testReadWithNsRefIndexInDeletion and
// testReadsWithSoftclipsInReadCoordinateRefCoordinate (1-based positions minus one)
TEST(ReadIndexAtReference, GatkCases) {
  CallRead read = make_read("myRead", 99, "3M100N1D73M", std::string(76, 'A'));
  EXPECT_EQ(read_index_at_reference(read, 101).index, 2);
  EXPECT_EQ(read_index_at_reference(read, 102).index, 3);  // first N base
  EXPECT_EQ(read_index_at_reference(read, 201).index, 3);  // last N base
  EXPECT_EQ(read_index_at_reference(read, 202).index, 3);  // the D base
  read = make_read("myRead", 99, "10H10S100M10S", std::string(120, 'A'));
  EXPECT_FALSE(read_index_at_reference(read, 88).found);
  EXPECT_EQ(read_index_at_reference(read, 89).index, 0);     // first S base
  EXPECT_EQ(read_index_at_reference(read, 98).index, 9);     // last S base
  EXPECT_EQ(read_index_at_reference(read, 99).index, 10);    // first M base
  EXPECT_EQ(read_index_at_reference(read, 198).index, 109);  // last M base
  EXPECT_EQ(read_index_at_reference(read, 199).index, 110);  // first trailing S base
  EXPECT_EQ(read_index_at_reference(read, 208).index, 119);  // last trailing S base
  EXPECT_FALSE(read_index_at_reference(read, 209).found);
}

TEST(ReadGeometry, MappedStateLengthsAndFlags) {
  CallRead read = make_read("r", 10, "3S5M2I4M1S", "ACGTACGTACGTACG");
  EXPECT_EQ(unclipped_read_length(read), 11);
  EXPECT_EQ(alignment_stop(read), 18);
  EXPECT_FALSE(is_unmapped(read));
  EXPECT_TRUE(overlaps(read, 0, 18, 30));
  EXPECT_FALSE(overlaps(read, 0, 19, 30));
  EXPECT_FALSE(overlaps(read, 1, 0, 30));
  EXPECT_TRUE(overlaps(read, 0, 0, 11));
  EXPECT_FALSE(overlaps(read, 0, 0, 10));
  read.contig = -1;
  EXPECT_TRUE(is_unmapped(read));
  // ReadUtils.getSAMFlagsForRead: mate bits need a paired read, strand needs a mapped read
  CallRead flags = make_read("f", 10, "4M", "ACGT");
  flags.flag = 0x20 | 0x40 | 0x10 | 0x400;  // not paired: mate-reverse and first-of-pair dropped
  EXPECT_EQ(gatk_sam_flags(flags), 0x10 | 0x400);
  flags.flag = 0x1 | 0x20 | 0x40;  // paired, mate contig unset: mate counts as unmapped
  EXPECT_EQ(gatk_sam_flags(flags), 0x1 | 0x8 | 0x40);
  flags.mate_contig = 0;
  flags.mate_start = 20;
  EXPECT_EQ(gatk_sam_flags(flags), 0x1 | 0x20 | 0x40);
}

}  // namespace
}  // namespace gpp::stages::call
