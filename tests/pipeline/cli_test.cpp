// The command line: subcommands, version, aliases, exit codes.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string bin() { return shell_quote(test::binary_path()); }

TEST(Cli, HelpListsEverySubcommand) {
  const auto r = run_command(bin() + " --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub : {"run", "sort", "markdup", "bqsr", "applybqsr", "call", "pairhmm", "sw"}) {
    EXPECT_NE(r.out.find(std::string("\n  ") + sub + " "), std::string::npos) << sub << "\n"
                                                                              << r.out;
  }
}

TEST(Cli, VersionNamesCudaAndHtslib) {
  const auto r = run_command(bin() + " --version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("gpu-pipeline 0.", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nCUDA: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nHTSlib: 1."), std::string::npos) << r.out;
}

// README "Exit codes": 2 for the command line, 1 for what the command then finds wrong.
TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_command(bin()).exit_code, 2);
  EXPECT_EQ(run_command(bin() + " sort -I x.bam").exit_code, 2);  // -O missing
  EXPECT_EQ(run_command(bin() + " sort -I a -O b --device tpu").exit_code, 2);
  EXPECT_EQ(run_command(bin() + " frobnicate").exit_code, 2);
  EXPECT_EQ(run_command(bin() + " call").exit_code, 2);  // -I missing
  // ApplyBQSR's qualities outside SAM's 0..93 (255 would read as no qualities at all), and a
  // prior that is not a quality: refused before reading anything.
  for (const std::string option :
       {"--static-quantized-quals 200", "--static-quantized-quals -5",
        "--static-quantized-quals 255", "--global-qscore-prior inf", "--global-qscore-prior nan",
        "--global-qscore-prior 1e10", "--preserve-qscores-less-than 300"}) {
    const auto r =
        run_command(bin() + " applybqsr -I a.bam --bqsr-recal-file t.table -O b.bam " + option);
    EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.err;
  }
  EXPECT_EQ(run_command(bin() + " applybqsr -I a.bam --bqsr-recal-file t.table -O b.bam "
                                "--static-quantized-quals 93 --global-qscore-prior -1")
                .exit_code,
            1);  // accepted; the files are missing
  const auto missing_input = run_command(bin() + " sort -I no_such.bam -O b.bam");
  EXPECT_EQ(missing_input.exit_code, 1);
  EXPECT_NE(missing_input.err.find("no_such.bam: no such file"), std::string::npos);
}

TEST(Cli, ParabricksAliasesAndCommonOptions) {
  test::TempDir dir;
  const std::string in = test::data_path("nfcore_chr22_40kb/test2.paired_end.sorted.bam");
  const auto r =
      run_command(bin() + " sort --in-bam " + shell_quote(in) + " --out-bam " +
                  shell_quote(dir.file("o.bam")) + " --threads 2 --device cpu --verbosity ERROR");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // ERROR verbosity: nothing to say
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"o.bam", "o.bam.bai"}));
}

TEST(Cli, CompressionLevelChangesSizeNotRecords) {
  test::TempDir dir;
  const std::string in =
      shell_quote(test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam"));
  ASSERT_EQ(run_command(bin() + " sort -I " + in + " -O " + shell_quote(dir.file("fast.bam")) +
                        " --compression-level 1")
                .exit_code,
            0);
  ASSERT_EQ(run_command(bin() + " sort -I " + in + " -O " + shell_quote(dir.file("default.bam")))
                .exit_code,
            0);
  EXPECT_GT(std::filesystem::file_size(dir.file("fast.bam")),
            std::filesystem::file_size(dir.file("default.bam")));
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("fast.bam"))).out ==
              run_command("samtools view " + shell_quote(dir.file("default.bam"))).out);
  EXPECT_EQ(run_command(bin() + " sort -I " + in + " -O " + shell_quote(dir.file("x.bam")) +
                        " --compression-level 12")
                .exit_code,
            2);
}

TEST(Cli, StaleIndexesOfAReplacedOutputAreRemoved) {
  test::TempDir dir;
  const std::string in = test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam");
  const std::string out = dir.file("out.bam");
  // An earlier coordinate-sorted out.bam with its index under both names HTSlib looks for.
  ASSERT_EQ(
      run_command(bin() + " sort -I " + shell_quote(in) + " -O " + shell_quote(out)).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(out + ".bai"));
  std::filesystem::copy_file(out + ".bai", dir.file("out.bai"));
  const std::string other_index = dir.file("other.bam.bai");  // not out.bam's: kept
  std::filesystem::copy_file(out + ".bai", other_index);
  // out.bam replaced by a queryname-sorted file, which gets no index: both old ones must go, or
  // `samtools view out.bam chr22:...` would answer from the old file's index.
  const auto r = run_command(bin() + " sort -I " + shell_quote(in) + " -O " + shell_quote(out) +
                             " --sort-order queryname");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out + ".bai"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.bai")));
  EXPECT_TRUE(std::filesystem::exists(other_index));
  EXPECT_NE(run_command("samtools view " + shell_quote(out) + " chr22:16570000-16570100").exit_code,
            0);
  // Replaced by a coordinate-sorted file again: its own new index, the Picard-named one removed.
  std::filesystem::copy_file(other_index, dir.file("out.bai"));
  ASSERT_EQ(
      run_command(bin() + " sort -I " + shell_quote(in) + " -O " + shell_quote(out)).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(out + ".bai"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.bai")));
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(out) + " chr22:2000-2100").out,
            run_command("samtools view -c " + shell_quote(in) + " chr22:2000-2100").out);
}

TEST(Cli, DeviceGpuWithoutGpuIsAnError) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  test::TempDir dir;
  const std::string in = test::data_path("nfcore_chr22_40kb/test2.paired_end.sorted.bam");
  const auto r = run_command(bin() + " sort -I " + shell_quote(in) + " -O " +
                             shell_quote(dir.file("o.bam")) + " --device gpu");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("gpu-pipeline: error: --device gpu: no usable GPU", 0), 0u) << r.err;
  EXPECT_TRUE(dir.entries().empty());
}

TEST(Cli, AutoDeviceSaysOnceThatItRunsOnCpu) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  test::TempDir dir;
  const std::string in = test::data_path("nfcore_chr22_40kb/test2.paired_end.sorted.bam");
  const auto r =
      run_command(bin() + " sort -I " + shell_quote(in) + " -O " + shell_quote(dir.file("o.bam")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string note = "running on the CPU";
  const auto first = r.err.find(note);
  EXPECT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(note, first + 1), std::string::npos) << r.err;
}

TEST(Cli, RunMarksDuplicatesAndRecalibratesInOneProcess) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string input = test::data_path(d + "test.paired_end.sorted.bam");
  const std::string reference = test::data_path(d + "genome.fasta");
  const std::string sites =
      " --known-sites " + shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) +
      " --known-sites " + shell_quote(test::data_path(d + "mills_and_1000G.indels.vcf.gz"));
  const auto r =
      run_command(bin() + " run " + shell_quote(input) + " -R " + shell_quote(reference) + sites +
                  " -L chr22:1-40001 --out-dir " + shell_quote(dir.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{
                "test.paired_end.sorted.dup-metrics.txt", "test.paired_end.sorted.md.bqsr.bam",
                "test.paired_end.sorted.md.bqsr.bam.bai", "test.paired_end.sorted.recal.table",
                "test.paired_end.sorted.vcf.gz", "test.paired_end.sorted.vcf.gz.tbi"}));
  // The recalibration table equals GATK4 BaseRecalibrator's on the Picard-marked BAM.
  const auto table =
      run_command("cmp " + shell_quote(dir.file("test.paired_end.sorted.recal.table")) + " " +
                  shell_quote(test::data_path(d + "test.baserecalibrator.table")));
  EXPECT_EQ(table.exit_code, 0) << table.out;
  const std::string out = dir.file("test.paired_end.sorted.md.bqsr.bam");
  // Region count through our index equals the count through samtools' own sort and index.
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(out) + " chr22:2000-2100").out, "802\n");
  EXPECT_EQ(run_command("samtools view -c -f 1024 " + shell_quote(out)).out,
            "1656\n");  // Picard's count
  // The same records as the subcommands chained through files: markdup, then applybqsr with GATK's
  // table.
  ASSERT_EQ(run_command(bin() + " markdup -I " + shell_quote(input) + " -O " +
                        shell_quote(dir.file("md.bam")))
                .exit_code,
            0);
  ASSERT_EQ(run_command(bin() + " applybqsr -I " + shell_quote(dir.file("md.bam")) +
                        " --bqsr-recal-file " +
                        shell_quote(test::data_path(d + "test.baserecalibrator.table")) + " -O " +
                        shell_quote(dir.file("chained.bam")))
                .exit_code,
            0);
  const std::string expected =
      run_command("samtools view " + shell_quote(dir.file("chained.bam"))).out;
  EXPECT_GT(expected.size(), 1000u);
  EXPECT_TRUE(run_command("samtools view " + shell_quote(out)).out == expected);
  // The VCF equals `call` on run's own BAM.
  ASSERT_EQ(run_command(bin() + " call -I " + shell_quote(out) + " -R " + shell_quote(reference) +
                        " -L chr22:1-40001 -O " + shell_quote(dir.file("called.vcf.gz")))
                .exit_code,
            0);
  const auto records = [](const std::string& vcf) {
    return run_command("bgzip -dc " + shell_quote(vcf) + " | grep -v '^##gpu-pipelineCommand'").out;
  };
  const std::string run_vcf = records(dir.file("test.paired_end.sorted.vcf.gz"));
  EXPECT_NE(run_vcf.find("#CHROM"), std::string::npos);
  EXPECT_EQ(run_vcf, records(dir.file("called.vcf.gz")));
}

// ApplyBQSR's options in `run` (Broad's production arguments): --static-quantized-quals gives the
// records of markdup then applybqsr with them and GATK's table, and the VCF of `call` on them;
// -OQ on a BAM whose OQ tags hold the original qualities (applybqsr --emit-original-quals) counts
// and recalibrates those: GATK's table again and the original run's VCF.
TEST(Cli, RunTakesApplyBqsrOptions) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string input = test::data_path(d + "test.paired_end.sorted.bam");
  const std::string reference = " -R " + shell_quote(test::data_path(d + "genome.fasta"));
  const std::string table = test::data_path(d + "test.baserecalibrator.table");
  const std::string sites =
      " --known-sites " + shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) +
      " --known-sites " + shell_quote(test::data_path(d + "mills_and_1000G.indels.vcf.gz"));
  const std::string quantized =
      " --static-quantized-quals 10 --static-quantized-quals 20 --static-quantized-quals 30";
  const auto run = [&](const std::string& bam, const std::string& options,
                       const std::string& prefix) {
    const auto r = run_command(bin() + " run " + shell_quote(bam) + reference + sites + options +
                               " --verbosity ERROR -o " + shell_quote(dir.path().string()) +
                               " --prefix " + prefix);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  const auto records = [](const std::string& vcf) {
    return run_command("bgzip -dc " + shell_quote(vcf) + " | grep -v '^##gpu-pipelineCommand'").out;
  };
  run(input, quantized, "q");
  ASSERT_EQ(run_command(bin() + " markdup -I " + shell_quote(input) + " -O " +
                        shell_quote(dir.file("md.bam")))
                .exit_code,
            0);
  ASSERT_EQ(run_command(bin() + " applybqsr -I " + shell_quote(dir.file("md.bam")) +
                        " --bqsr-recal-file " + shell_quote(table) + quantized + " -O " +
                        shell_quote(dir.file("chained.bam")))
                .exit_code,
            0);
  const std::string chained =
      run_command("samtools view " + shell_quote(dir.file("chained.bam"))).out;
  EXPECT_GT(chained.size(), 1000u);
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("q.md.bqsr.bam"))).out ==
              chained);
  ASSERT_EQ(run_command(bin() + " call -I " + shell_quote(dir.file("q.md.bqsr.bam")) + reference +
                        " -O " + shell_quote(dir.file("called.vcf.gz")))
                .exit_code,
            0);
  EXPECT_EQ(records(dir.file("q.vcf.gz")), records(dir.file("called.vcf.gz")));

  // -OQ: the chain markdup, bqsr -OQ, applybqsr -OQ through files (markdup scores reads by the
  // stored qualities, so the duplicates are those of the recalibrated BAM).
  ASSERT_EQ(run_command(bin() + " applybqsr --emit-original-quals -I " + shell_quote(input) +
                        " --bqsr-recal-file " + shell_quote(table) + " -O " +
                        shell_quote(dir.file("oq.bam")))
                .exit_code,
            0);
  run(dir.file("oq.bam"), " -OQ", "oq");
  ASSERT_EQ(run_command(bin() + " markdup -I " + shell_quote(dir.file("oq.bam")) + " -O " +
                        shell_quote(dir.file("oq_md.bam")))
                .exit_code,
            0);
  ASSERT_EQ(run_command(bin() + " bqsr -OQ -I " + shell_quote(dir.file("oq_md.bam")) + reference +
                        sites + " -O " + shell_quote(dir.file("oq_chained.table")))
                .exit_code,
            0);
  ASSERT_EQ(run_command(bin() + " applybqsr -OQ -I " + shell_quote(dir.file("oq_md.bam")) +
                        " --bqsr-recal-file " + shell_quote(dir.file("oq_chained.table")) + " -O " +
                        shell_quote(dir.file("oq_chained.bam")))
                .exit_code,
            0);
  EXPECT_TRUE(test::read_file(dir.file("oq.recal.table")) ==
              test::read_file(dir.file("oq_chained.table")));
  const std::string oq_chained =
      run_command("samtools view " + shell_quote(dir.file("oq_chained.bam"))).out;
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("oq.md.bqsr.bam"))).out ==
              oq_chained);
  // Without -OQ the stored qualities are counted and recalibrated: another table, other records.
  run(dir.file("oq.bam"), "", "stored");
  EXPECT_FALSE(test::read_file(dir.file("stored.recal.table")) ==
               test::read_file(dir.file("oq.recal.table")));
  EXPECT_FALSE(run_command("samtools view " + shell_quote(dir.file("stored.md.bqsr.bam"))).out ==
               oq_chained);
}

// -L restricts BaseRecalibrator's counting as `bqsr -L` does (GATK's exome practice, Parabricks'
// germline -L), while every read is still recalibrated and written: the chain markdup, bqsr -L,
// applybqsr (no -L) gives the same table and records.
TEST(Cli, RunWithIntervalsCountsOnlyTheReadsOverlappingThem) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string input = shell_quote(test::data_path(d + "test.paired_end.sorted.bam"));
  const std::string reference = " -R " + shell_quote(test::data_path(d + "genome.fasta"));
  const std::string sites =
      " --known-sites " + shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz"));
  const std::string interval = " -L chr22:2500-3000";
  const auto r = run_command(bin() + " run " + input + reference + sites + interval + " -o " +
                             shell_quote(dir.file("run")) + " --prefix s");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(run_command(bin() + " markdup -I " + input + " -O " + shell_quote(dir.file("md.bam")))
                .exit_code,
            0);
  const auto bqsr = [&](const std::string& table, const std::string& intervals) {
    return run_command(bin() + " bqsr -I " + shell_quote(dir.file("md.bam")) + reference + sites +
                       intervals + " -O " + shell_quote(dir.file(table)))
        .exit_code;
  };
  ASSERT_EQ(bqsr("within.table", interval), 0);
  ASSERT_EQ(bqsr("whole.table", ""), 0);
  const std::string table = test::read_file(dir.file("run/s.recal.table"));
  EXPECT_TRUE(table == test::read_file(dir.file("within.table")));
  EXPECT_TRUE(table != test::read_file(dir.file("whole.table")));  // the interval changes counts
  ASSERT_EQ(run_command(bin() + " applybqsr -I " + shell_quote(dir.file("md.bam")) +
                        " --bqsr-recal-file " + shell_quote(dir.file("within.table")) + " -O " +
                        shell_quote(dir.file("chained.bam")))
                .exit_code,
            0);
  const std::string expected =
      run_command("samtools view " + shell_quote(dir.file("chained.bam"))).out;
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(dir.file("chained.bam"))).out,
            "5644\n");  // every read
  EXPECT_TRUE(run_command("samtools view " + shell_quote(dir.file("run/s.md.bqsr.bam"))).out ==
              expected);
}

// `run` takes the caller's options (Parabricks' germline takes every haplotypecaller option, some
// of them in --haplotypecaller-options "<GATK options>"): its VCF and gVCF equal those of `call`
// with the same options on run's own BAM, and the options change them.
TEST(Cli, RunTakesTheCallersOptions) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string reference = shell_quote(test::data_path(d + "genome.fasta"));
  // dbSNP's sites force-called too (--alleles): run must pass them on.
  const std::string dbsnp = " -D " + shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) +
                            " --alleles " +
                            shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz"));
  const std::string options =
      " --ploidy 1 --standard-min-confidence-threshold-for-calling 10 "
      "--pcr-indel-model NONE" +
      dbsnp;
  const std::string blocks = " -GQB 20 -GQB 60 --floor-blocks";
  const auto r = run_command(
      bin() + " run " + shell_quote(test::data_path(d + "test.paired_end.sorted.bam")) + " -R " +
      reference + " --known-sites " + shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) +
      " -o " + shell_quote(dir.path().string()) + " --prefix s --gvcf --vcf --device cpu" +
      " --ploidy 1 --haplotypecaller-options '-stand-call-conf 10 -pcr-indel-model NONE'" + blocks +
      dbsnp);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto call = [&](const std::string& out, const std::string& args) {
    return run_command(bin() + " call -I " + shell_quote(dir.file("s.md.bqsr.bam")) + " -R " +
                       reference + " --device cpu -O " + shell_quote(dir.file(out)) + args)
        .exit_code;
  };
  ASSERT_EQ(call("called.vcf.gz", options), 0);
  ASSERT_EQ(call("called.g.vcf.gz", options + blocks + " --gvcf"), 0);
  ASSERT_EQ(call("default.vcf.gz", ""), 0);
  const auto records = [&](const std::string& vcf) {
    return run_command("bgzip -dc " + shell_quote(dir.file(vcf)) +
                       " | grep -v '^##gpu-pipelineCommand'")
        .out;
  };
  const std::string run_vcf = records("s.vcf.gz");
  EXPECT_NE(run_vcf.find("\t1:"), std::string::npos) << "haploid genotypes";
  EXPECT_NE(run_vcf.find("\trs4008589\tT\tC\t"), std::string::npos) << "dbSNP's ID";
  EXPECT_NE(run_vcf.find("\tAC=0;AF=0.00;AN=1;"), std::string::npos) << "a forced hom-ref site";
  EXPECT_TRUE(run_vcf == records("called.vcf.gz"));
  EXPECT_TRUE(run_vcf != records("default.vcf.gz"));
  const std::string run_gvcf = records("s.g.vcf.gz");
  EXPECT_NE(run_gvcf.find("##GVCFBlock20-60"), std::string::npos);
  EXPECT_TRUE(run_gvcf == records("called.g.vcf.gz"));
  // --floor-blocks belongs to a gVCF.
  const auto floor =
      run_command(bin() + " run " + shell_quote(test::data_path(d + "test.paired_end.sorted.bam")) +
                  " -R " + reference + " -o " + shell_quote(dir.file("f")) + " --floor-blocks");
  EXPECT_EQ(floor.exit_code, 1);
  EXPECT_NE(floor.err.find("--floor-blocks refers to gVCF blocks: it needs --gvcf"),
            std::string::npos)
      << floor.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("f")));
}

TEST(Cli, RunWithoutKnownSitesSkipsRecalibration) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const auto r = run_command(bin() + " run " +
                             shell_quote(test::data_path(d + "test2.paired_end.sorted.bam")) +
                             " -R " + shell_quote(test::data_path(d + "genome.fasta")) +
                             " --out-dir " + shell_quote(dir.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no --known-sites"), std::string::npos) << r.err;
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{
                "test2.paired_end.sorted.dup-metrics.txt", "test2.paired_end.sorted.md.bam",
                "test2.paired_end.sorted.md.bam.bai", "test2.paired_end.sorted.vcf.gz",
                "test2.paired_end.sorted.vcf.gz.tbi"}));
}

}  // namespace
}  // namespace gpp::pipeline
