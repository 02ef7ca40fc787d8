// --ploidy-regions: the BED as GATK's SimpleCount reads it, and the ploidy of a span as
// HaplotypeCallerEngine.getPloidyToUseAtThisSite gives it (GATK's testPloidyRegions.bed cases).
#include "stages/call/ploidy_regions.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

// GATK's src/test/resources/.../haplotypecaller/testPloidyRegions.bed (1-based BED starts + 1):
// overlapping regions, one with spaces between its columns.
constexpr const char* kGatkRegions =
    "20\t10000000\t10010000\t2\n"
    "20\t10020000\t10030000\t4\n"
    "20  10022000    10026000    2\n"
    "20\t10060000\t10080000\t1\n";

TEST(PloidyRegions, ParsesGatksTestBed) {
  const std::vector<PloidyRegion> regions = parse_ploidy_regions(kGatkRegions, "t.bed");
  ASSERT_EQ(regions.size(), 4u);
  EXPECT_EQ(regions[2].contig, "20");
  EXPECT_EQ(regions[2].start, 10022000);
  EXPECT_EQ(regions[2].end, 10026000);
  EXPECT_EQ(regions[2].ploidy, 2);
  EXPECT_EQ(parse_ploidy_regions("# comment\ntrack name=x\n\nchrX\t5\t9\t1\r\n", "t.bed").size(),
            1u);
}

TEST(PloidyRegions, LargestOverlappingPloidyElseTheDefault) {
  const std::vector<PloidyRegion> regions = parse_ploidy_regions(kGatkRegions, "t.bed");
  const ContigPloidy ploidy(regions, "20", 2);
  EXPECT_TRUE(ploidy.varies());
  EXPECT_EQ(ploidy.at(10005000, 10005300), 2);
  EXPECT_EQ(ploidy.at(10012000, 10012300), 2);  // none: the default
  EXPECT_EQ(ploidy.at(10023000, 10023300), 4);  // inside the 2 within the 4: the larger
  EXPECT_EQ(ploidy.at(10029900, 10030100), 4);  // overlapping the end of the 4
  EXPECT_EQ(ploidy.at(10030000, 10030300), 2);  // the end is exclusive
  EXPECT_EQ(ploidy.at(10070000, 10070001), 1);
  EXPECT_EQ(ploidy.at(10079900, 10080100), 1);
  // Another default: only the regions' own ploidies change.
  EXPECT_EQ(ContigPloidy(regions, "20", 3).at(10012000, 10012300), 3);
  const ContigPloidy other(regions, "21", 2);
  EXPECT_FALSE(other.varies());
  EXPECT_EQ(other.at(10070000, 10070001), 2);
}

TEST(PloidyRegions, MalformedLinesAreErrors) {
  // GATK's testNonIntegerPloidyRegions.bed and testNegativePloidyRegions.bed are refused too.
  for (const char* text :
       {"20\t10\t20\tone\n", "20\t10\t20\t-1\n", "20\t10\t20\t0\n", "20\t10\t20\t9\n",
        "20\t10\t20\n", "20\t20\t10\t1\n", "20\tx\t10\t1\n"}) {
    EXPECT_THROW(parse_ploidy_regions(text, "t.bed"), Error) << text;
  }
  try {
    parse_ploidy_regions("20\t1\t5\t1\n20\t10\t20\t1.5\n", "p.bed");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("p.bed line 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpp::stages::call
