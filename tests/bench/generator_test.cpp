// bench_generate: valid BAMs (HTSlib and samtools accept them, samtools view round-trips them),
// sorted output really sorted and indexed, duplicates at the requested rate, and reported
// qualities above the empirical ones (so BQSR has work).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/test_support.hpp"

namespace gpp::test {
namespace {

std::string reference() { return data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz"); }

CommandResult generate(const std::string& out, const std::string& extra) {
  return run_command(shell_quote(bench_generate_path()) + " " + shell_quote(reference()) + " " + shell_quote(out) +
                     " 20000 --seed 3" + extra);
}

TEST(Generator, WritesValidUnsortedAndSortedBams) {
  TempDir dir;
  ASSERT_EQ(generate(dir.file("u.bam"), "").exit_code, 0);
  ASSERT_EQ(generate(dir.file("s.bam"), " --sorted").exit_code, 0);
  for (const char* name : {"u.bam", "s.bam"}) {
    EXPECT_EQ(run_command("samtools quickcheck " + shell_quote(dir.file(name))).exit_code, 0) << name;
    EXPECT_EQ(run_command("samtools view -c " + shell_quote(dir.file(name))).out, "40000\n") << name;
  }
  // Sorted output: samtools sort leaves it unchanged, and the index answers region queries.
  ASSERT_EQ(run_command("samtools sort -o " + shell_quote(dir.file("resorted.bam")) + " " + shell_quote(dir.file("s.bam"))).exit_code, 0);
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("s.bam"))).out ==
              run_command("samtools view " + shell_quote(dir.file("resorted.bam"))).out);
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(dir.file("s.bam")) + " chr20:1-10000000").exit_code, 0);
  // samtools view round-trips the records.
  ASSERT_EQ(run_command("samtools view -b -o " + shell_quote(dir.file("copy.bam")) + " " + shell_quote(dir.file("u.bam"))).exit_code, 0);
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("copy.bam"))).out ==
              run_command("samtools view " + shell_quote(dir.file("u.bam"))).out);
}

TEST(Generator, DuplicateRateAndMiscalibratedQualities) {
  TempDir dir;
  ASSERT_EQ(generate(dir.file("u.bam"), " --duplicates 0.08").exit_code, 0);
  const std::string bin = shell_quote(binary_path());
  ASSERT_EQ(run_command(bin + " markdup -I " + shell_quote(dir.file("u.bam")) + " -O " + shell_quote(dir.file("md.bam"))).exit_code, 0);
  const double duplicates = std::stod(run_command("samtools view -c -f 1024 " + shell_quote(dir.file("md.bam"))).out);
  EXPECT_GT(duplicates / 40000, 0.05);
  EXPECT_LT(duplicates / 40000, 0.11);
  // The reads carry no variants, so an empty known-sites file suffices for BQSR: the empirical
  // quality of the read group must fall below the reported one.
  std::ofstream(dir.file("empty.vcf")) << "##fileformat=VCFv4.2\n##contig=<ID=chr20,length=10000000>\n"
                                          "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
  ASSERT_EQ(run_command(bin + " bqsr -I " + shell_quote(dir.file("md.bam")) + " -R " + shell_quote(reference()) +
                        " --known-sites " + shell_quote(dir.file("empty.vcf")) + " -O " + shell_quote(dir.file("t.table"))).exit_code, 0);
  std::ifstream table(dir.file("t.table"));
  std::string line;
  bool in_rg_table = false;
  int rows = 0;
  while (std::getline(table, line)) {
    if (line.rfind("#:GATKTable:RecalTable0", 0) == 0) in_rg_table = true;
    if (in_rg_table && line.empty()) break;  // the read-group table ends at its blank line
    if (!in_rg_table || line.rfind("FC0", 0) != 0) continue;
    std::istringstream fields(line);
    std::string group, event;
    double empirical = 0;
    double reported = 0;
    fields >> group >> event >> empirical >> reported;
    EXPECT_LT(empirical, reported - 2) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 2);  // two read groups (PU FC0.1 and FC0.2)
}

}  // namespace
}  // namespace gpp::test
