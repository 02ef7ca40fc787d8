// --sample-name on an input of several samples, as GATK's HaplotypeCaller: every sample's reads
// count for the activity; before assembly each region keeps only the named sample's reads
// (removeReadsFromAllSamplesExcept). Real reads: NA12878 (HiSeq 2x101) and HG002 (2x148, contig
// "20" renamed chr20: hg19 chr20 and b37 20 share coordinates) over chr20:10.0-10.1 Mb, in one
// BAM with one read group per sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/pipeline/na12878_truth.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;
namespace na12878 = test::na12878;

std::string hg002_bam() {
  return test::data_path(na12878::kDir + "HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam");
}

std::string bin() { return shell_quote(test::binary_path()); }

/// gpu-pipeline call on `input` over the set's reference, to `output`, with `args`.
test::CommandResult call(const std::string& input, const std::string& output,
                         const std::string& args = "", const std::string& verbosity = "WARNING") {
  return run_command(bin() + " call -I " + shell_quote(input) + " -R " +
                     shell_quote(na12878::reference()) + " -O " + shell_quote(output) +
                     " --device cpu --verbosity " + verbosity + args);
}

/// The active regions a call's INFO summary counts ("... from N active regions").
int active_regions(const std::string& log) {
  const std::size_t end = log.find(" active regions");
  if (end == std::string::npos) return -1;
  const std::size_t start = log.rfind(' ', end - 1) + 1;
  return std::stoi(log.substr(start, end - start));
}

/// The VCF's lines without the command-line header line (it names the input and output).
std::string records_of(const std::string& vcf) {
  const std::string reader = vcf.ends_with(".gz") ? "bgzip -dc " : "cat ";
  return run_command(reader + shell_quote(vcf) + " | grep -v '^##gpu-pipelineCommand'").out;
}

/// Runs a shell pipeline that must succeed.
void shell(const std::string& command) {
  const auto r = run_command("bash -o pipefail -c " + shell_quote(command));
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.err;
}

/// HG002's reads as SAM lines on chr20 (no header).
std::string hg002_reads_on_chr20() {
  return "samtools view " + shell_quote(hg002_bam()) +
         " | awk 'BEGIN{OFS=\"\\t\"} {if ($3 == \"20\") $3 = \"chr20\"; "
         "if ($7 == \"20\") $7 = \"chr20\"; print}'";
}

/// NA12878's and HG002's reads over the same loci, coordinate-sorted, at `path`.
void write_two_sample_bam(const std::string& path) {
  shell("(samtools view -H " + shell_quote(na12878::bam()) +
        "; printf '@RG\\tID:NIST_150bp\\tPL:ILLUMINA\\tSM:HG002\\n'; samtools view " +
        shell_quote(na12878::bam()) + "; " + hg002_reads_on_chr20() + ") | samtools sort -o " +
        shell_quote(path) + " -");
}

// The HG002 reads carry variants NA12878 lacks: called from the two-sample BAM, NA12878 still
// has every GIAB truth variant and nothing else inside the confident regions (its reads alone
// give 45/45 SNPs and 4/4 indels, Call conformance), while HG002's calls there are not
// NA12878's — the other sample's reads reached no NA12878 genotype.
TEST(SampleSelection, SampleOfTwoAtTheSameLociMatchesItsTruth) {
  test::TempDir dir;
  const std::string mixed = dir.file("two.bam");
  write_two_sample_bam(mixed);
  const std::string vcf = dir.file("na12878.vcf.gz");
  auto r = call(mixed, vcf, " --sample-name NA12878");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(records_of(vcf).find("\tFORMAT\tNA12878\n"), std::string::npos);
  const na12878::Counts snps = na12878::evaluate(dir, vcf, na12878::confident_bed(), "snps");
  EXPECT_EQ(snps.tp, 45);
  EXPECT_EQ(snps.fp, 0);
  EXPECT_EQ(snps.fn, 0);
  const na12878::Counts indels = na12878::evaluate(dir, vcf, na12878::confident_bed(), "indels");
  EXPECT_EQ(indels.tp, 4);
  EXPECT_EQ(indels.fp, 0);
  EXPECT_EQ(indels.fn, 0);

  const std::string other = dir.file("hg002.vcf.gz");
  r = call(mixed, other, " -ALIAS HG002");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(records_of(other).find("\tFORMAT\tHG002\n"), std::string::npos);
  const na12878::Counts hg002 = na12878::evaluate(dir, other, na12878::confident_bed(), "snps");
  EXPECT_GT(hg002.fp, 5) << "HG002's own variants are not NA12878's";
  EXPECT_GT(hg002.fn, 5);

  // Without a name the input's two samples are an error.
  r = call(mixed, dir.file("none.vcf"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("two.bam: 2 samples in the read groups ('HG002', 'NA12878'); the caller "
                       "calls one: choose it with --sample-name"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.vcf")));
}

// Two samples 20 kb apart on the contig: the other sample's reads make regions active that hold
// none of the named sample's reads (the activity counts every sample's reads, as GATK's: more
// active regions than from the sample's reads alone), so each sample's VCF and gVCF equal those
// of its reads alone, record for record.
TEST(SampleSelection, SamplesApartCallAsTheirReadsAlone) {
  test::TempDir dir;
  const std::string first = dir.file("first.bam");
  const std::string second = dir.file("second.bam");
  const std::string mixed = dir.file("mixed.bam");
  shell("samtools view -b -o " + shell_quote(first) + " " + shell_quote(na12878::bam()) +
        " chr20:10000000-10040000");
  // The second sample: NA12878's reads of chr20:10.06-10.10 Mb under read group B of sample B.
  shell("samtools view -h " + shell_quote(na12878::bam()) +
        " chr20:10060000-10100000 | sed -e 's/^@RG\\tID:NA12878\\tSM:NA12878/@RG\\tID:B\\tSM:B/' "
        "-e 's/\\tRG:Z:NA12878/\\tRG:Z:B/' | samtools view -b -o " +
        shell_quote(second) + " -");
  shell("samtools merge -f -o " + shell_quote(mixed) + " " + shell_quote(first) + " " +
        shell_quote(second));
  ASSERT_EQ(run_command("samtools view -H " + shell_quote(mixed) + " | grep -c '^@RG'").out, "2\n");
  const std::string interval = " -L chr20:10000000-10100000";
  struct Case {
    std::string sample, alone, mode;
  };
  for (const Case& c : {Case{"NA12878", first, ""}, Case{"B", second, ""},
                        Case{"NA12878", first, " -ERC GVCF"}, Case{"B", second, " -ERC GVCF"}}) {
    const std::string suffix = c.sample + (c.mode.empty() ? ".vcf" : ".g.vcf");
    const std::string from_mixed = dir.file("mixed." + suffix);
    const std::string from_alone = dir.file("alone." + suffix);
    const auto mixed_run =
        call(mixed, from_mixed, interval + c.mode + " --sample-name " + c.sample, "INFO");
    ASSERT_EQ(mixed_run.exit_code, 0) << mixed_run.err;
    const auto alone_run = call(c.alone, from_alone, interval + c.mode, "INFO");
    ASSERT_EQ(alone_run.exit_code, 0) << alone_run.err;
    EXPECT_GT(active_regions(alone_run.err), 10) << alone_run.err;
    EXPECT_GT(active_regions(mixed_run.err), active_regions(alone_run.err) + 10) << suffix;
    const std::string alone = records_of(from_alone);
    EXPECT_GT(std::count(alone.begin(), alone.end(), '\n'), c.mode.empty() ? 40 : 400) << suffix;
    EXPECT_TRUE(records_of(from_mixed) == alone) << suffix;
  }
}

// `run` calls the named sample too: its VCF equals `call --sample-name` on run's own BAM, which
// keeps both samples' reads (marked and recalibrated per read group).
TEST(SampleSelection, RunCallsTheNamedSample) {
  test::TempDir dir;
  const std::string mixed = dir.file("two.bam");
  write_two_sample_bam(mixed);
  const std::string known =
      test::data_path(na12878::kDir + "test_nist.b37_chr20_100kbp_at_10mb.vcf.gz");
  const auto r = run_command(
      bin() + " run " + shell_quote(mixed) + " -R " + shell_quote(na12878::reference()) +
      " --known-sites " + shell_quote(known) + " -o " + shell_quote(dir.path().string()) +
      " --prefix s --vcf --device cpu --sample-name HG002 --verbosity WARNING");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(dir.file("s.md.bqsr.bam"))).out,
            run_command("samtools view -c " + shell_quote(mixed)).out);
  const auto called =
      call(dir.file("s.md.bqsr.bam"), dir.file("called.vcf.gz"), " --sample-name HG002");
  ASSERT_EQ(called.exit_code, 0) << called.err;
  const std::string run_vcf = records_of(dir.file("s.vcf.gz"));
  EXPECT_NE(run_vcf.find("\tFORMAT\tHG002\n"), std::string::npos);
  EXPECT_TRUE(run_vcf == records_of(dir.file("called.vcf.gz")));
}

}  // namespace
}  // namespace gpp::pipeline
