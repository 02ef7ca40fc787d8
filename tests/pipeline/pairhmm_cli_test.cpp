// gpu-pipeline pairhmm: output format and values on tiny.in, statistics on stderr, bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/text/pairhmm_batch_file.hpp"
#include "kernels/pairhmm/pairhmm.hpp"
#include "tests/kernels/pairhmm/pairhmm_test_support.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string bin() { return shell_quote(test::binary_path()); }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Parses the scores file: per record "R H" then R lines of H values with 6 decimals.
std::vector<double> parse_scores(const std::string& text, const kernels::PairHmmBatchView& batch) {
  std::istringstream in(text);
  std::vector<double> values;
  for (const auto& g : batch.groups) {
    std::string line;
    EXPECT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, std::to_string(g.read_count) + " " + std::to_string(g.haplotype_count));
    for (std::uint32_t r = 0; r < g.read_count; ++r) {
      EXPECT_TRUE(std::getline(in, line));
      std::istringstream fields(line);
      std::string field;
      std::uint32_t h = 0;
      while (fields >> field) {
        const auto dot = field.find('.');
        EXPECT_NE(dot, std::string::npos);
        EXPECT_EQ(field.size() - dot - 1, 6u) << field;  // 6 decimals
        values.push_back(std::stod(field));
        ++h;
      }
      EXPECT_EQ(h, g.haplotype_count);
    }
  }
  std::string rest;
  EXPECT_FALSE(std::getline(in, rest)) << rest;
  return values;
}

void score_tiny(const std::string& device) {
  test::TempDir dir;
  const std::string in = test::data_path("pairhmm_bench/tiny.in");
  const auto r = run_command(bin() + " pairhmm -I " + shell_quote(in) + " -O " +
                             shell_quote(dir.file("s.out")) + " --device " + device);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("492820 cells"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("with transfers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GCUPS"), std::string::npos) << r.err;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.out"});
  kernels::PairHmmBatch batch;
  io::read_pairhmm_batch_file(in, batch);
  const auto values = parse_scores(read_file(dir.file("s.out")), batch.view());
  ASSERT_EQ(values.size(), 332u);
  // Printed with 6 decimals: within 1e-5 of the reference after rounding.
  EXPECT_TRUE(
      test::pairhmm_within(batch.view(), values, test::pairhmm_reference(batch.view()), 1e-5));
}

TEST(PairHmmCli, ScoresTinyOnTheCpu) { score_tiny("cpu"); }

using PairHmmCliGpu = ::gpp::test::GpuTest;

TEST_F(PairHmmCliGpu, ScoresTinyOnTheGpu) { score_tiny("gpu"); }

TEST(PairHmmCli, DoublePrecisionOption) {
  test::TempDir dir;
  const auto r =
      run_command(bin() + " pairhmm -I " + shell_quote(test::data_path("pairhmm_bench/tiny.in")) +
                  " -O " + shell_quote(dir.file("s.out")) + " --device cpu --precision double");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("(332 pairs in fp64)"), std::string::npos) << r.err;
  EXPECT_EQ(run_command(bin() + " pairhmm -I x -O y --precision half").exit_code, 2);  // usage
}

TEST(PairHmmCli, BadInputIsOneLineNamingFileAndLine) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"1 1\nACGT IIII IIII IIII\nACGT\n", ":2: expected 5 fields"},
      {"1 1\nACGT IIII IIII III IIII\nACGT\n",
       ":2: the read and its quality fields differ in length"},
      {"1 1\nACGT II\x7fI IIII IIII IIII\nACGT\n", ":2: base qualities are not Phred+33"},
      {"1 1\nACGT IIII IIII IIII IIII\nAXGT\n",
       ":3: the haplotype has a base other than A, C, G, T, N"},
      {"1 2\nACGT IIII IIII IIII IIII\nACGT\n", ":3: the file ends inside a record"},
      {"1 1\n\nACGT\n", ":2: expected 5 fields"},  // an empty read line
      {"x 1\n", ":1: expected a record header"},
      {"0 1\n", ":1: expected a record header"},
      // A binary file's bytes are quoted escaped, not sent to the terminal.
      {"\x1f\x8b\x08 1\n",
       ":1: expected a record header 'R H' (positive read and haplotype "
       "counts), found '\\x1f\\x8b\\x08'"},
  };
  for (const auto& c : cases) {
    test::TempDir dir;
    const std::string in = dir.file("bad.in");
    std::ofstream(in) << c.text;
    const auto r = run_command(bin() + " pairhmm -I " + shell_quote(in) + " -O " +
                               shell_quote(dir.file("s.out")) + " --device cpu");
    EXPECT_EQ(r.exit_code, 1) << c.text;
    EXPECT_EQ(r.err.rfind("gpu-pipeline: error: " + in + c.message, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"bad.in"});
  }
  const auto missing =
      run_command(bin() + " pairhmm -I /nonexistent.in -O /tmp/x.out --device cpu");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent.in: cannot open"), std::string::npos) << missing.err;
  test::TempDir dir;
  std::filesystem::create_directory(dir.file("d"));
  const auto directory = run_command(bin() + " pairhmm -I " + shell_quote(dir.file("d")) + " -O " +
                                     shell_quote(dir.file("s.out")) + " --device cpu");
  EXPECT_EQ(directory.exit_code, 1);
  EXPECT_NE(directory.err.find(dir.file("d") + ": a directory, not a batch file"),
            std::string::npos)
      << directory.err;
}

// The scores are named when complete, in place of nothing else: not <output>.tmp (an input or
// another file of that name), and a device or link named as the output is written through.
TEST(PairHmmCli, OutputWrittenThroughAndNoTemporaryName) {
  test::TempDir dir;
  const std::string in = dir.file("a.tmp");
  std::ofstream(in) << "1 1\nACGTACGT IIIIIIII IIIIIIII IIIIIIII ++++++++\nACGTACGTAA\n";
  std::ofstream(dir.file("v.tmp")) << "keep\n";
  const auto scored = run_command(bin() + " pairhmm -I " + shell_quote(in) + " -O " +
                                  shell_quote(dir.file("a")) + " --device cpu");
  ASSERT_EQ(scored.exit_code, 0) << scored.err;
  EXPECT_TRUE(std::filesystem::exists(in)) << "the input a.tmp was renamed over the output";
  EXPECT_EQ(test::read_file(dir.file("a")).rfind("1 1\n", 0), 0u);
  std::filesystem::create_symlink(dir.file("target.out"), dir.file("v"));
  ASSERT_EQ(run_command(bin() + " pairhmm -I " + shell_quote(in) + " -O " +
                        shell_quote(dir.file("v")) + " --device cpu")
                .exit_code,
            0);
  EXPECT_EQ(test::read_file(dir.file("v.tmp")), "keep\n");
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("v")));
  EXPECT_EQ(test::read_file(dir.file("target.out")), test::read_file(dir.file("a")));
  // An existing directory as the output: refused before any work, nothing left.
  std::filesystem::create_directory(dir.file("d"));
  const auto directory = run_command(bin() + " pairhmm -I " + shell_quote(in) + " -O " +
                                     shell_quote(dir.file("d")) + " --device cpu");
  EXPECT_EQ(directory.exit_code, 1);
  EXPECT_NE(directory.err.find(dir.file("d") + ": cannot write output (" + dir.file("d") +
                               " is a directory)"),
            std::string::npos)
      << directory.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("d.tmp")));
}

}  // namespace
}  // namespace gpp::pipeline
