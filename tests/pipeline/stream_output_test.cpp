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
