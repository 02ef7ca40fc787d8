// Intervals: region strings, BED, interval_list, .list files; padding, sorting, merging,
// exclusion, errors.
#include "io/genome/intervals.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

const std::vector<Contig> kDictionary = {{"chr1", 1000}, {"chr2", 500}, {"HLA-A*01:01", 300}};

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(Intervals, RegionStrings) {
  EXPECT_EQ(parse_intervals({"chr2"}, kDictionary), (std::vector<Interval>{{"chr2", 0, 500}}));
  EXPECT_EQ(parse_intervals({"chr1:100-200"}, kDictionary),
            (std::vector<Interval>{{"chr1", 99, 200}}));
  EXPECT_EQ(parse_intervals({"chr1:1,000"}, kDictionary),
            (std::vector<Interval>{{"chr1", 999, 1000}}));
  EXPECT_EQ(parse_intervals({"HLA-A*01:01"}, kDictionary),
            (std::vector<Interval>{{"HLA-A*01:01", 0, 300}}));
  EXPECT_EQ(parse_intervals({"HLA-A*01:01:5-6"}, kDictionary),
            (std::vector<Interval>{{"HLA-A*01:01", 4, 6}}));
}

TEST(Intervals, SortedInDictionaryOrderAndMerged) {
  const auto merged = parse_intervals(
      {"chr2:10-20", "chr1:300-400", "chr1:100-200", "chr1:201-250", "chr1:390-500"}, kDictionary);
  // 100-200 and 201-250 abut (merged, as GATK's ALL rule); 300-400 and 390-500 overlap.
  EXPECT_EQ(merged,
            (std::vector<Interval>{{"chr1", 99, 250}, {"chr1", 299, 500}, {"chr2", 9, 20}}));
}

// GATK's -ip: each interval flanked on both sides within its contig, then merged (flanks that
// meet or abut join, as GATK's getIntervalsWithFlanks merges them).
TEST(Intervals, PaddingFlanksWithinTheContigThenMerges) {
  EXPECT_EQ(parse_intervals({"chr1:100-200", "chr1:301-400", "chr2:10-20", "chr2:490-495"},
                            kDictionary, 50),
            (std::vector<Interval>{{"chr1", 49, 450}, {"chr2", 0, 70}, {"chr2", 439, 500}}));
  // 49 apart: the flanks of 24 on each side leave one base between them.
  EXPECT_EQ(parse_intervals({"chr1:100-200", "chr1:250-300"}, kDictionary, 24),
            (std::vector<Interval>{{"chr1", 75, 224}, {"chr1", 225, 324}}));
  EXPECT_EQ(parse_intervals({"chr1:100-200"}, kDictionary, 0),
            (std::vector<Interval>{{"chr1", 99, 200}}));
  EXPECT_EQ(parse_intervals({"chr2"}, kDictionary, 1000),
            (std::vector<Interval>{{"chr2", 0, 500}}));
  EXPECT_THROW(parse_intervals({"chr1:100-200"}, kDictionary, -1), Error);
}

// GATK's -XL: what is left of the included intervals outside the excluded ones; -XL alone is
// taken from every contig whole.
TEST(Intervals, ExcludedIntervalsAreCutOut) {
  const auto included = parse_intervals({"chr1:101-500", "chr1:601-700", "chr2"}, kDictionary);
  const auto excluded = parse_intervals(
      {"chr1:1-150", "chr1:201-300", "chr1:451-650", "chr2:491-500", "HLA-A*01:01"}, kDictionary);
  EXPECT_EQ(subtract_intervals(included, excluded),
            (std::vector<Interval>{
                {"chr1", 150, 200}, {"chr1", 300, 450}, {"chr1", 650, 700}, {"chr2", 0, 490}}));
  EXPECT_EQ(subtract_intervals(whole_contigs(kDictionary), excluded),
            (std::vector<Interval>{
                {"chr1", 150, 200}, {"chr1", 300, 450}, {"chr1", 650, 1000}, {"chr2", 0, 490}}));
  EXPECT_TRUE(subtract_intervals(parse_intervals({"chr1:201-300"}, kDictionary), excluded).empty());
  EXPECT_EQ(subtract_intervals(included, {}), included);
}

TEST(Intervals, BedIntervalListAndListFiles) {
  test::TempDir dir;
  write_file(dir.file("a.bed"), "track name=x\nchr1\t0\t10\nchr2\t100\t200\tname\n");
  write_file(dir.file("b.interval_list"),
             "@HD\tVN:1.6\n@SQ\tSN:chr1\tLN:1000\nchr1\t501\t600\t+\ttarget_1\n");
  write_file(dir.file("c.list"), "chr2:1-5\n\nchr1:991-1000\n");
  EXPECT_EQ(parse_intervals({dir.file("a.bed")}, kDictionary),
            (std::vector<Interval>{{"chr1", 0, 10}, {"chr2", 100, 200}}));
  EXPECT_EQ(parse_intervals({dir.file("b.interval_list")}, kDictionary),
            (std::vector<Interval>{{"chr1", 500, 600}}));
  EXPECT_EQ(parse_intervals({dir.file("c.list")}, kDictionary),
            (std::vector<Interval>{{"chr1", 990, 1000}, {"chr2", 0, 5}}));
}

TEST(Intervals, ErrorsNameTheProblem) {
  EXPECT_THROW(parse_intervals({"chr9:1-10"}, kDictionary), Error);
  EXPECT_THROW(parse_intervals({"chr1:10-5"}, kDictionary), Error);
  EXPECT_THROW(parse_intervals({"chr1:1-2000"}, kDictionary), Error);
  EXPECT_THROW(parse_intervals({"chr1:x-y"}, kDictionary), Error);
  test::TempDir dir;
  write_file(dir.file("bad.bed"), "chr1\t5\n");
  try {
    parse_intervals({dir.file("bad.bed")}, kDictionary);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.bed: line 1"), std::string::npos) << e.what();
  }
}

// An interval file without intervals is refused (an empty list would mean the whole genome).
TEST(Intervals, FileWithoutIntervalsIsAnError) {
  test::TempDir dir;
  write_file(dir.file("empty.bed"), "# nothing\ntrack name=x\n");
  try {
    parse_intervals({dir.file("empty.bed")}, kDictionary);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.file("empty.bed") +
                  ": the interval file contains no intervals (-L needs at least one)");
  }
  // -XL's values are named as -XL's.
  try {
    parse_intervals({dir.file("empty.bed")}, kDictionary, 0, "-XL");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(-XL needs at least one)"), std::string::npos);
  }
  try {
    parse_intervals({"chr9:1-10"}, kDictionary, 0, "-XL");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("-XL chr9:1-10", 0), 0u) << e.what();
  }
}

// A missing interval file says so, instead of being read as a contig name.
TEST(Intervals, MissingIntervalFileIsNamed) {
  for (const std::string missing :
       {"missing.bed", "targets.interval_list", "regions.list", "x.intervals", "dir/chr1"}) {
    try {
      parse_intervals({missing}, kDictionary);
      FAIL() << missing;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), missing + ": no such interval file");
    }
  }
  // A contig whose name looks like a file is still the contig.
  const std::vector<Contig> dictionary = {{"scaffold.list", 100}};
  EXPECT_EQ(parse_intervals({"scaffold.list"}, dictionary),
            (std::vector<Interval>{{"scaffold.list", 0, 100}}));
}

}  // namespace
}  // namespace gpp::io
