// The Snakemake workflow runs gpu-pipeline on two samples; each recalibration table equals GATK's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tests/test_support.hpp"

namespace gpp::test {
namespace {

TEST(SnakemakeWorkflow, RunsEverySampleToGatkIdenticalTables) {
  if (run_command("command -v snakemake").exit_code != 0) {
    if (std::getenv("GPP_REQUIRE_PEERS") != nullptr) FAIL() << "snakemake missing";
    GTEST_SKIP() << "snakemake not installed";
  }
  TempDir dir;
  const std::string d = data_path("nfcore_chr22_40kb/");
  std::ofstream(dir.file("config.yaml"))
      << "reference: " << d << "genome.fasta\n"
      << "known_sites: [" << d << "dbsnp_146.hg38.vcf.gz, " << d
      << "mills_and_1000G.indels.vcf.gz]\n"
      << "out_dir: results\ndevice: cpu\ngpu_pipeline: " << binary_path() << "\n"
      << "samples:\n  one: " << d << "test.paired_end.sorted.bam\n"
      << "  two: " << d << "test2.paired_end.sorted.bam\n";
  const auto r = run_command("cd " + shell_quote(dir.path().string()) + " && snakemake -q -s " +
                             shell_quote(GPP_SOURCE_ROOT "/workflows/snakemake/Snakefile") +
                             " --configfile config.yaml --cores 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      run_command("cmp " + shell_quote(dir.file("results/one/test.paired_end.sorted.recal.table")) +
                  " " + shell_quote(d + "test.baserecalibrator.table"))
          .exit_code,
      0);
  EXPECT_EQ(run_command("cmp " +
                        shell_quote(dir.file("results/two/test2.paired_end.sorted.recal.table")) +
                        " " + shell_quote(d + "test2.baserecalibrator.table"))
                .exit_code,
            0);
  EXPECT_EQ(run_command("samtools quickcheck " +
                        shell_quote(dir.file("results/two/test2.paired_end.sorted.md.bqsr.bam")))
                .exit_code,
            0);
}

}  // namespace
}  // namespace gpp::test
