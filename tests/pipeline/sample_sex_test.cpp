// Parabricks' sex options end to end: a male sample is called haploid on X outside its
// pseudo-autosomal regions, diploid inside them; the sex comes from --sample-sex or from the X/Y
// mapped-read ratio (the BAM's index for `call`, the records for `run`). The genome: chrX is the
// nf-core chr22 piece (40,001 bases; GRCh38's PAR1 starts at 10,001, GRCh37's at 60,001) and chrY
// a reversed copy of its first 20 kb. Reads: 40 over chrX:5001 all with a SNP there (haploid in
// GRCh38's map), 40 over chrX:20101 every other one with a SNP (inside PAR1), 16 on chrY: an X/Y
// ratio of 5.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>

#include "tests/pipeline/synthetic_reads.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

constexpr std::int64_t kHaploidSnp = 5000;  // 0-based; chrX:5001
constexpr std::int64_t kParSnp = 20100;     // chrX:20101

struct SexGenome {
  std::string fasta, sam, bam;
};

SexGenome write_genome(const test::TempDir& dir) {
  using test::synthetic::read_line;
  using test::synthetic::reads_over;
  const std::string& x = test::synthetic::chr22_bases();
  std::string y = x.substr(0, 20000);
  std::reverse(y.begin(), y.end());
  SexGenome genome{dir.file("xy.fa"), dir.file("reads.sam"), dir.file("reads.bam")};
  std::ofstream(genome.fasta) << ">chrX\n" << x << "\n>chrY\n" << y << "\n";
  std::string sam = "@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:chrX\tLN:" + std::to_string(x.size()) +
                    "\n@SQ\tSN:chrY\tLN:" + std::to_string(y.size()) + "\n@RG\tID:rg\tSM:s\n";
  sam += reads_over("h", "chrX", x, kHaploidSnp, true);
  sam += reads_over("p", "chrX", x, kParSnp);
  for (int i = 0; i < 16; ++i) sam += read_line("y" + std::to_string(i), "chrY", y, 1000 + 50 * i);
  std::ofstream(genome.sam) << sam;
  const auto r =
      run_command("samtools faidx " + shell_quote(genome.fasta) + " && samtools view -b -o " +
                  shell_quote(genome.bam) + " " + shell_quote(genome.sam) + " && samtools index " +
                  shell_quote(genome.bam));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return genome;
}

/// POS and GT of each record.
std::string genotypes(const std::string& vcf) {
  const auto r = run_command("bcftools query -f '%POS[ %GT]\\n' " + shell_quote(vcf));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

std::string bin() { return shell_quote(test::binary_path()); }

test::CommandResult call(const SexGenome& genome, const std::string& input, const std::string& vcf,
                         const std::string& args) {
  return run_command(bin() + " call -I " + shell_quote(input) + " -R " + shell_quote(genome.fasta) +
                     " -O " + shell_quote(vcf) + " --device cpu --verbosity INFO" + args);
}

TEST(SampleSex, MaleIsHaploidOnXOutsideItsPars) {
  test::TempDir dir;
  const SexGenome genome = write_genome(dir);
  const std::string diploid = "5001 1/1\n20101 0/1\n";
  const auto genotypes_with = [&](const std::string& args) {
    const std::string vcf = dir.file("out.vcf");
    const auto r = call(genome, genome.bam, vcf, args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return std::make_pair(genotypes(vcf), r.err);
  };
  EXPECT_EQ(genotypes_with("").first, diploid);
  auto [male, log] = genotypes_with(" --sample-sex male");
  EXPECT_EQ(male, "5001 1\n20101 0/1\n");
  EXPECT_NE(log.find("sample sex: male, from --sample-sex: X and Y called haploid outside "
                     "their pseudo-autosomal regions (GRCh38)"),
            std::string::npos)
      << log;
  EXPECT_EQ(genotypes_with(" --sample-sex female").first, diploid);
  // GRCh37's PAR1 starts beyond this chrX: all of it is haploid.
  const std::string grch37 = genotypes_with(" --sample-sex MALE --use-GRCh37-regions").first;
  EXPECT_EQ(grch37.rfind("5001 1\n", 0), 0u) << grch37;
  EXPECT_EQ(grch37.find('/'), std::string::npos) << grch37;
  // From the index's counts: 80 reads on X, 16 on Y.
  std::tie(male, log) = genotypes_with(" --range-male 1-10");
  EXPECT_EQ(male, "5001 1\n20101 0/1\n");
  EXPECT_NE(log.find("sample sex: male, from X/Y mapped-read ratio 5.00 (80 / 16; male "
                     "1.00-10.00, female 150.00-250.00)"),
            std::string::npos)
      << log;
  std::tie(male, log) = genotypes_with(" --range-male 6-10 --range-female 2-5.5");
  EXPECT_EQ(male, diploid);
  EXPECT_NE(log.find("sample sex: female"), std::string::npos) << log;
  EXPECT_EQ(genotypes_with(" --range-male 6-10").first, diploid);  // undetermined
  // --sample-sex wins over the ratio.
  EXPECT_EQ(genotypes_with(" --range-male 6-10 --sample-sex male").first, "5001 1\n20101 0/1\n");
}

TEST(SampleSex, RatioNeedsCountsAndOptionsAreChecked) {
  test::TempDir dir;
  const SexGenome genome = write_genome(dir);
  auto r = call(genome, genome.sam, dir.file("out.vcf"), " --range-male 1-10");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gpu-pipeline: error: " + genome.sam +
                       ": reading the sample's sex from its X/Y read ratio needs the mapped reads "
                       "per contig, which a BAM's index (.bai or .csi) gives: index it, or give "
                       "--sample-sex"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.vcf")));
  // A SAM with --sample-sex needs no counts.
  r = call(genome, genome.sam, dir.file("given.vcf"), " --sample-sex male");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(genotypes(dir.file("given.vcf")), "5001 1\n20101 0/1\n");
  for (const std::string bad : {" --sample-sex m", " --range-male 10-1", " --range-female x"}) {
    r = call(genome, genome.bam, dir.file("bad.vcf"), bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("bad.vcf")));
  }
}

// `run` counts the reads itself (no index needed) and calls the male sample haploid, in memory and
// within a --max-memory that spills (its log says it merged spilled runs).
TEST(SampleSex, RunReadsTheSexFromItsReads) {
  test::TempDir dir;
  const SexGenome genome = write_genome(dir);
  const std::string spilled = " --max-memory 32K --tmp-dir " + shell_quote(dir.path().string());
  for (const std::string& memory : {std::string(), spilled}) {
    const std::string out = dir.file("run" + std::to_string(memory.size()));
    const auto r =
        run_command(bin() + " run " + shell_quote(genome.sam) + " -R " + shell_quote(genome.fasta) +
                    " -o " + shell_quote(out) +
                    " --prefix s --vcf --device cpu --range-male 1-10 --verbosity INFO" + memory);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("merging the spilled runs") != std::string::npos, !memory.empty())
        << r.err;
    EXPECT_NE(r.err.find("sample sex: male, from X/Y mapped-read ratio 5.00 (80 / 16"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(genotypes(out + "/s.vcf.gz"), "5001 1\n20101 0/1\n") << memory;
  }
}

}  // namespace
}  // namespace gpp::pipeline
