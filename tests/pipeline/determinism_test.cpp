// Every command gives the same output on every run and at any thread count: the records of BAMs,
// tables, metrics, VCFs, PairHMM and Smith-Waterman results byte for byte, apart from what names
// the run (the command line in @PG and in the VCF header, the date in the metrics header).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string data(const std::string& name) {
  return shell_quote(test::data_path("nfcore_chr22_40kb/" + name));
}

/// An output as text without what names the run.
std::string comparable(const std::string& path) {
  const std::string quoted = shell_quote(path);
  std::string command;
  if (path.ends_with(".bam")) {
    command = "samtools view -h " + quoted + " | grep -v '^@PG'";
  } else if (path.ends_with(".vcf.gz")) {
    command = "bgzip -dc " + quoted + " | grep -v '^##gpu-pipelineCommand'";
  } else {
    command = "grep -v '^# ' " + quoted;  // metrics: '# <command line>', '# Started on: <date>'
  }
  const auto r = run_command(command);
  EXPECT_EQ(r.exit_code == 0 || r.exit_code == 1, true) << command << ": " << r.err;
  EXPECT_FALSE(r.out.empty()) << path;
  return r.out;
}

/// Smith-Waterman pairs: related sequences from a fixed seed (substitutions, insertions and
/// deletions), GATK's haplotype-to-reference parameters.
std::string sw_pairs() {
  std::mt19937 rng(7);
  const auto base = [&] { return "ACGT"[rng() % 4]; };
  std::string text;
  for (int i = 0; i < 400; ++i) {
    std::string ref;
    const int length = 50 + static_cast<int>(rng() % 250);
    for (int k = 0; k < length; ++k) ref += base();
    std::string alt;
    for (const char c : ref) {
      const unsigned roll = rng() % 100;
      if (roll < 3) continue;         // deletion
      alt += roll < 6 ? base() : c;   // substitution
      if (roll >= 97) alt += base();  // insertion
    }
    text += ref + "\t" + alt + "\t200\t-150\t-260\t-11\tSOFTCLIP\n";
  }
  return text;
}

TEST(DeterminismConformance, EveryCommandGivesTheSameOutputAtAnyThreadCount) {
  test::TempDir inputs;
  const std::string bam = inputs.file("in.bam");
  // Unsorted, with duplicates: every stage has work whose order threads could change.
  ASSERT_EQ(run_command(shell_quote(test::bench_generate_path()) + " " +
                        test::data_path("nfcore_chr22_40kb/genome.fasta") + " " + shell_quote(bam) +
                        " 20000 --duplicates 0.08")
                .exit_code,
            0);
  const std::string sorted = inputs.file("sorted.bam");
  ASSERT_EQ(run_command(shell_quote(test::binary_path()) + " sort -I " + shell_quote(bam) + " -O " +
                        shell_quote(sorted))
                .exit_code,
            0);
  const std::string table = inputs.file("recal.table");
  ASSERT_EQ(run_command(shell_quote(test::binary_path()) + " bqsr -I " + shell_quote(sorted) +
                        " -R " + data("genome.fasta") + " --known-sites " +
                        data("dbsnp_146.hg38.vcf.gz") + " -O " + shell_quote(table))
                .exit_code,
            0);
  const std::string pairs = inputs.file("pairs.tsv");
  std::ofstream(pairs) << sw_pairs();

  struct Case {
    std::string arguments;             // {out} is the output directory
    std::vector<std::string> outputs;  // relative to it
  };
  const std::string in = shell_quote(bam), ref = data("genome.fasta");
  const std::vector<Case> cases = {
      {"sort -I " + in + " -O {out}/c.bam", {"c.bam"}},
      {"sort -I " + in + " -O {out}/q.bam --sort-order queryname", {"q.bam"}},
      {"markdup -I " + in + " -O {out}/m.bam -M {out}/m.txt", {"m.bam", "m.txt"}},
      {"bqsr -I " + shell_quote(sorted) + " -R " + ref + " --known-sites " +
           data("dbsnp_146.hg38.vcf.gz") + " -O {out}/r.table",
       {"r.table"}},
      {"applybqsr -I " + shell_quote(sorted) + " --bqsr-recal-file " + shell_quote(table) +
           " -O {out}/a.bam",
       {"a.bam"}},
      {"call -I " + shell_quote(sorted) + " -R " + ref + " -O {out}/v.vcf.gz", {"v.vcf.gz"}},
      {"call -I " + shell_quote(sorted) + " -R " + ref + " -O {out}/g.g.vcf.gz --gvcf",
       {"g.g.vcf.gz"}},
      {"run " + in + " -R " + ref + " --known-sites " + data("dbsnp_146.hg38.vcf.gz") +
           " -o {out}/run --prefix s",
       {"run/s.md.bqsr.bam", "run/s.dup-metrics.txt", "run/s.recal.table", "run/s.vcf.gz"}},
      {"pairhmm -I " + shell_quote(test::data_path("pairhmm_bench/tiny.in")) + " -O {out}/h.out",
       {"h.out"}},
      {"sw -I " + shell_quote(pairs) + " -O {out}/w.tsv", {"w.tsv"}},
  };
  for (const Case& c : cases) {
    std::vector<std::vector<std::string>> runs;
    for (const char* threads : {"1", "2", "2"}) {
      test::TempDir out;
      std::string arguments = c.arguments;
      for (std::size_t at; (at = arguments.find("{out}")) != std::string::npos;) {
        arguments.replace(at, 5, out.path().string());
      }
      const auto r =
          run_command(shell_quote(test::binary_path()) + " " + arguments + " --threads " + threads);
      ASSERT_EQ(r.exit_code, 0) << arguments << "\n" << r.err;
      std::vector<std::string> texts;
      for (const std::string& output : c.outputs) texts.push_back(comparable(out.file(output)));
      runs.push_back(std::move(texts));
    }
    for (std::size_t k = 0; k < c.outputs.size(); ++k) {
      EXPECT_TRUE(runs[0][k] == runs[1][k]) << c.outputs[k] << ": 1 vs 2 threads";
      EXPECT_TRUE(runs[1][k] == runs[2][k]) << c.outputs[k] << ": two runs on 2 threads";
    }
  }
}

}  // namespace
}  // namespace gpp::pipeline
