// merge_headers: htsjdk's SamFileHeaderMerger rules (the same rules give Picard MergeSamFiles'
// headers, which tests/pipeline/multiple_inputs_test.cpp compares with ours on real BAMs). The
// expected headers here follow those rules by hand: lines merged by ID in order of first
// appearance, renames counted over the merged lines, the result sorted by ID.
#include "io/reads/header_merge.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"

namespace gpp::io {
namespace {

const std::string kSequences = "@SQ\tSN:chr1\tLN:1000\n@SQ\tSN:chr2\tLN:500\n";

std::string lines_of_type(const std::string& text, const std::string& type) {
  std::string kept;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t eol = text.find('\n', at);
    const std::string line = text.substr(at, eol - at);
    if (line.starts_with(type)) kept += line + "\n";
    at = eol + 1;
  }
  return kept;
}

TEST(HeaderMerge, Base36AsHtsjdkCounts) {
  EXPECT_EQ(base36(0), "0");
  EXPECT_EQ(base36(1), "1");
  EXPECT_EQ(base36(35), "Z");
  EXPECT_EQ(base36(36), "10");
  EXPECT_EQ(base36(1679615), "ZZZZ");
}

// Identical lines are one; a different line of a taken ID is renamed ID.<n>, n the count of
// lines merged before it; the list is sorted by ID.
TEST(HeaderMerge, ReadGroupsMergedAndCollisionsRenamed) {
  const std::vector<Header> headers{
      Header::from_text("@HD\tVN:1.6\tSO:coordinate\n" + kSequences +
                        "@RG\tID:rgB\tSM:s\n@RG\tID:rgA\tSM:s\tLB:l1\n@CO\tfirst\n"),
      Header::from_text("@HD\tVN:1.6\tSO:coordinate\n" + kSequences +
                        "@RG\tID:rgA\tLB:l1\tSM:s\n@RG\tID:rgB\tSM:s\tPL:X\n"
                        "@RG\tID:rgC\tSM:s\tLB:l2\n@CO\tsecond\n")};
  const std::vector<std::string> names{"a.bam", "b.bam"};
  const HeaderMerge merge = merge_headers(headers, names);
  // rgB (a) first seen: kept, 1 merged; rgB (b) differs: rgB.1, 2; rgA (both, the same tags in
  // another order): kept, 3; rgC: kept.
  EXPECT_EQ(lines_of_type(merge.header.text(), "@RG"),
            "@RG\tID:rgA\tSM:s\tLB:l1\n@RG\tID:rgB\tSM:s\n@RG\tID:rgB.1\tSM:s\tPL:X\n"
            "@RG\tID:rgC\tSM:s\tLB:l2\n");
  EXPECT_EQ(lines_of_type(merge.header.text(), "@CO"), "@CO\tfirst\n@CO\tsecond\n");
  EXPECT_EQ(merge.header.sort_order(), "coordinate");
  EXPECT_EQ(merge.header.contigs().size(), 2u);
  EXPECT_EQ(merge.read_group, (std::vector<std::vector<std::int32_t>>{{1, 0}, {0, 2, 3}}));
  ASSERT_EQ(merge.header.libraries(), (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(merge.library, (std::vector<std::vector<std::int32_t>>{{0}, {0, 1}}));
  EXPECT_EQ(merge.read_group_id[0],
            (std::map<std::string, std::string>{{"rgA", "rgA"}, {"rgB", "rgB"}}));
  EXPECT_EQ(merge.read_group_id[1],
            (std::map<std::string, std::string>{{"rgA", "rgA"}, {"rgB", "rgB.1"}, {"rgC", "rgC"}}));
  EXPECT_TRUE(merge.read_group_collisions);
  EXPECT_FALSE(merge.program_collisions);
}

// Programs level by level down the PP chains: the roots' collision renames b's bwa, and b's md,
// whose PP now names bwa.1, differs from a's md and is renamed in turn.
TEST(HeaderMerge, ProgramChainsFollowTheirRenamedParents) {
  const std::vector<Header> headers{
      Header::from_text(kSequences + "@PG\tID:bwa\tPN:bwa\n@PG\tID:md\tPN:md\tPP:bwa\n"),
      Header::from_text(kSequences + "@PG\tID:md\tPN:md\tPP:bwa\n@PG\tID:bwa\tPN:other\n")};
  const std::vector<std::string> names{"a.bam", "b.bam"};
  const HeaderMerge merge = merge_headers(headers, names);
  EXPECT_EQ(lines_of_type(merge.header.text(), "@PG"),
            "@PG\tID:bwa\tPN:bwa\n@PG\tID:bwa.1\tPN:other\n@PG\tID:md\tPN:md\tPP:bwa\n"
            "@PG\tID:md.3\tPN:md\tPP:bwa.1\n");
  EXPECT_EQ(merge.program_id[1],
            (std::map<std::string, std::string>{{"bwa", "bwa.1"}, {"md", "md.3"}}));
  EXPECT_EQ(merge.program_id[0],
            (std::map<std::string, std::string>{{"bwa", "bwa"}, {"md", "md"}}));
  EXPECT_TRUE(merge.program_collisions);
  EXPECT_FALSE(merge.read_group_collisions);
  // Neither header names a sort order: htsjdk's unsorted.
  EXPECT_EQ(merge.header.sort_order(), "unsorted");
}

// A rename skips an ID already taken: b's x would be x.3 (three lines merged before it), which a
// holds, so it is x.4 (Picard MergeSamFiles gives this header for these inputs).
TEST(HeaderMerge, RenameSkipsTakenIds) {
  const std::vector<Header> headers{
      Header::from_text("@HD\tVN:1.6\tSO:coordinate\n" + kSequences +
                        "@RG\tID:x.3\tSM:s\n@RG\tID:y\tSM:s\n@RG\tID:x\tSM:s\n"),
      Header::from_text("@HD\tVN:1.6\tSO:coordinate\n" + kSequences + "@RG\tID:x\tSM:t\n")};
  const std::vector<std::string> names{"a.bam", "b.bam"};
  const HeaderMerge merge = merge_headers(headers, names);
  EXPECT_EQ(merge.header.text(), "@HD\tVN:1.6\tGO:none\tSO:coordinate\n" + kSequences +
                                     "@RG\tID:x\tSM:s\n@RG\tID:x.3\tSM:s\n@RG\tID:x.4\tSM:t\n"
                                     "@RG\tID:y\tSM:s\n");
  EXPECT_EQ(merge.read_group_id[1], (std::map<std::string, std::string>{{"x", "x.4"}}));
  EXPECT_EQ(merge.read_group_id[0],
            (std::map<std::string, std::string>{{"x", "x"}, {"x.3", "x.3"}, {"y", "y"}}));
}

TEST(HeaderMerge, IdenticalHeadersMergeWithoutRenames) {
  const Header header =
      Header::from_text("@HD\tVN:1.6\tSO:coordinate\n" + kSequences + "@RG\tID:x\tSM:s\n");
  const std::vector<Header> headers{header, header};
  const std::vector<std::string> names{"a.bam", "b.bam"};
  const HeaderMerge merge = merge_headers(headers, names);
  EXPECT_EQ(lines_of_type(merge.header.text(), "@RG"), "@RG\tID:x\tSM:s\n");
  EXPECT_FALSE(merge.read_group_collisions);
  EXPECT_FALSE(merge.program_collisions);
  EXPECT_EQ(merge.read_group, (std::vector<std::vector<std::int32_t>>{{0}, {0}}));
}

TEST(HeaderMerge, SortOrdersThatDifferGiveUnsorted) {
  const std::vector<Header> headers{Header::from_text("@HD\tVN:1.6\tSO:coordinate\n" + kSequences),
                                    Header::from_text("@HD\tVN:1.6\tSO:queryname\n" + kSequences)};
  const std::vector<std::string> names{"a.bam", "b.bam"};
  EXPECT_EQ(merge_headers(headers, names).header.sort_order(), "unsorted");
}

TEST(HeaderMerge, ErrorsNameTheInput) {
  const std::vector<std::string> names{"a.bam", "b.bam"};
  auto message = [&](const std::vector<Header>& headers) {
    try {
      merge_headers(headers, names);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({Header::from_text(kSequences),
                     Header::from_text("@SQ\tSN:chr1\tLN:1000\n@SQ\tSN:chr2\tLN:501\n")}),
            "b.bam: its contigs differ from those of a.bam (contig 2: chr2 of 501 against chr2 "
            "of 500); the inputs must share one sequence dictionary");
  EXPECT_EQ(message({Header::from_text(kSequences), Header::from_text("@SQ\tSN:chr1\tLN:1000\n")}),
            "b.bam: its contigs differ from those of a.bam (contig 2: none against chr2 of "
            "500); the inputs must share one sequence dictionary");
  EXPECT_EQ(message({Header::from_text(kSequences),
                     Header::from_text(kSequences + "@RG\tID:x\tSM:s\n@RG\tID:x\tSM:t\n")}),
            "b.bam: more than one @RG line with ID x");
  EXPECT_EQ(
      message({Header::from_text(kSequences + "@PG\tID:p\tPP:q\n"), Header::from_text(kSequences)}),
      "a.bam: @PG p has PP:q, which no @PG line of the file has as its ID");
}

}  // namespace
}  // namespace gpp::io
