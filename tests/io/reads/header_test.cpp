// Header: contigs, read groups, libraries, @PG chaining and sort order.
#include "io/reads/header.hpp"

#include <gtest/gtest.h>

#include "io/bam/alignment_reader.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

TEST(Header, IndexesContigsAndReadGroups) {
  AlignmentReader reader(test::data_path("edge_cases/edge_cases.sam"), {});
  const Header& h = reader.header();
  ASSERT_EQ(h.contigs().size(), 2u);
  EXPECT_EQ(h.contigs()[1].name, "chrB");
  EXPECT_EQ(h.contigs()[1].length, 500);
  EXPECT_EQ(h.contig_index("chrB"), 1);
  EXPECT_EQ(h.contig_index("chrZ"), -1);
  ASSERT_EQ(h.read_groups().size(), 2u);
  EXPECT_EQ(h.read_groups()[1].id, "rg2");
  EXPECT_EQ(h.read_groups()[1].library, "libB");
  EXPECT_EQ(h.read_groups()[0].platform, "ILLUMINA");
  EXPECT_EQ(h.read_group_index("rg2"), 1);
  EXPECT_EQ(h.read_group_index("nope"), -1);
  EXPECT_EQ(h.sort_order(), "unsorted");
}

// htsjdk's SAMFileHeader keeps the last @RG line of an ID (HTSlib's line API shows the first);
// every line's library is listed.
TEST(Header, RepeatedReadGroupIdTakesTheLastLine) {
  const Header h = Header::from_text(
      "@HD\tVN:1.6\n@SQ\tSN:c\tLN:10\n@RG\tID:a\tSM:s1\tLB:l1\tPU:u1\n"
      "@RG\tID:b\tSM:s2\tLB:l3\n@RG\tID:a\tSM:s3\tLB:l2\tPL:ILLUMINA\n");
  ASSERT_EQ(h.read_groups().size(), 2u);
  EXPECT_EQ(h.read_groups()[0].id, "a");
  EXPECT_EQ(h.read_groups()[0].sample, "s3");
  EXPECT_EQ(h.read_groups()[0].library, "l2");
  EXPECT_EQ(h.read_groups()[0].platform, "ILLUMINA");
  EXPECT_EQ(h.read_groups()[0].platform_unit, "");
  EXPECT_EQ(h.read_group_index("b"), 1);
  EXPECT_EQ(h.libraries(), (std::vector<std::string>{"l1", "l3", "l2"}));
  EXPECT_EQ(h.read_groups()[0].library_index, 2);
  EXPECT_EQ(h.read_groups()[1].library_index, 1);
}

TEST(Header, LineTagsSkipFieldsThatAreNotTags) {
  EXPECT_EQ(
      header_line_tags("@RG\tID:x\tbad\tDS:a:b\t\tSM:"),
      (std::vector<std::pair<std::string, std::string>>{{"ID", "x"}, {"DS", "a:b"}, {"SM", ""}}));
  EXPECT_TRUE(header_line_tags("@RG").empty());
}

TEST(Header, CloneIsIndependentAndPgChains) {
  AlignmentReader reader(test::data_path("edge_cases/edge_cases.sam"), {});
  Header copy = reader.header().clone();
  copy.set_sort_order("coordinate");
  copy.add_program("gpu-pipeline", "0.1.0", "gpu-pipeline sort -I x");
  EXPECT_EQ(copy.sort_order(), "coordinate");
  EXPECT_EQ(reader.header().sort_order(), "unsorted");
  const std::string text = copy.text();
  EXPECT_NE(text.find("@PG\tID:gpu-pipeline\tPN:gpu-pipeline\tPP:handwritten\tVN:0.1.0\tCL:gpu-"
                      "pipeline sort -I x"),
            std::string::npos)
      << text;
  EXPECT_EQ(reader.header().text().find("gpu-pipeline"), std::string::npos);
}

}  // namespace
}  // namespace gpp::io
