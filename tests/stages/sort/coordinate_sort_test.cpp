// Coordinate sort: record order identical to `samtools sort` on shuffled real inputs, and the
// GPU order identical to the CPU order.
#include "stages/sort/coordinate_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "stages/sort/queryname_sort.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::sort {
namespace {

using test::run_command;
using test::shell_quote;

// Writes the records of `bam` in a random order (header SO:unsorted) to `out`.
void write_shuffled(const std::string& bam, const std::string& out, unsigned seed) {
  io::Header header;
  const io::ReadBatch reads = io::read_alignments(bam, {}, header);
  std::vector<std::uint32_t> order(reads.size());
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  io::Header unsorted = header.clone();
  unsorted.set_sort_order("unsorted");
  io::write_alignments(out, unsorted, reads, order, {});
}

std::string records(const std::string& bam) {
  const auto r = run_command("samtools view " + shell_quote(bam));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(CoordinateSort, SortSubcommandEqualsSamtoolsSortOnShuffledInputs) {
  const std::vector<std::string> inputs = {
      "real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
      "real_na12878_chr20_hg19/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam",
      "nfcore_chr22_40kb/NA12878.chr22.bam",
      "gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam",
  };
  test::TempDir dir;
  unsigned seed = 1;
  for (const std::string& input : inputs) {
    const std::string shuffled = dir.file("shuffled.bam");
    write_shuffled(test::data_path(input), shuffled, seed++);
    const std::string ours = dir.file("ours.bam");
    const std::string theirs = dir.file("theirs.bam");
    const auto r = run_command(shell_quote(test::binary_path()) + " sort --device cpu -I " +
                               shell_quote(shuffled) + " -O " + shell_quote(ours));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(run_command("samtools sort -o " + shell_quote(theirs) + " " + shell_quote(shuffled))
                  .exit_code,
              0);
    const std::string expected = records(theirs);
    EXPECT_FALSE(expected.empty());
    EXPECT_TRUE(records(ours) == expected) << input << ": record order differs from samtools sort";
    EXPECT_NE(run_command("samtools view -H " + shell_quote(ours)).out.find("SO:coordinate"),
              std::string::npos);
  }
}

TEST(QuerynameSort, EqualsSamtoolsSortNOnShuffledInputs) {
  test::TempDir dir;
  // Names that exercise natural ordering: digit runs, leading zeros, prefixes.
  std::ofstream sam(dir.file("names.sam"));
  sam << "@HD\tVN:1.6\n@SQ\tSN:c\tLN:1000\n";
  for (const char* name :
       {"r10",         "r9",          "r009", "r9", "r01",  "r1",    "r001",  "a",
        "a0",          "a00",         "B7",   "b7", "x1y2", "x1y10", "x01y2", "read:5:123",
        "read:5:0123", "read:05:123", "zz",   "z",  "10",   "9"}) {
    for (int flag : {147, 99, 355})
      sam << name << "\t" << flag << "\tc\t100\t60\t4M\t=\t100\t0\tACGT\tIIII\n";
  }
  sam.close();
  unsigned seed = 11;
  for (const std::string& input :
       {dir.file("names.sam"),
        test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"),
        test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam"),
        test::data_path("edge_cases/edge_cases.sam")}) {
    const std::string shuffled = dir.file("shuffled.bam");
    write_shuffled(input, shuffled, seed++);
    const auto r =
        run_command(shell_quote(test::binary_path()) + " sort --sort-order queryname -I " +
                    shell_quote(shuffled) + " -O " + shell_quote(dir.file("ours.bam")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(run_command("samtools sort -n -o " + shell_quote(dir.file("theirs.bam")) + " " +
                          shell_quote(shuffled))
                  .exit_code,
              0);
    const std::string expected = records(dir.file("theirs.bam"));
    EXPECT_FALSE(expected.empty());
    EXPECT_TRUE(records(dir.file("ours.bam")) == expected)
        << input << ": record order differs from samtools sort -n";
    EXPECT_NE(run_command("samtools view -H " + shell_quote(dir.file("ours.bam")))
                  .out.find("SO:queryname"),
              std::string::npos);
  }
}

TEST(SpillSort, RunsMergedEqualSamtoolsSortAndLeaveNoTemporaryFiles) {
  test::TempDir inputs;
  test::TempDir dir;
  const std::string shuffled = inputs.file("shuffled.bam");
  write_shuffled(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"),
                 shuffled, 99);
  for (const std::string order : {"coordinate", "queryname"}) {
    const auto r = run_command(shell_quote(test::binary_path()) +
                               " sort --max-memory 2M --sort-order " + order + " -I " +
                               shell_quote(shuffled) + " -O " + shell_quote(dir.file("ours.bam")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("merging"), std::string::npos) << r.err;  // really spilled
    ASSERT_EQ(
        run_command("samtools sort " + std::string(order == "queryname" ? "-n " : "") + "-o " +
                    shell_quote(inputs.file("theirs.bam")) + " " + shell_quote(shuffled))
            .exit_code,
        0);
    EXPECT_TRUE(records(dir.file("ours.bam")) == records(inputs.file("theirs.bam"))) << order;
    const std::vector<std::string> expected =
        order == "coordinate" ? std::vector<std::string>{"ours.bam", "ours.bam.bai"}
                              : std::vector<std::string>{"ours.bam"};
    EXPECT_EQ(dir.entries(), expected) << order;
    std::filesystem::remove(dir.file("ours.bam.bai"));
  }
}

TEST(QuerynameSort, NaturalNameComparison) {
  EXPECT_LT(natural_name_compare("r9", "r10"), 0);
  EXPECT_LT(natural_name_compare("r010", "r10"), 0);  // equal numbers: more leading zeros first
  EXPECT_LT(natural_name_compare("a", "a0"), 0);
  EXPECT_LT(natural_name_compare("B", "a"), 0);  // byte order outside digit runs
  EXPECT_EQ(natural_name_compare("x12y", "x12y"), 0);
}

TEST(CoordinateSort, KeysFollowSamtoolsComparator) {
  io::ReadBatch reads;
  // (tid, pos, flag): unplaced last, then position, then forward before reverse.
  const std::vector<std::tuple<int, long, int>> rows = {
      {-1, -1, 4}, {1, 5, 0}, {0, 7, 16}, {0, 7, 0}, {0, -1, 4}};
  for (const auto& [tid, pos, flag] : rows) {
    reads.tid.push_back(tid);
    reads.pos.push_back(pos);
    reads.flag.push_back(static_cast<std::uint16_t>(flag));
  }
  EXPECT_EQ(coordinate_order(reads, kernels::Backend::kCpu),
            (std::vector<std::uint32_t>{4, 3, 2, 1, 0}));
}

using CoordinateSortGpu = ::gpp::test::GpuTest;

TEST_F(CoordinateSortGpu, GpuOrderEqualsCpuOrder) {
  for (const char* input : {"real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
                            "nfcore_chr22_40kb/NA12878.chr22.bam"}) {
    io::Header header;
    const io::ReadBatch reads = io::read_alignments(test::data_path(input), {}, header);
    EXPECT_EQ(coordinate_order(reads, kernels::Backend::kGpu),
              coordinate_order(reads, kernels::Backend::kCpu))
        << input;
  }
}

}  // namespace
}  // namespace gpp::stages::sort
