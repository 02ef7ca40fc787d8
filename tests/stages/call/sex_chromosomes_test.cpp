// The sample's sex as Parabricks' haplotypecaller options give it, and a male's haploid regions:
// X and Y less the pseudo-autosomal regions as the GRC defines them (written here 1-based, as the
// GRC lists them, and converted in the test).
#include "stages/call/sex_chromosomes.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

/// A ploidy-1 region of `contig` over 1-based inclusive [first, last].
PloidyRegion haploid(const std::string& contig, std::int64_t first, std::int64_t last) {
  return {contig, first - 1, last, 1};
}

void expect_regions(const std::vector<PloidyRegion>& got, const std::vector<PloidyRegion>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].contig, want[i].contig) << i;
    EXPECT_EQ(got[i].start, want[i].start) << i;
    EXPECT_EQ(got[i].end, want[i].end) << i;
    EXPECT_EQ(got[i].ploidy, 1) << i;
  }
}

TEST(SexChromosomes, Grch38MaleIsHaploidOutsideThePars) {
  // GRCh38: chrX 156,040,895 bp, PARs 10,001-2,781,479 and 155,701,383-156,030,895; chrY
  // 57,227,415 bp, PARs 10,001-2,781,479 and 56,887,903-57,217,415.
  const std::vector<io::Contig> contigs = {
      {"chr1", 248956422}, {"chrX", 156040895}, {"chrY", 57227415}, {"chrM", 16569}};
  expect_regions(haploid_sex_chromosome_regions(contigs, false),
                 {haploid("chrX", 1, 10000), haploid("chrX", 2781480, 155701382),
                  haploid("chrX", 156030896, 156040895), haploid("chrY", 1, 10000),
                  haploid("chrY", 2781480, 56887902), haploid("chrY", 57217416, 57227415)});
  EXPECT_FALSE(sex_contigs_of_other_assembly(contigs, false));
  EXPECT_TRUE(sex_contigs_of_other_assembly(contigs, true));
}

TEST(SexChromosomes, Grch37MaleIsHaploidOutsideThePars) {
  // GRCh37 (and hg19): X 155,270,560 bp, PARs 60,001-2,699,520 and 154,931,044-155,260,560;
  // Y 59,373,566 bp, PARs 10,001-2,649,520 and 59,034,050-59,363,566.
  const std::vector<io::Contig> contigs = {{"X", 155270560}, {"Y", 59373566}};
  expect_regions(
      haploid_sex_chromosome_regions(contigs, true),
      {haploid("X", 1, 60000), haploid("X", 2699521, 154931043), haploid("X", 155260561, 155270560),
       haploid("Y", 1, 10000), haploid("Y", 2649521, 59034049), haploid("Y", 59363567, 59373566)});
  EXPECT_FALSE(sex_contigs_of_other_assembly(contigs, true));
  EXPECT_TRUE(sex_contigs_of_other_assembly(contigs, false));
}

TEST(SexChromosomes, ShortContigsAndMissingOnes) {
  // A 40 kb chrX ends inside PAR1 (GRCh38): only its first 10 kb are haploid; no Y at all.
  expect_regions(haploid_sex_chromosome_regions(std::vector<io::Contig>{{"chrX", 40001}}, false),
                 {haploid("chrX", 1, 10000)});
  // GRCh37's PAR1 starts at 60,001: all of it is.
  expect_regions(haploid_sex_chromosome_regions(std::vector<io::Contig>{{"chrX", 40001}}, true),
                 {haploid("chrX", 1, 40001)});
  EXPECT_TRUE(
      haploid_sex_chromosome_regions(std::vector<io::Contig>{{"chr20", 100}}, false).empty());
  const std::vector<io::Contig> contigs = {{"chrY", 10}, {"chr1", 5}, {"X", 7}};
  EXPECT_EQ(find_sex_contigs(contigs).x, 2);
  EXPECT_EQ(find_sex_contigs(contigs).y, 0);
  EXPECT_FALSE(sex_contigs_of_other_assembly(contigs, false));
}

TEST(SexChromosomes, SexFromTheXOverYRatio) {
  const RatioRange male = parse_ratio_range("1-10", "--range-male");
  const RatioRange female = parse_ratio_range("150-250", "--range-female");
  EXPECT_EQ(sex_from_read_ratio(500, 100, male, female), SampleSex::kMale);
  EXPECT_EQ(sex_from_read_ratio(100, 100, male, female), SampleSex::kMale);  // inclusive
  EXPECT_EQ(sex_from_read_ratio(1000, 100, male, female), SampleSex::kMale);
  EXPECT_EQ(sex_from_read_ratio(1001, 100, male, female), SampleSex::kUndetermined);
  EXPECT_EQ(sex_from_read_ratio(15000, 100, male, female), SampleSex::kFemale);
  EXPECT_EQ(sex_from_read_ratio(25000, 100, male, female), SampleSex::kFemale);
  EXPECT_EQ(sex_from_read_ratio(25001, 100, male, female), SampleSex::kUndetermined);
  EXPECT_EQ(sex_from_read_ratio(99, 100, male, female), SampleSex::kUndetermined);
  EXPECT_EQ(sex_from_read_ratio(1000, 0, male, female), SampleSex::kUndetermined);
  EXPECT_EQ(sex_from_read_ratio(0, 100, male, female), SampleSex::kUndetermined);
  // Overlapping ranges: male first.
  EXPECT_EQ(sex_from_read_ratio(5, 1, male, parse_ratio_range("0-300", "--range-female")),
            SampleSex::kMale);
  EXPECT_EQ(sex_from_read_ratio(3, 2, parse_ratio_range("0.5-1.5", "r"), female), SampleSex::kMale);
}

TEST(SexChromosomes, OptionValues) {
  EXPECT_EQ(parse_sample_sex("Male"), SampleSex::kMale);
  EXPECT_EQ(parse_sample_sex("FEMALE"), SampleSex::kFemale);
  EXPECT_THROW(parse_sample_sex("m"), Error);
  const RatioRange range = parse_ratio_range("2.5-7", "--range-male");
  EXPECT_EQ(range.low, 2.5);
  EXPECT_EQ(range.high, 7);
  for (const char* bad : {"", "5", "10-1", "a-b", "1-", "-1-5", "1-10x", "1-inf", "nan-3"}) {
    EXPECT_THROW(parse_ratio_range(bad, "--range-male"), Error) << bad;
  }
  try {
    parse_ratio_range("10-1", "--range-female");
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "--range-female 10-1: must be a range of X/Y read ratios LOW-HIGH, e.g. 1-10");
  }
  EXPECT_EQ(sex_name(SampleSex::kUndetermined), "undetermined");
}

}  // namespace
}  // namespace gpp::stages::call
