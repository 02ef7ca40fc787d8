// Parabricks' command lines (pbrun haplotypecaller, markdup, bqsr, applybqsr, as nf-core's modules
// write them): its option names give the outputs of ours, and its run options (--num-gpus,
// --logfile, --verbose, the thread counts, --mem-limit, --gpusort, the low-memory flags) are
// taken.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

const std::string kDir = "nfcore_chr22_40kb/";

std::string bin() { return shell_quote(test::binary_path()); }
std::string data(const std::string& name) { return shell_quote(test::data_path(kDir + name)); }

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A BAM's records (its @PG line names the options).
std::string bam_records(const std::string& bam) {
  return run_command("samtools view " + shell_quote(bam)).out;
}

/// A metrics file's table and histogram (its '#' lines name the options and the time).
std::string metrics_table(const std::string& metrics) {
  return run_command("grep -v '^#' " + shell_quote(metrics)).out;
}

/// The VCF's records and header lines but the command line (it names the options).
std::string records_of(const std::string& vcf) {
  return run_command("grep -v '^##gpu-pipelineCommand' " + shell_quote(vcf)).out;
}

TEST(ParabricksOptions, HaplotypecallerCommandLine) {
  test::TempDir dir;
  const std::string common = " --ref " + data("genome.fasta") + " --in-bam " +
                             data("test.paired_end.sorted.bam") + " --device cpu";
  auto r = run_command(bin() + " call" + common + " --out-variants " +
                       shell_quote(dir.file("ours.vcf")) + " --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // nf-core's module: --num-gpus ${task.accelerator.request}; Parabricks' thread, memory and
  // log options.
  const std::string log = dir.file("pb.log");
  r = run_command(bin() + " call" + common + " --out-variants " + shell_quote(dir.file("pb.vcf")) +
                  " --num-gpus 1 --num-htvc-threads 2 --htvc-low-memory --verbose --logfile " +
                  shell_quote(log));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(records_of(dir.file("pb.vcf")), records_of(dir.file("ours.vcf")));
  EXPECT_GT(records_of(dir.file("ours.vcf")).find("\nchr22\t"), 0u);
  // --verbose is DEBUG; the log file has the lines stderr has.
  EXPECT_NE(r.err.find("gpu-pipeline: debug: "), std::string::npos) << r.err;
  const std::string logged = file_text(log);
  EXPECT_NE(logged.find("gpu-pipeline: debug: "), std::string::npos) << logged;
  EXPECT_NE(logged.find("gpu-pipeline: peak memory "), std::string::npos) << logged;
  // More GPUs than one process uses: said, and the calls are the same.
  r = run_command(bin() + " call" + common + " --out-variants " + shell_quote(dir.file("two.vcf")) +
                  " --num-gpus 2 --verbosity WARNING");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --num-gpus 2: one process uses one GPU"), std::string::npos)
      << r.err;
  EXPECT_EQ(records_of(dir.file("two.vcf")), records_of(dir.file("ours.vcf")));
}

TEST(ParabricksOptions, ErrorsReachTheLogFile) {
  test::TempDir dir;
  const std::string log = dir.file("pb.log");
  auto r =
      run_command(bin() + " call --ref " + data("genome.fasta") + " --in-bam " +
                  shell_quote(dir.file("missing.bam")) + " --out-variants " +
                  shell_quote(dir.file("o.vcf")) + " --device cpu --logfile " + shell_quote(log));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(
      file_text(log).find("gpu-pipeline: error: " + dir.file("missing.bam") + ": no such file"),
      std::string::npos)
      << file_text(log);
  r = run_command(bin() + " call --ref " + data("genome.fasta") + " --in-bam " +
                  data("test.paired_end.sorted.bam") + " --out-variants " +
                  shell_quote(dir.file("o.vcf")) + " --device cpu --logfile " +
                  shell_quote(dir.file("no/such/dir/pb.log")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no/such/dir/pb.log: cannot create the log file"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o.vcf")));
  EXPECT_EQ(
      run_command(bin() + " call --in-bam x --ref y --out-variants z.vcf --num-gpus 0").exit_code,
      2);
  // The haplotype BAM in Parabricks' spelling (haplotype_bam_test.cpp checks its records); a
  // writer type GATK does not have is refused.
  r = run_command(bin() + " call --ref " + data("genome.fasta") + " --in-bam " +
                  data("test.paired_end.sorted.bam") + " --out-variants " +
                  shell_quote(dir.file("h.vcf")) + " --device cpu --htvc-bam-output " +
                  shell_quote(dir.file("h.bam")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("h.bam")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("h.bam.bai")));
  EXPECT_EQ(run_command(bin() + " call --in-bam x --ref y --out-variants z.vcf -bamout h.bam "
                                "--bam-writer-type EVERYTHING")
                .exit_code,
            2);
  // The log file never overwrites an input.
  const std::string copy = dir.file("copy.bam");
  std::filesystem::copy_file(test::data_path(kDir + "test.paired_end.sorted.bam"), copy);
  const std::string before = file_text(copy);
  r = run_command(bin() + " call --ref " + data("genome.fasta") + " --in-bam " + shell_quote(copy) +
                  " --out-variants " + shell_quote(dir.file("o.vcf")) + " --device cpu --logfile " +
                  shell_quote(copy));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--logfile " + copy + ": also given as another argument"), std::string::npos)
      << r.err;
  EXPECT_TRUE(file_text(copy) == before);
}

TEST(ParabricksOptions, MarkdupBqsrAndApplybqsrCommandLines) {
  test::TempDir dir;
  const std::string in = data("test.paired_end.sorted.bam");
  // pbrun markdup's options against ours: queryname semantics, threads, memory in GB, on the
  // reads grouped by name (samtools collate: SO:unsorted GO:query).
  const std::string grouped = shell_quote(dir.file("grouped.bam"));
  auto r = run_command("samtools collate -o " + grouped + " " + in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command(bin() + " markdup -I " + grouped + " -O " + shell_quote(dir.file("ours.bam")) +
                  " -M " + shell_quote(dir.file("ours.metrics")) +
                  " --assume-sort-order queryname --threads 3 --max-memory 1G --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command(bin() + " markdup --in-bam " + grouped + " --out-bam " +
                  shell_quote(dir.file("pb.bam")) + " --out-duplicate-metrics " +
                  shell_quote(dir.file("pb.metrics")) + " --ref " + data("genome.fasta") +
                  " --markdups-assume-sortorder-queryname --num-worker-threads 2 "
                  "--num-zip-threads 3 --mem-limit 1 --gpusort --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string marked = bam_records(dir.file("ours.bam"));
  EXPECT_GT(marked.size(), 1000u);
  EXPECT_TRUE(bam_records(dir.file("pb.bam")) == marked);
  EXPECT_EQ(metrics_table(dir.file("pb.metrics")), metrics_table(dir.file("ours.metrics")));
  // The queryname semantics were taken: a coordinate-sorted input is not grouped by name.
  r = run_command(bin() + " markdup -I " + in + " -O " + shell_quote(dir.file("sorted.bam")) +
                  " --markdups-assume-sortorder-queryname --device cpu");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not grouped by read name as its sort order says (queryname)"),
            std::string::npos)
      << r.err;

  // pbrun bqsr --out-recal-file, pbrun applybqsr --num-threads.
  const std::string known = " --knownSites " + data("dbsnp_146.hg38.vcf.gz");
  r = run_command(bin() + " bqsr --ref " + data("genome.fasta") + " --in-bam " + in + known +
                  " --out-recal-file " + shell_quote(dir.file("pb.table")) + " --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_command(bin() + " bqsr -R " + data("genome.fasta") + " -I " + in + known + " -O " +
                  shell_quote(dir.file("ours.table")) + " --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_text(dir.file("pb.table")), file_text(dir.file("ours.table")));
  EXPECT_NE(file_text(dir.file("pb.table")).find("#:GATKReport.v1.1:5"), std::string::npos);
  r = run_command(bin() + " applybqsr --ref " + data("genome.fasta") + " --in-bam " + in +
                  " --in-recal-file " + shell_quote(dir.file("pb.table")) + " --out-bam " +
                  shell_quote(dir.file("recal.bam")) + " --num-threads 2 --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("recal.bam")));
}

}  // namespace
}  // namespace gpp::pipeline
