// Tests of stages/call/read_filters: GATK ReadFilterLibraryUnitTest (bad and good CIGARs, the
// N-operator, wellformed and mate-contig cases, the non-zero-reference-length table), GATK
// BaseUtilsUnitTest.testConvertIUPACtoN, and hand-derived cases of the HaplotypeCaller filter
// order and the genotyping filter.
#include "stages/call/read_filters.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::make_read;
using testing::parse_cigar;
using testing::read_from_cigar;

const std::vector<std::int64_t> kContigLengths = {1000000, 1000000};
ReadFilterContext context() { return ReadFilterContext{kContigLengths, 2}; }

/// ReadFilterLibraryUnitTest.simpleGoodRead: 101M at 10 (1-based), read group 1, MQ 50.
CallRead simple_good_read() {
  CallRead read = read_from_cigar("101M", 9);
  read.read_group = 1;
  read.mapping_quality = 50;
  return read;
}

// ReadFilterLibraryUnitTest.badCigars
TEST(GoodCigar, GatkBadCigars) {
  const char* bad[] = {"2D4M",
                       "4M2D",
                       "3M1I1D",
                       "1M1I1D2M",
                       "1M1D2I1M",
                       "1M1I2M1D",
                       "4M1D",
                       "1D4M",
                       "2M1D1D2M",
                       "1M1I1I1M",
                       "1H1D4M",
                       "1S1D3M",
                       "1H1S1D3M",
                       "4M1D1H",
                       "3M1D1S",
                       "3M1D1S1H",
                       "1H1S1H1M",
                       "1M1H1S1M",
                       "10M2H10M",
                       "10M2S10M",
                       "1S1H",
                       "1S1S",
                       "1H1S",
                       "1H1H",
                       "1S1H10M",
                       "1H1M1S1M",
                       "1M1H1S",
                       "1H1S10M2S10M1S1H",
                       "1H1S10M2H10M1S1H",
                       "1H1H2M",
                       "1S20S10M",
                       "1S1S1S1M",
                       "1H1S10M10S1S30H",
                       "1H20H10M",
                       "1H1H10M10H30H",
                       "1H1H10M10H1H30H",
                       "1M1H2H"};
  for (const char* cigar : bad) EXPECT_FALSE(is_good_cigar(parse_cigar(cigar))) << cigar;
}

// ReadFilterLibraryUnitTest.goodCigars and testEmptyCigar
TEST(GoodCigar, GatkGoodCigars) {
  for (const char* cigar : {"1H1S10M10S30H", "1I9H", "1I1S8H", "1S1I1S7H", ""}) {
    EXPECT_TRUE(is_good_cigar(parse_cigar(cigar))) << cigar;
  }
}

TEST(GoodCigar, HtsjdkValidityRules) {
  EXPECT_FALSE(is_valid_cigar(parse_cigar("0M")));  // zero-length element
  EXPECT_FALSE(is_valid_cigar(parse_cigar("5S")));  // no real operator
  EXPECT_TRUE(is_valid_cigar(parse_cigar("2P3M")));
  EXPECT_FALSE(is_valid_cigar(parse_cigar("3M2P")));
  EXPECT_FALSE(is_valid_cigar(parse_cigar("3M2P2S")));
  EXPECT_TRUE(is_valid_cigar(parse_cigar("3M2P2M")));
  EXPECT_FALSE(is_valid_cigar(parse_cigar("2M1I1D1I2M")));  // two I with only a D between
  EXPECT_TRUE(is_valid_cigar(parse_cigar("2M1I1D2M")));     // valid, though not good
  EXPECT_FALSE(is_good_cigar(parse_cigar("2M1I1D2M")));
}

// ReadFilterLibraryUnitTest.testGoodCigarsUpToSize: every CIGAR of generateCigarList(10) is good.
TEST(GoodCigar, GeneratedCigarsUpToSizeTenAreGood) {
  const auto cigars = testing::generated_cigars(10);
  ASSERT_FALSE(cigars.empty());
  for (const auto& cigar : cigars) EXPECT_TRUE(is_good_cigar(cigar)) << cigar_to_string(cigar);
}

// ReadFilterLibraryUnitTest.testCigarNOperatorFilter (WellformedReadFilter fails only on N)
TEST(Wellformed, CigarNOperator) {
  const char* cigars[] = {"101M10D20I10M", "6M14N5M",   "1N",     "101M",
                          "110N",          "2N4M",      "4M2N",   "3M1I1M",
                          "1M2I2M",        "1M10N1I1M", "1M1I1D", "11N12M1I34M12N"};
  for (const char* cigar : cigars) {
    CallRead read = read_from_cigar(cigar, 9);
    read.read_group = 1;  // an all-N CIGAR has no bases: SEQ_IS_STORED fails as well
    const bool has_n = std::string(cigar).find('N') != std::string::npos;
    EXPECT_EQ(first_failing_wellformed_check(read, context()) != ReadFilterFailure::kNone, has_n)
        << cigar;
  }
}

// ReadLengthReadFilter's upper bound (--filter-reads-too-long): more bases than it fail, after
// every standard filter; none is set by default.
TEST(HcReadFilters, ReadLengthBoundAfterTheStandardFilters) {
  ReadFilterContext bounded = context();
  bounded.max_read_length = 101;
  EXPECT_EQ(first_failing_hc_read_filter(simple_good_read(), bounded), ReadFilterFailure::kNone);
  bounded.max_read_length = 100;
  EXPECT_EQ(first_failing_hc_read_filter(simple_good_read(), bounded),
            ReadFilterFailure::kReadLength);
  EXPECT_EQ(gatk_filter_name(ReadFilterFailure::kReadLength), "ReadLengthReadFilter");
  CallRead read = simple_good_read();
  read.mapping_quality = 0;
  EXPECT_EQ(first_failing_hc_read_filter(read, bounded), ReadFilterFailure::kMappingQuality);
  CallRead long_read = read_from_cigar("600M", 9);
  long_read.read_group = 1;
  long_read.mapping_quality = 50;
  EXPECT_EQ(first_failing_hc_read_filter(long_read, context()), ReadFilterFailure::kNone);
}

// ReadFilterLibraryUnitTest: passesAllFilters and the fails... cases
TEST(HcReadFilters, GatkPassAndFailCases) {
  EXPECT_EQ(first_failing_hc_read_filter(simple_good_read(), context()), ReadFilterFailure::kNone);
  CallRead read = simple_good_read();
  read.flag |= 0x4;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()), ReadFilterFailure::kMapped);
  read = simple_good_read();
  read.flag |= 0x400;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()), ReadFilterFailure::kNotDuplicate);
  read = simple_good_read();
  read.flag |= 0x200;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kPassesVendorQualityCheck);
  read = simple_good_read();
  read.mapping_quality = 255;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kMappingQualityAvailable);
  read.mapping_quality = 0;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()), ReadFilterFailure::kMappingQuality);
  read = simple_good_read();
  read.read_group = 2;  // no read group
  EXPECT_EQ(first_failing_hc_read_filter(read, context()), ReadFilterFailure::kHasReadGroup);
  read = simple_good_read();
  read.quals = {1, 2, 3};
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kMatchingBasesAndQuals);
  read = simple_good_read();
  read.cigar = parse_cigar("10M2N91M");
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kCigarContainsNoNOperator);
  // testReadCigarLengthMismatch_wellFormed: one more base and quality than the CIGAR
  read = simple_good_read();
  read.bases += 'A';
  read.quals.push_back(60);
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kReadLengthEqualsCigarLength);
  EXPECT_EQ(gatk_filter_name(ReadFilterFailure::kReadLengthEqualsCigarLength),
            "WellformedReadFilter");
}

// Hand-derived: the order of makeStandardHCReadFilters, secondary and supplementary reads, MQ 19
// and 20, and the header check.
TEST(HcReadFilters, OrderAndEdges) {
  CallRead read = simple_good_read();
  read.mapping_quality = 19;
  read.flag |= 0x100 | 0x400;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()), ReadFilterFailure::kMappingQuality);
  read.mapping_quality = 20;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kNotSecondaryAlignment);
  EXPECT_EQ(gatk_filter_name(ReadFilterFailure::kNotSecondaryAlignment),
            "NotSecondaryAlignmentReadFilter");
  read = simple_good_read();
  read.flag |= 0x800;  // supplementary alignments are kept
  EXPECT_TRUE(passes_hc_read_filters(read, context()));
  read = simple_good_read();
  read.cigar = parse_cigar("1D100M1S");  // bad CIGAR (read length still 101)
  EXPECT_EQ(first_failing_hc_read_filter(read, context()), ReadFilterFailure::kGoodCigar);
  read = simple_good_read();
  read.start = 1000000;  // past the contig's end
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kAlignmentAgreesWithHeader);
  read.start = 999999;
  EXPECT_TRUE(passes_hc_read_filters(read, context()));
  read.contig = 2;  // not in the header
  EXPECT_EQ(first_failing_hc_read_filter(read, context()),
            ReadFilterFailure::kAlignmentAgreesWithHeader);
}

// ReadFilterLibraryUnitTest.nonZeroReferenceLengthAlignmentFilterData
TEST(HcReadFilters, NonZeroReferenceLengthAlignment) {
  struct Case {
    const char* cigar;
    bool passes;
  };
  const Case cases[] = {{"101M", true},        {"1M", true},
                        {"0M", false},         {"1D", true},
                        {"0D", false},         {"0D0M", false},
                        {"50I20S", false},     {"50I1M20S", true},
                        {"10I0M20S2H", false}, {"10H10S50I50P10S10H", false},
                        {"10D", true},         {"1M2D1M10I10S", true}};
  for (const Case& c : cases) {
    CallRead read = simple_good_read();
    read.cigar = parse_cigar(c.cigar);
    const bool failed = first_failing_hc_read_filter(read, context()) ==
                        ReadFilterFailure::kNonZeroReferenceLengthAlignment;
    EXPECT_EQ(!failed, c.passes) << c.cigar;
  }
}

// --disable-read-filter: each filter that only leaves reads out turns off alone, by its GATK
// name; the others stay (the caller needs mapped, well-formed alignments) and unknown names fail.
TEST(HcReadFilters, DisabledFiltersLetTheirReadsThrough) {
  const std::vector<std::string> duplicates = {"NotDuplicateReadFilter"};
  ReadFilterContext without_duplicates = context();
  without_duplicates.disabled = disabled_read_filters(duplicates);
  EXPECT_EQ(without_duplicates.disabled, read_filter_bit(ReadFilterFailure::kNotDuplicate));
  CallRead read = simple_good_read();
  read.flag |= 0x400 | 0x200;  // a duplicate failing the vendor check
  EXPECT_EQ(first_failing_hc_read_filter(read, without_duplicates),
            ReadFilterFailure::kPassesVendorQualityCheck);
  const std::vector<std::string> both = {"NotDuplicateReadFilter",
                                         "PassesVendorQualityCheckReadFilter"};
  ReadFilterContext neither = context();
  neither.disabled = disabled_read_filters(both);
  EXPECT_TRUE(passes_hc_read_filters(read, neither));
  EXPECT_FALSE(passes_hc_read_filters(read, context()));

  const std::vector<std::string> quality = {"MappingQualityReadFilter",
                                            "MappingQualityAvailableReadFilter",
                                            "NotSecondaryAlignmentReadFilter"};
  ReadFilterContext any_quality = context();
  any_quality.disabled = disabled_read_filters(quality);
  read = simple_good_read();
  read.mapping_quality = 0;
  read.flag |= 0x100;
  EXPECT_EQ(first_failing_hc_read_filter(read, context()), ReadFilterFailure::kMappingQuality);
  EXPECT_TRUE(passes_hc_read_filters(read, any_quality));
  read.mapping_quality = 255;
  EXPECT_TRUE(passes_hc_read_filters(read, any_quality));
  read.cigar = parse_cigar("1D100M1S");  // still a bad CIGAR
  EXPECT_EQ(first_failing_hc_read_filter(read, any_quality), ReadFilterFailure::kGoodCigar);

  for (const std::string name : {"WellformedReadFilter", "MappedReadFilter", "GoodCigarReadFilter",
                                 "NonZeroReferenceLengthAlignmentReadFilter"}) {
    const std::vector<std::string> one = {name};
    EXPECT_THROW(
        try { disabled_read_filters(one); } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("keeps this filter"), std::string::npos);
          throw;
        },
        Error);
  }
  const std::vector<std::string> unknown = {"NoSuchReadFilter"};
  EXPECT_THROW(disabled_read_filters(unknown), Error);
}

// ReadFilterLibraryUnitTest.mateOnSameContigOrNoMappedMateTestData
TEST(MateOnSameContig, GatkCases) {
  CallRead unpaired = simple_good_read();
  EXPECT_TRUE(mate_on_same_contig_or_no_mapped_mate(unpaired));
  CallRead mate_unmapped = simple_good_read();
  mate_unmapped.flag |= 0x1 | 0x8;
  EXPECT_TRUE(mate_on_same_contig_or_no_mapped_mate(mate_unmapped));
  CallRead other_contig = simple_good_read();
  other_contig.flag |= 0x1;
  other_contig.mate_contig = 1;
  other_contig.mate_start = 0;
  other_contig.start = 0;
  EXPECT_FALSE(mate_on_same_contig_or_no_mapped_mate(other_contig));
  CallRead same_contig = other_contig;
  same_contig.mate_contig = 0;
  same_contig.mate_start = 99;
  EXPECT_TRUE(mate_on_same_contig_or_no_mapped_mate(same_contig));
  CallRead unmapped_with_mate = same_contig;
  unmapped_with_mate.flag |= 0x4;
  EXPECT_FALSE(mate_on_same_contig_or_no_mapped_mate(unmapped_with_mate));
  CallRead both_unmapped = unmapped_with_mate;
  both_unmapped.flag |= 0x8;
  EXPECT_TRUE(mate_on_same_contig_or_no_mapped_mate(both_unmapped));
  CallRead unmapped_unpaired = simple_good_read();
  unmapped_unpaired.flag |= 0x4;
  EXPECT_TRUE(mate_on_same_contig_or_no_mapped_mate(unmapped_unpaired));
}

// BaseUtilsUnitTest.testConvertIUPACtoN, plus strict mode's rejection of non-IUPAC bytes
TEST(IupacTransformer, ConvertsAmbiguityCodes) {
  auto convert = [](std::string bases) {
    CallRead read = make_read("r", 0, std::to_string(bases.size()) + "M", bases);
    convert_iupac_to_n(read);
    return read.bases;
  };
  EXPECT_EQ(convert("AAA"), "AAA");
  EXPECT_EQ(convert("WAA"), "NAA");
  EXPECT_EQ(convert("AMA"), "ANA");
  EXPECT_EQ(convert("AAK"), "AAN");
  EXPECT_EQ(convert("MMM"), "NNN");
  EXPECT_EQ(convert("RYSWKMBDHVNrysn"), "NNNNNNNNNNNNNNN");
  EXPECT_EQ(convert("acgtACGT"), "acgtACGT");
  for (const char* bad : {"AC*T", "AC=T", "A.GT", "ACUT"}) {
    EXPECT_THROW(convert(bad), Error) << bad;
  }
}

// HaplotypeCallerEngine.filterNonPassingReads, hand-derived.
TEST(GenotypingFilter, LengthMappingQualityMateAndReadGroup) {
  CallRead read = make_read("r", 100, "5S10M", "AAAAACCCCCCCCCC");
  EXPECT_TRUE(passes_genotyping_filter(read));
  read = make_read("r", 100, "6S9M", "AAAAAACCCCCCCCC");  // 9 bases besides the soft clip
  EXPECT_FALSE(passes_genotyping_filter(read));
  read = make_read("r", 100, "10M", "CCCCCCCCCC");
  read.mapping_quality = 19;
  EXPECT_FALSE(passes_genotyping_filter(read));
  EXPECT_TRUE(passes_genotyping_filter(read, {19, std::nullopt}));
  read.mapping_quality = 20;
  read.flag |= 0x1;
  read.mate_contig = 1;
  read.mate_start = 5;
  EXPECT_FALSE(passes_genotyping_filter(read));
  read.mate_contig = 0;
  EXPECT_TRUE(passes_genotyping_filter(read));
  read.read_group = 3;
  EXPECT_FALSE(passes_genotyping_filter(read, {20, 2u}));
  EXPECT_TRUE(passes_genotyping_filter(read, {20, 3u}));
}

}  // namespace
}  // namespace gpp::stages::call
