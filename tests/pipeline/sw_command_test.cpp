// gpu-pipeline sw: the golden rows through the executable, bad input, GPU output equal to CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tests/kernels/smith_waterman/sw_test_pairs.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string bin() { return shell_quote(test::binary_path()); }

std::string seq(const std::string& s) { return s.empty() ? "-" : s; }

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every golden row (aligner cases and calculateCigar cases) as input, and the expected output.
std::pair<std::string, std::string> golden_rows() {
  std::string input = "# ref\talt\tmatch\tmismatch\topen\textend\tmode\n", expected;
  for (const auto& c : test::load_aligner_cases()) {
    const auto& p = c.parameters;
    input += seq(c.ref) + "\t" + seq(c.alt) + "\t" + std::to_string(p.match) + "\t" +
             std::to_string(p.mismatch) + "\t" + std::to_string(p.gap_open) + "\t" +
             std::to_string(p.gap_extend) + "\t" + kernels::overhang_strategy_name(c.strategy) +
             "\n";
    expected += std::to_string(c.offset) + "\t" + c.cigar + "\n";
  }
  for (const auto& c : test::load_calculate_cigar_cases()) {
    input += seq(c.ref) + "\t" + seq(c.alt) + "\t200\t-150\t-260\t-11\tHAPLOTYPE_TO_REFERENCE\n";
    expected += "0\t" + c.cigar + "\n";
  }
  return {input, expected};
}

void expect_golden_output(const std::string& device) {
  test::TempDir dir;
  const auto [input, expected] = golden_rows();
  write_file(dir.file("pairs.tsv"), input);
  const auto r = run_command(bin() + " sw -I " + shell_quote(dir.file("pairs.tsv")) + " -O " +
                             shell_quote(dir.file("out.tsv")) + " --device " + device);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("out.tsv")), expected);
  EXPECT_NE(r.err.find(" cells, "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" GCUPS"), std::string::npos) << r.err;
}

TEST(SwCommand, GoldenRowsGiveGatkOffsetsAndCigars) { expect_golden_output("cpu"); }

TEST(SwCommand, EmptySequencesCommentsAndCrlf) {
  test::TempDir dir;
  write_file(dir.file("pairs.tsv"),
             "# comment\n\n"
             "-\tACGT\t3\t-1\t-4\t-3\tSOFTCLIP\n"
             "ACGT\t-\t3\t-1\t-4\t-3\tINDEL\r\n"
             "-\tACG\t200\t-150\t-260\t-11\tHAPLOTYPE_TO_REFERENCE\n"
             "G\t-\t200\t-150\t-260\t-11\tHAPLOTYPE_TO_REFERENCE\n"
             "AAACCCCC\tCCCCC\t3\t-1\t-4\t-3\tIGNORE\n"
             "acgtNNxx\tNNxx\t3\t-1\t-4\t-3\tSOFTCLIP\n");
  const auto r = run_command(bin() + " sw -I " + shell_quote(dir.file("pairs.tsv")) + " -O " +
                             shell_quote(dir.file("out.tsv")) + " --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("out.tsv")), "-1\t*\n-1\t*\n0\t3I\n0\t1D\n3\t5M\n4\t4M\n");
}

TEST(SwCommand, MalformedRowsNameTheLine) {
  test::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ACGT\tAC\t3\t-1\t-4\tSOFTCLIP\n", "line 2: expected 7 tab-separated fields"},
      {"ACGT\tAC\t3\t-1\t-4\t-3x\tSOFTCLIP\n", "line 2: gap_extend '-3x' is not a 32-bit integer"},
      {"ACGT\tAC\t3\t-1\t-4\t99999999999\tSOFTCLIP\n",
       "line 2: gap_extend '99999999999' is not a 32-bit integer"},
      {"ACGT\tAC\t3\t-1\t-4\t-3\tLOCAL\n", "line 2: unknown mode 'LOCAL'"},
      {"\tAC\t3\t-1\t-4\t-3\tINDEL\n", "line 2: empty sequence field"},
      // GATK's SWParameters: a match >= 0, penalties <= 0.
      {"AAAG\tACTG\t-3\t1\t4\t3\tSOFTCLIP\n", "line 2: the match score must be >= 0"},
      {"AAAG\tACTG\t3\t-1\t-4\t1\tSOFTCLIP\n", "line 2: the match score must be >= 0"},
      // Scores whose sums leave 32 bits (they wrapped into wrong CIGARs).
      {"ACGTACGT\tACGTTACGT\t3\t-1\t-2000000000\t-2000000000\tSOFTCLIP\n",
       "line 2: scores this large overflow the 32-bit alignment scores of 17 bases"},
  };
  for (const auto& [row, message] : cases) {
    write_file(dir.file("bad.tsv"), "A\tA\t1\t-1\t-1\t-1\tINDEL\n" + row);
    const auto r = run_command(bin() + " sw -I " + shell_quote(dir.file("bad.tsv")) + " -O " +
                               shell_quote(dir.file("out.tsv")) + " --device cpu");
    EXPECT_EQ(r.exit_code, 1) << row;
    EXPECT_EQ(r.err.rfind("gpu-pipeline: error: " + dir.file("bad.tsv") + ": " + message, 0), 0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"bad.tsv"}) << "no output after an error";
  }
  const auto missing = run_command(bin() + " sw -I " + shell_quote(dir.file("none.tsv")) + " -O " +
                                   shell_quote(dir.file("out.tsv")) + " --device cpu");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.tsv: cannot open"), std::string::npos) << missing.err;
}

using SwCommandGpu = ::gpp::test::GpuTest;

TEST_F(SwCommandGpu, GoldenRowsOnTheGpu) { expect_golden_output("gpu"); }

}  // namespace
}  // namespace gpp::pipeline
