// Outputs that are not regular files are written into, never replaced: standard output (-O - or
// /dev/stdout, piped or redirected), a FIFO; a symbolic link is written through to its target and
// stays a link. None gets an index or a temporary file beside it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string bin() { return shell_quote(test::binary_path()); }
std::string input() {
  return shell_quote(test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam"));
}

/// The records of a BAM file, or of BAM bytes given as text.
std::string records_of_file(const std::string& path) {
  const auto r = run_command("samtools view " + shell_quote(path));
  EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
  return r.out;
}

std::string expected_records() {
  const auto r = run_command("samtools view " + input());
  EXPECT_NE(r.out.find("\tchr22\t"), std::string::npos);
  return r.out;
}

TEST(StreamOutputConformance, StandardOutputIsWrittenIntoAndNotReplaced) {
  test::TempDir dir;
  struct stat before {};
  ASSERT_EQ(::lstat("/dev/stdout", &before), 0);
  // Piped (run_command captures standard output), by "-" and by /dev/stdout; run from `dir`, so
  // that a file named "-" would show.
  for (const std::string out : {"-", "/dev/stdout"}) {
    const auto r = run_command("cd " + shell_quote(dir.path().string()) + " && " + bin() +
                               " sort -I " + input() + " -O " + out + " --verbosity ERROR | cat");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ofstream(dir.file("piped.bam"), std::ios::binary) << r.out;
    EXPECT_TRUE(records_of_file(dir.file("piped.bam")) == expected_records()) << out;
    std::filesystem::remove(dir.file("piped.bam"));
    EXPECT_TRUE(dir.entries().empty()) << out;  // no "-", no temporary, no index
  }
  // Redirected to a file: the file gets the BAM.
  const auto r = run_command("cd " + shell_quote(dir.path().string()) + " && " + bin() +
                             " sort -I " + input() + " -O /dev/stdout --verbosity ERROR > " +
                             shell_quote(dir.file("redirected.bam")) + "; echo done");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(records_of_file(dir.file("redirected.bam")) == expected_records());
  struct stat after {};
  ASSERT_EQ(::lstat("/dev/stdout", &after), 0);
  EXPECT_EQ(after.st_mode, before.st_mode);  // still the link (or device) it was
  EXPECT_FALSE(std::filesystem::exists("/dev/stdout.bai"));
  // Text outputs too: a VCF and markdup's metrics.
  const std::string ref = shell_quote(test::data_path("nfcore_chr22_40kb/genome.fasta"));
  const auto vcf = run_command(bin() + " call -I " + input() + " -R " + ref + " -O -");
  EXPECT_EQ(vcf.exit_code, 0) << vcf.err;
  EXPECT_EQ(vcf.out.rfind("##fileformat=VCFv4.2\n", 0), 0u);
  EXPECT_NE(vcf.out.find("\nchr22\t"), std::string::npos);
  const auto metrics = run_command(bin() + " markdup -I " + input() + " -O " +
                                   shell_quote(dir.file("m.bam")) + " -M /dev/stdout");
  EXPECT_EQ(metrics.exit_code, 0) << metrics.err;
  EXPECT_NE(metrics.out.find("PERCENT_DUPLICATION"), std::string::npos);
}

// A standard output redirected to a file is written through its own descriptor, as samtools
// writes "-": what the shell wrote before stays, `>>` appends, stderr beside it (2>&1) overwrites
// nothing. And no other output may be that file.
TEST(StreamOutputConformance, RedirectedStandardOutputKeepsItsOffset) {
  test::TempDir dir;
  const std::string rows = dir.file("rows.tsv");
  std::ofstream(rows) << "ACGT\tACGT\t3\t-1\t-4\t-3\tSOFTCLIP\n";
  const std::string framed = dir.file("framed.txt");
  const auto r =
      run_command("sh -c " + shell_quote("{ echo HEADER; " + bin() + " sw -I " + shell_quote(rows) +
                                         " -O - --device cpu; echo FOOTER; } > " +
                                         shell_quote(framed) + " 2>&1"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = test::read_file(framed);
  EXPECT_EQ(text.rfind("HEADER\n0\t4M\n", 0), 0u) << text;
  EXPECT_NE(text.find("sw: 1 pairs"), std::string::npos) << text;  // the log line, after it
  EXPECT_TRUE(text.ends_with("FOOTER\n")) << text;

  const std::string appended = dir.file("appended.bam");
  std::ofstream(appended) << "kept";
  const auto append = run_command(bin() + " sort -I " + input() + " -O - --verbosity ERROR >> " +
                                  shell_quote(appended) + "; echo done");
  ASSERT_EQ(append.exit_code, 0) << append.err;
  const std::string bytes = test::read_file(appended);
  EXPECT_EQ(bytes.rfind("kept", 0), 0u);
  std::ofstream(dir.file("alone.bam"), std::ios::binary) << bytes.substr(4);
  EXPECT_TRUE(records_of_file(dir.file("alone.bam")) == expected_records());

  // The metrics file named as the file standard output goes to: refused, the BAM not lost.
  const std::string metrics = dir.file("mm.txt");
  const auto clash = run_command(
      "sh -c " + shell_quote(bin() + " markdup -I " + input() + " -O - -M " + shell_quote(metrics) +
                             " > " + shell_quote(metrics) + "; echo exit $? >&2"));
  EXPECT_NE(clash.err.find(metrics + ": standard output, where - writes, is this file"),
            std::string::npos)
      << clash.err;
  EXPECT_NE(clash.err.find("exit 1"), std::string::npos) << clash.err;
}

TEST(StreamOutputConformance, FifoIsWrittenIntoAndStaysAFifo) {
  test::TempDir dir;
  const std::string fifo = dir.file("out.bam");
  const std::string read_back = dir.file("read.bam");
  const auto r =
      run_command("mkfifo " + shell_quote(fifo) + " && (cat " + shell_quote(fifo) + " > " +
                  shell_quote(read_back) + " &) && " + bin() + " sort -I " + input() + " -O " +
                  shell_quote(fifo) + " --verbosity ERROR && sleep 0.2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_TRUE(records_of_file(read_back) == expected_records());
  EXPECT_FALSE(std::filesystem::exists(fifo + ".bai"));
}

TEST(StreamOutputConformance, SymbolicLinkIsWrittenThroughToItsTarget) {
  test::TempDir dir;
  std::filesystem::create_directory(dir.file("data"));
  const std::string target = dir.file("data/target.bam");
  std::ofstream(target) << "old contents";
  const std::string link = dir.file("link.bam");
  std::filesystem::create_symlink("data/target.bam", link);  // relative, as users make them
  const auto r = run_command(bin() + " sort -I " + input() + " -O " + shell_quote(link));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(std::filesystem::read_symlink(link), "data/target.bam");
  EXPECT_TRUE(records_of_file(target) == expected_records());
  // The index where HTSlib looks for it: beside the name given.
  EXPECT_TRUE(std::filesystem::exists(link + ".bai"));
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(link) + " chr22:2000-2100").out,
            run_command("samtools view -c " + input() + " chr22:2000-2100").out);
  // A link whose target does not exist yet: the target is created, the link kept.
  const std::string dangling = dir.file("dangling.bam");
  std::filesystem::create_symlink(dir.file("data/new.bam"), dangling);
  ASSERT_EQ(run_command(bin() + " sort -I " + input() + " -O " + shell_quote(dangling)).exit_code,
            0);
  EXPECT_TRUE(std::filesystem::is_symlink(dangling));
  EXPECT_TRUE(records_of_file(dir.file("data/new.bam")) == expected_records());
}

}  // namespace
}  // namespace gpp::pipeline
