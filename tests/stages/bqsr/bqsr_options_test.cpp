// bqsr and applybqsr options whose expected outputs follow from GATK goldens or from the input
// itself: --emit-original-quals, --use-original-qualities, --round-down-quantized, -L, and reads
// without qualities. Each expectation is computed independently of our code (samtools, the GATK
// ApplyBQSR golden, or the documented mapping rule).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::test {
namespace {

const std::string kApply = "gatk_golden/applybqsr/";
const std::string kNfcore = "nfcore_chr22_40kb/";

std::string gpp() { return shell_quote(binary_path()) + " "; }

// Column `column` (1-based) of every record, or the value of tag `tag` ("" when absent).
std::vector<std::string> sam_column(const std::string& bam, int column) {
  const auto r =
      run_command("samtools view " + shell_quote(bam) + " | cut -f " + std::to_string(column));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> values;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) values.push_back(line);
  return values;
}
std::vector<std::string> sam_tag(const std::string& bam, const std::string& tag) {
  const auto r =
      run_command("samtools view " + shell_quote(bam) +
                  " | awk '{v=\"\"; for (i = 12; i <= NF; i++) if (substr($i, 1, 5) == \"" + tag +
                  ":Z:\") v = substr($i, 6); print v}'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> values;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) values.push_back(line);
  return values;
}

void apply(const std::string& input, const std::string& output, const std::string& extra) {
  const auto r = run_command(gpp() + "applybqsr --device cpu --verbosity ERROR -I " +
                             shell_quote(input) + " --bqsr-recal-file " +
                             shell_quote(data_path(kApply + "HiSeq.20mb.1RG.table.gz")) + " -O " +
                             shell_quote(output) + extra);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

const std::string& golden_default() {
  static const std::string path =
      data_path(kApply + "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.bam");
  return path;
}

TEST(ApplyBqsrOptions, EmitOriginalQualsKeepsTheInputQualitiesInOq) {
  TempDir dir;
  // GATK's test BAM already carries OQ (never replaced); strip it so OQ must be written.
  ASSERT_EQ(run_command("samtools view -b -x OQ -o " + shell_quote(dir.file("no_oq.bam")) + " " +
                        shell_quote(data_path(kApply + "HiSeq.1mb.1RG.2k_lines.alternate.bam")))
                .exit_code,
            0);
  apply(dir.file("no_oq.bam"), dir.file("out.bam"), " --emit-original-quals");
  const std::vector<std::string> input_quals = sam_column(dir.file("no_oq.bam"), 11);
  ASSERT_EQ(input_quals.size(), 1674u);
  EXPECT_EQ(sam_tag(dir.file("no_oq.bam"), "OQ"), std::vector<std::string>(1674, ""));
  EXPECT_EQ(sam_tag(dir.file("out.bam"), "OQ"), input_quals);
  EXPECT_EQ(sam_column(dir.file("out.bam"), 11), sam_column(golden_default(), 11));
}

TEST(ApplyBqsrOptions, UseOriginalQualitiesRecalibratesOqNotQual) {
  TempDir dir;
  ASSERT_EQ(run_command("samtools view -b -x OQ -o " + shell_quote(dir.file("no_oq.bam")) + " " +
                        shell_quote(data_path(kApply + "HiSeq.1mb.1RG.2k_lines.alternate.bam")))
                .exit_code,
            0);
  // First pass: QUAL recalibrated, OQ = the original qualities. Recalibrating that file from its
  // OQ must give GATK's default output again; from its QUAL it would not.
  apply(dir.file("no_oq.bam"), dir.file("pass1.bam"), " --emit-original-quals");
  apply(dir.file("pass1.bam"), dir.file("pass2.bam"), " --use-original-qualities");
  EXPECT_EQ(sam_column(dir.file("pass2.bam"), 11), sam_column(golden_default(), 11));
  apply(dir.file("pass1.bam"), dir.file("pass2_qual.bam"), "");
  EXPECT_NE(sam_column(dir.file("pass2_qual.bam"), 11), sam_column(golden_default(), 11));
}

TEST(ApplyBqsrOptions, RoundDownQuantizedMapsToTheStaticQualityBelow) {
  TempDir dir;
  const std::string input = data_path(kApply + "HiSeq.1mb.1RG.2k_lines.alternate.bam");
  apply(input, dir.file("down.bam"),
        " --static-quantized-quals 10 --static-quantized-quals 20 --static-quantized-quals 30 "
        "--round-down-quantized");
  // GATK's rule (ApplyBQSR --round-down-quantized): qualities below 6 stay, 6..9 -> 6 (the lowest
  // usable quality), then down to the nearest listed quality: 10..19 -> 10, 20..29 -> 20, >= 30
  // -> 30.
  auto round_down = [](int q) { return q < 6 ? q : q < 10 ? 6 : q < 20 ? 10 : q < 30 ? 20 : 30; };
  const std::vector<std::string> full = sam_column(golden_default(), 11);
  const std::vector<std::string> down = sam_column(dir.file("down.bam"), 11);
  ASSERT_EQ(full.size(), down.size());
  std::size_t changed = 0;
  for (std::size_t r = 0; r < full.size(); ++r) {
    ASSERT_EQ(full[r].size(), down[r].size());
    for (std::size_t k = 0; k < full[r].size(); ++k) {
      const int q = full[r][k] - 33;
      ASSERT_EQ(down[r][k] - 33, round_down(q)) << "record " << r << " base " << k;
      changed += round_down(q) != q;
    }
  }
  EXPECT_GT(changed, 1000u);
}

std::string bqsr_table(const std::string& bam, const std::string& table, const std::string& extra) {
  const auto r =
      run_command(gpp() + "bqsr --device cpu --verbosity ERROR -I " + shell_quote(bam) + " -R " +
                  shell_quote(data_path(kNfcore + "genome.fasta")) + " --known-sites " +
                  shell_quote(data_path(kNfcore + "dbsnp_146.hg38.vcf.gz")) + " -O " +
                  shell_quote(table) + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return test::read_file(table);
}

TEST(BqsrOptions, IntervalsCountOnlyReadsOverlappingThem) {
  // GATK's -L traversal visits the reads whose alignment overlaps an interval: the same reads
  // samtools selects for a region query.
  TempDir dir;
  const std::string input = data_path(kNfcore + "test.paired_end.sorted.bam");
  const std::string region = "chr22:12001-24000";
  ASSERT_EQ(run_command("samtools view -b -o " + shell_quote(dir.file("region.bam")) + " " +
                        shell_quote(input) + " " + region)
                .exit_code,
            0);
  const std::string with_l = bqsr_table(input, dir.file("l.table"), " -L " + region);
  const std::string extracted = bqsr_table(dir.file("region.bam"), dir.file("extracted.table"), "");
  const std::string whole = bqsr_table(input, dir.file("whole.table"), "");
  EXPECT_GT(with_l.size(), 3000u);
  EXPECT_TRUE(with_l == extracted) << "-L table differs from the table of the region's reads";
  EXPECT_FALSE(with_l == whole);
  // The input's index gives those reads (the log says so); a copy without an index, read whole
  // and filtered, gives the same table.
  const auto indexed =
      run_command(gpp() + "bqsr --device cpu --verbosity INFO -I " + shell_quote(input) + " -R " +
                  shell_quote(data_path(kNfcore + "genome.fasta")) + " --known-sites " +
                  shell_quote(data_path(kNfcore + "dbsnp_146.hg38.vcf.gz")) + " -O " +
                  shell_quote(dir.file("indexed.table")) + " -L " + region);
  EXPECT_NE(indexed.err.find(input + ": reading the records near the intervals through its index"),
            std::string::npos)
      << indexed.err;
  ASSERT_EQ(
      run_command("cp " + shell_quote(input) + " " + shell_quote(dir.file("copy.bam"))).exit_code,
      0);
  EXPECT_TRUE(bqsr_table(dir.file("copy.bam"), dir.file("copy.table"), " -L " + region) == with_l);
}

// applybqsr -L writes the reads GATK's traversal visits, those overlapping an interval: what
// `samtools view -L` selects of the whole output, each once where two intervals share a read;
// -ip widens the intervals and -XL cuts intervals out as GATK does; read through the index or
// whole (a copy without one), the same records.
TEST(BqsrOptions, ApplyWithIntervalsWritesOnlyTheReadsOverlappingThem) {
  TempDir dir;
  const std::string input = data_path(kNfcore + "test.paired_end.sorted.bam");
  const auto applied = [&](const std::string& bam, const std::string& name,
                           const std::string& extra) {
    const auto r = run_command(gpp() + "applybqsr --device cpu --verbosity INFO -I " +
                               shell_quote(bam) + " --bqsr-recal-file " +
                               shell_quote(data_path(kNfcore + "test.baserecalibrator.table")) +
                               " -O " + shell_quote(dir.file(name)) + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  const auto records = [&](const std::string& name, const std::string& selection = "") {
    return run_command("samtools view " + selection + shell_quote(dir.file(name))).out;
  };
  applied(input, "whole.bam", "");
  {
    std::ofstream bed(dir.file("two.bed"));
    bed << "chr22\t2000\t2500\nchr22\t2600\t3500\n";
  }
  const std::string expected = records("whole.bam", "-L " + shell_quote(dir.file("two.bed")) + " ");
  EXPECT_GT(std::count(expected.begin(), expected.end(), '\n'), 500);
  EXPECT_LT(expected.size(), records("whole.bam").size());
  const std::string intervals = " -L chr22:2001-2500 -L chr22:2601-3500";
  const auto indexed = applied(input, "l.bam", intervals);
  EXPECT_NE(indexed.err.find(input + ": reading the records near the intervals through its index"),
            std::string::npos)
      << indexed.err;
  EXPECT_EQ(records("l.bam"), expected);
  EXPECT_TRUE(std::filesystem::exists(dir.file("l.bam.bai")));
  applied(input, "padded.bam", " -L chr22:2101-2400 -ip 100 -L chr22:2701-3400");
  EXPECT_EQ(records("padded.bam"), expected);
  applied(input, "bed.bam", " --interval-file " + shell_quote(dir.file("two.bed")));
  EXPECT_EQ(records("bed.bam"), expected);
  ASSERT_EQ(
      run_command("cp " + shell_quote(input) + " " + shell_quote(dir.file("copy.bam"))).exit_code,
      0);
  applied(dir.file("copy.bam"), "copy.out.bam", intervals);
  EXPECT_EQ(records("copy.out.bam"), expected);
  // -XL cuts the gap out of one interval (-ixp widens the cut), or out of the whole contig when
  // given alone; an exclusion of everything is an error.
  applied(input, "cut.bam", " -L chr22:2001-3500 -XL chr22:2521-2580 -ixp 20");
  EXPECT_EQ(records("cut.bam"), expected);
  {
    std::ofstream bed(dir.file("outside.bed"));
    bed << "chr22\t0\t2000\nchr22\t2500\t2600\nchr22\t3500\t40001\n";
  }
  applied(input, "xl.bam", " -XL " + shell_quote(dir.file("outside.bed")));
  EXPECT_EQ(records("xl.bam"), expected);
  const auto nothing = run_command(
      gpp() + "applybqsr --device cpu -I " + shell_quote(input) + " --bqsr-recal-file " +
      shell_quote(data_path(kNfcore + "test.baserecalibrator.table")) + " -O " +
      shell_quote(dir.file("none.bam")) + " -L chr22:2001-2500 -XL chr22:1-3000");
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_NE(nothing.err.find("leave nothing to work on"), std::string::npos) << nothing.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.bam")));
}

TEST(BqsrOptions, ReadsWithoutQualitiesAreFilteredAndPassThroughApply) {
  // GATK's well-formed read filter drops reads whose QUAL is '*'; ApplyBQSR leaves them as they
  // are.
  TempDir dir;
  const std::string input = data_path(kNfcore + "test.paired_end.sorted.bam");
  ASSERT_EQ(
      run_command(
          "samtools view -h " + shell_quote(input) +
          " | awk 'BEGIN {OFS = \"\\t\"} /^@/ {print; next} NR % 50 == 0 {$11 = \"*\"} {print}'"
          " | samtools view -b -o " +
          shell_quote(dir.file("some_star.bam")) + " -")
          .exit_code,
      0);
  ASSERT_EQ(run_command("samtools view -h " + shell_quote(dir.file("some_star.bam")) +
                        " | awk '/^@/ || $11 != \"*\"' | samtools view -b -o " +
                        shell_quote(dir.file("filtered.bam")) + " -")
                .exit_code,
            0);
  const std::string with_star = bqsr_table(dir.file("some_star.bam"), dir.file("star.table"), "");
  EXPECT_GT(with_star.size(), 10000u);
  EXPECT_TRUE(with_star == bqsr_table(dir.file("filtered.bam"), dir.file("filtered.table"), ""));
  const auto r =
      run_command(gpp() + "applybqsr --device cpu --verbosity ERROR -I " +
                  shell_quote(dir.file("some_star.bam")) + " --bqsr-recal-file " +
                  shell_quote(dir.file("star.table")) + " -O " + shell_quote(dir.file("out.bam")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> in_quals = sam_column(dir.file("some_star.bam"), 11);
  const std::vector<std::string> out_quals = sam_column(dir.file("out.bam"), 11);
  ASSERT_EQ(in_quals.size(), out_quals.size());
  std::size_t stars = 0;
  for (std::size_t k = 0; k < in_quals.size(); ++k) {
    if (in_quals[k] == "*") {
      EXPECT_EQ(out_quals[k], "*");
      ++stars;
    }
  }
  EXPECT_GT(stars, 100u);
}

// SAM input, plain and bgzipped, gives the table and records of the same reads as BAM (both
// commands used to wait for ever at the end of a SAM file: HTSlib's threaded SAM parser blocks
// when read again after its end). `timeout` turns a hang into a failure.
TEST(BqsrOptions, SamInputGivesTheBamResults) {
  TempDir dir;
  const std::string bam = data_path(kNfcore + "test.paired_end.sorted.bam");
  const std::string sam = dir.file("in.sam");
  ASSERT_EQ(
      run_command("samtools view -h -o " + shell_quote(sam) + " " + shell_quote(bam)).exit_code, 0);
  ASSERT_EQ(run_command("bgzip -kf " + shell_quote(sam)).exit_code, 0);  // keeps in.sam
  const std::string sites = " -R " + shell_quote(data_path(kNfcore + "genome.fasta")) +
                            " --known-sites " +
                            shell_quote(data_path(kNfcore + "dbsnp_146.hg38.vcf.gz"));
  const std::string table = shell_quote(data_path(kNfcore + "test.baserecalibrator.table"));
  for (const std::string& input : {bam, sam, sam + ".gz"}) {
    const std::string name = std::filesystem::path(input).filename().string();
    const auto counted =
        run_command("timeout 120 " + gpp() + "bqsr --verbosity ERROR -I " + shell_quote(input) +
                    sites + " -O " + shell_quote(dir.file(name + ".table")));
    ASSERT_EQ(counted.exit_code, 0) << name << " " << counted.err;
    const auto applied = run_command("timeout 120 " + gpp() + "applybqsr --verbosity ERROR -I " +
                                     shell_quote(input) + " --bqsr-recal-file " + table + " -O " +
                                     shell_quote(dir.file(name + ".out.bam")));
    ASSERT_EQ(applied.exit_code, 0) << name << " " << applied.err;
  }
  EXPECT_EQ(read_file(dir.file("in.sam.table")),
            read_file(dir.file("test.paired_end.sorted.bam.table")));
  EXPECT_EQ(read_file(dir.file("in.sam.gz.table")),
            read_file(dir.file("test.paired_end.sorted.bam.table")));
  const auto records = [&](const std::string& name) {
    return run_command("samtools view " + shell_quote(dir.file(name + ".out.bam"))).out;
  };
  const std::string expected = records("test.paired_end.sorted.bam");
  EXPECT_GT(expected.size(), 100000u);
  EXPECT_EQ(records("in.sam"), expected);
  EXPECT_EQ(records("in.sam.gz"), expected);
}

}  // namespace
}  // namespace gpp::test
