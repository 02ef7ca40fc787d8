// --max-memory: every command held to a budget far below its input writes what it writes without
// one (records, metrics, tables and calls byte-identical; only the command line in @PG and the
// headers of metrics files differ), spills when it must, keeps its resident memory near the
// budget (GNU time's %M, an outside measure) and leaves no temporary file, also when killed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string bin() { return shell_quote(test::binary_path()); }
std::string nfcore(const std::string& name) {
  return shell_quote(test::data_path("nfcore_chr22_40kb/" + name));
}

/// What one command writes, read back for comparison: a BAM's text, a text file, a VCF's records.
std::string output_text(const std::string& path) {
  if (path.ends_with(".bam")) return test::bam_text_without_programs(path);
  // An index's bytes follow the BAM's (whose @PG line differs): compare what it answers.
  if (path.ends_with(".bai")) {
    return run_command("samtools idxstats " + shell_quote(path.substr(0, path.size() - 4))).out;
  }
  if (path.ends_with(".vcf.gz")) return test::text_without_comments(path, "##");
  if (path.ends_with(".txt")) return test::text_without_comments(path, "#");
  return test::read_file(path);
}

struct Run {
  int exit_code = -1;
  std::string err;
  long peak_kib = -1;  ///< GNU time's maximum resident set size
};

/// `arguments` run under GNU time; `budget` ("" for none) as --max-memory.
Run run_measured(const std::string& arguments, const std::string& budget,
                 const test::TempDir& dir) {
  const std::string peak = dir.file("peak.txt");
  const auto r = run_command("env time -f %M -o " + shell_quote(peak) + " " + bin() + " " +
                             arguments + (budget.empty() ? "" : " --max-memory " + budget));
  Run run{r.exit_code, r.err};
  const std::string text = test::read_file(peak);
  if (!text.empty())
    run.peak_kib = std::stol(text.substr(text.find_last_of('\n', text.size() - 2) + 1));
  return run;
}

/// One command and the files it writes ({out} in `arguments` is the output directory).
struct Case {
  Case(std::string arguments_, std::vector<std::string> outputs_, bool spills_ = true,
       std::string bounded_log_ = "")
      : arguments(std::move(arguments_)),
        outputs(std::move(outputs_)),
        spills(spills_),
        bounded_log(std::move(bounded_log_)) {}
  std::string arguments;
  std::vector<std::string> outputs;  ///< relative to {out}
  bool spills;                       ///< sorts its input in runs under the budget
  std::string bounded_log;           ///< what the bounded run's log must say, if anything
};

std::string with_out(std::string arguments, const std::string& out) {
  for (std::size_t at; (at = arguments.find("{out}")) != std::string::npos;)
    arguments.replace(at, 5, out);
  return arguments;
}

/// Runs every case without a budget and with `budget`; the outputs must be equal, the bounded
/// run must have spilled (when the case spills) and its directory must hold only its outputs.
/// Returns the bounded runs' peaks (KiB).
std::vector<long> expect_same_outputs(const std::vector<Case>& cases, const std::string& budget) {
  std::vector<long> peaks;
  for (const Case& c : cases) {
    test::TempDir free_dir, bounded_dir, work;
    const Run free = run_measured(with_out(c.arguments, free_dir.path().string()), "", work);
    const Run bounded = run_measured(with_out(c.arguments, bounded_dir.path().string()) +
                                         " --tmp-dir " + shell_quote(bounded_dir.path().string()),
                                     budget, work);
    EXPECT_EQ(free.exit_code, 0) << c.arguments << "\n" << free.err;
    EXPECT_EQ(bounded.exit_code, 0) << c.arguments << "\n" << bounded.err;
    if (c.spills) {
      EXPECT_NE(bounded.err.find("spilled run 2 "), std::string::npos)
          << c.arguments << ": did not spill\n"
          << bounded.err;
    }
    if (!c.bounded_log.empty()) {
      EXPECT_NE(bounded.err.find(c.bounded_log), std::string::npos) << c.arguments << bounded.err;
    }
    for (const std::string& name : c.outputs) {
      const std::string expected = output_text(free_dir.file(name));
      EXPECT_GT(expected.size(), 20u) << c.arguments << ": " << name;
      EXPECT_TRUE(output_text(bounded_dir.file(name)) == expected)
          << c.arguments << " --max-memory " << budget << ": " << name << " differs";
    }
    // Nothing but the outputs (and indexes) in the directory that also held the spilled runs.
    for (const std::string& entry : bounded_dir.entries()) {
      EXPECT_EQ(entry.find(".gpu-pipeline."), std::string::npos) << c.arguments << ": " << entry;
      EXPECT_EQ(entry.find(".tmp"), std::string::npos) << c.arguments << ": " << entry;
    }
    peaks.push_back(bounded.peak_kib);
  }
  return peaks;
}

TEST(MaxMemoryConformance, EveryCommandUnderATinyBudgetWritesWhatItWritesUnbounded) {
  const std::string bam = nfcore("test.paired_end.sorted.bam");
  const std::string ref = nfcore("genome.fasta");
  const std::string sites = nfcore("dbsnp_146.hg38.vcf.gz");
  const std::string na12878 =
      shell_quote(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  const std::vector<Case> cases = {
      {"sort -I " + na12878 + " -O {out}/s.bam", {"s.bam", "s.bam.bai"}},
      {"sort --sort-order queryname -I " + na12878 + " -O {out}/q.bam", {"q.bam"}},
      {"markdup -I " + na12878 + " -O {out}/m.bam -M {out}/m.txt", {"m.bam", "m.bam.bai", "m.txt"}},
      {"markdup --remove-duplicates -I " + bam + " -O {out}/m.bam -M {out}/m.txt",
       {"m.bam", "m.txt"}},
      {"bqsr -I " + bam + " -R " + ref + " --known-sites " + sites + " -O {out}/t.table",
       {"t.table"},
       false},
      {"applybqsr -I " + bam + " -R " + ref + " --bqsr-recal-file " +
           nfcore("test.baserecalibrator.table") + " -O {out}/a.bam",
       {"a.bam"},
       false},
      {"call -I " + bam + " -R " + ref + " -O {out}/c.vcf.gz", {"c.vcf.gz"}, false},
      // Two runs: counted as spilled, contig by contig.
      {"run " + bam + " -R " + ref + " --known-sites " + sites +
           " --gvcf --vcf -o {out} --prefix s",
       {"s.md.bqsr.bam", "s.md.bqsr.bam.bai", "s.dup-metrics.txt", "s.recal.table", "s.vcf.gz",
        "s.g.vcf.gz"},
       true,
       "counting covariates (the runs read contig by contig)"},
      // -L: only the reads overlapping it counted, from the runs as from memory; ApplyBQSR's
      // options applied in both.
      {"run " + bam + " -R " + ref + " --known-sites " + sites +
           " -L chr22:2500-3000 --static-quantized-quals 10 --static-quantized-quals 20"
           " --static-quantized-quals 30 -o {out} --prefix l",
       {"l.md.bqsr.bam", "l.md.bqsr.bam.bai", "l.dup-metrics.txt", "l.recal.table", "l.vcf.gz"},
       true,
       "counting covariates (the runs read contig by contig)"},
      // More runs than 512K reads at once: the counting pass merges them into fewer.
      {"run " + na12878 + " -R " +
           shell_quote(
               test::data_path("real_na12878_chr20_hg19/ucsc.hg19.chr20.unittest.fasta.gz")) +
           " --known-sites " +
           shell_quote(test::data_path(
               "real_na12878_chr20_hg19/test_nist.b37_chr20_100kbp_at_10mb.vcf.gz")) +
           " -o {out} --prefix n",
       {"n.md.bqsr.bam", "n.dup-metrics.txt", "n.recal.table", "n.vcf.gz"},
       true,
       "counting covariates (the runs merged)"},
  };
  expect_same_outputs(cases, "512K");
}

// A budget of one byte (whatever a batch should hold, it holds some records) still reads every
// record: each run and batch takes the reader's smallest step instead of nothing, which had read
// as the input's end and written empty outputs with exit code 0.
TEST(MaxMemoryConformance, BudgetOfOneByteStillReadsEveryRecord) {
  const std::string bam = nfcore("test.paired_end.sorted.bam");
  const std::string ref = nfcore("genome.fasta");
  const std::string sites = nfcore("dbsnp_146.hg38.vcf.gz");
  const std::vector<Case> cases = {
      {"sort -I " + bam + " -O {out}/s.bam", {"s.bam"}},
      {"markdup -I " + bam + " -O {out}/m.bam -M {out}/m.txt", {"m.bam", "m.txt"}},
      {"run " + bam + " -R " + ref + " --known-sites " + sites + " -o {out} --prefix s",
       {"s.md.bqsr.bam", "s.dup-metrics.txt", "s.recal.table", "s.vcf.gz"}},
  };
  expect_same_outputs(cases, "1");
  // Input not marked sorted: `call` sorts it in runs.
  test::TempDir dir;
  const std::string unsorted = dir.file("unsorted.sam");
  const auto text = run_command("samtools view -h " + bam + " | grep -v '^@HD'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::ofstream(unsorted) << text.out;
  std::vector<std::string> calls;
  for (const std::string budget : {"", " --max-memory 1"}) {
    const std::string vcf = dir.file("c" + std::to_string(calls.size()) + ".vcf.gz");
    const auto r =
        run_command(bin() + " call -I " + shell_quote(unsorted) + " -R " + ref + " -O " +
                    shell_quote(vcf) + budget + " --tmp-dir " + shell_quote(dir.path().string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    calls.push_back(test::text_without_comments(vcf, "##"));
  }
  EXPECT_GT(std::count(calls[0].begin(), calls[0].end(), '\n'), 2);
  EXPECT_EQ(calls[1], calls[0]);
}

/// The nfcore reads spread over 120 read groups (each read takes the next group), as SAM in `dir`.
std::string many_read_groups_sam(const test::TempDir& dir) {
  const auto text = run_command("samtools view -h " + nfcore("test.paired_end.sorted.bam"));
  EXPECT_EQ(text.exit_code, 0) << text.err;
  std::ostringstream sam;
  std::istringstream lines(text.out);
  std::size_t record = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("@RG")) {
      for (int g = 0; g < 120; ++g) {
        sam << "@RG\tID:rg" << g << "\tSM:s\tLB:l" << g % 3 << "\tPL:illumina\n";
      }
      continue;
    }
    if (!line.starts_with("@")) {
      const std::size_t tag = line.find("\tRG:Z:1");
      EXPECT_NE(tag, std::string::npos) << line;
      line.replace(tag, 7, "\tRG:Z:rg" + std::to_string(record++ % 120));
    }
    sam << line << "\n";
  }
  const std::string input = dir.file("groups.sam");
  std::ofstream(input) << sam.str();
  return input;
}

/// bqsr of many_read_groups_sam on `device`, unbounded and within 200M: the same table, the
/// bounded run's peak within its budget plus the process's own memory (96 MiB on the CPU, as
/// overhead_kib() below states; on the GPU what a run of the one-read-group input takes there:
/// the device's context and libraries count in the host's memory, outside --max-memory). Memory
/// is not measured under AddressSanitizer (its resident memory is not the program's).
void expect_many_read_groups_within_the_budget(const std::string& device) {
  test::TempDir dir;
  const std::string known_sites = " -R " + nfcore("genome.fasta") + " --known-sites " +
                                  nfcore("dbsnp_146.hg38.vcf.gz") + " --device " + device;
  long overhead_kib = 96L * 1024;
  if (device == "gpu") {
    const auto one_group =
        run_measured("bqsr -I " + nfcore("test.paired_end.sorted.bam") + known_sites + " -O " +
                         shell_quote(dir.file("one.table")),
                     "", dir);
    ASSERT_EQ(one_group.exit_code, 0) << one_group.err;
    overhead_kib = one_group.peak_kib;
  }
  const std::string args = "bqsr -I " + shell_quote(many_read_groups_sam(dir)) + known_sites;
  const auto free =
      run_measured(args + " --threads 4 -O " + shell_quote(dir.file("free.table")), "", dir);
  const auto bounded =
      run_measured(args + " --threads 4 -O " + shell_quote(dir.file("bounded.table")), "200M", dir);
  ASSERT_EQ(free.exit_code, 0) << free.err;
  ASSERT_EQ(bounded.exit_code, 0) << bounded.err;
  const std::string table = test::read_file(dir.file("free.table"));
  EXPECT_NE(table.find("rg119"), std::string::npos);
  EXPECT_EQ(test::read_file(dir.file("bounded.table")), table);
  if (test::kAddressSanitizer) return;
  EXPECT_LT(bounded.peak_kib, 200L * 1024 + overhead_kib)
      << "bounded peak " << bounded.peak_kib << " KiB, overhead " << overhead_kib << " KiB";
}

// BaseRecalibrator's tables take up to 3.2 MB a read group (mismatches only; a quality's bins
// once it is seen), and each counting thread keeps a copy: 120 read groups on four threads held
// five dense copies (1.9 GB). Under --max-memory fewer threads count (here one, into the tables
// themselves), within the budget, with the same table.
TEST(MaxMemoryConformance, ManyReadGroupsAreCountedWithinTheBudget) {
  expect_many_read_groups_within_the_budget("cpu");
}

// `call` on an input not marked coordinate-sorted (here grouped by name) sorts it — held whole, or
// in spilled runs when it is larger than --max-memory — and calls what calling its `samtools sort`
// (streamed) calls, also with --bqsr-recal-file.
TEST(MaxMemoryConformance, UnsortedInputIsCalledAsItsSortedCopy) {
  test::TempDir dir;
  const std::string bam =
      shell_quote(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  const std::string ref =
      shell_quote(test::data_path("real_na12878_chr20_hg19/ucsc.hg19.chr20.unittest.fasta.gz"));
  const std::string grouped = dir.file("grouped.bam");
  ASSERT_EQ(run_command("samtools sort -n -o " + shell_quote(grouped) + " " + bam).exit_code, 0);
  // A table for this BAM (`bqsr` refuses its header's contigs missing from the reference; `run`
  // warns).
  const auto counted = run_command(
      bin() + " run " + bam + " -R " + ref + " --known-sites " +
      shell_quote(
          test::data_path("real_na12878_chr20_hg19/test_nist.b37_chr20_100kbp_at_10mb.vcf.gz")) +
      " -L chr20:10000000-10000100 -o " + shell_quote(dir.file("counted")) + " --prefix t");
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  const std::string table = dir.file("counted/t.recal.table");
  const std::string spilled = " --max-memory 512K --tmp-dir " + shell_quote(dir.path().string());
  const std::string recalibrated = " --bqsr-recal-file " + shell_quote(table);
  std::vector<std::string> calls;
  for (const std::string& arguments :
       {"-I " + bam, "-I " + shell_quote(grouped), "-I " + shell_quote(grouped) + spilled,
        "-I " + bam + recalibrated, "-I " + shell_quote(grouped) + spilled + recalibrated}) {
    const std::string vcf = dir.file("c" + std::to_string(calls.size()) + ".vcf.gz");
    const auto r = run_command(bin() + " call " + arguments + " -R " + ref + " -O " +
                               shell_quote(vcf) + " --verbosity INFO");
    ASSERT_EQ(r.exit_code, 0) << arguments << "\n" << r.err;
    if (arguments.find("512K") != std::string::npos) {
      EXPECT_NE(r.err.find("sorting it in runs spilled to disk"), std::string::npos) << r.err;
    }
    calls.push_back(test::text_without_comments(vcf, "##"));
  }
  EXPECT_GT(std::count(calls[0].begin(), calls[0].end(), '\n'), 200);  // the region's calls
  EXPECT_EQ(calls[1], calls[0]);
  EXPECT_EQ(calls[2], calls[0]);
  // Recalibrated on the fly: the spilled runs' batches as they are read.
  EXPECT_NE(calls[3], calls[0]);
  EXPECT_EQ(calls[4], calls[3]);
}

TEST(MaxMemoryConformance, QuerynameGroupedInputIsMarkedPerTemplateWhenSpilled) {
  test::TempDir dir;
  const std::string grouped = dir.file("grouped.bam");
  ASSERT_EQ(run_command("samtools sort -n -o " + shell_quote(grouped) + " " +
                        shell_quote(test::data_path(
                            "real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam")))
                .exit_code,
            0);
  expect_same_outputs({{"markdup -I " + shell_quote(grouped) + " -O {out}/m.bam -M {out}/m.txt",
                        {"m.bam", "m.txt"}}},
                      "1M");
}

// Every command that spills, given a --tmp-dir it cannot use (none there, a regular file, a
// directory it may not write), stops before its first run with one line naming the directory,
// exit code 1 and no output.
TEST(MaxMemoryConformance, UnusableTemporaryDirectoryIsACleanError) {
  test::TempDir dir;
  const std::string input =
      shell_quote(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  const std::string ref =
      shell_quote(test::data_path("real_na12878_chr20_hg19/ucsc.hg19.chr20.unittest.fasta.gz"));
  const std::string plain_file = dir.file("plain_file");
  std::ofstream(plain_file) << "x";
  const std::string read_only = dir.file("read_only");
  std::filesystem::create_directory(read_only);
  std::filesystem::permissions(
      read_only, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                     std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  // Permission bits bind root only through another user: run as nobody when it can reach the
  // binary and the input (a checkout under a private directory cannot be reached).
  std::string as_user;
  if (::geteuid() == 0) {
    const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    const bool reachable =
        run_command(nobody + "test -x " + bin() + " -a -r " + input + " -a -r " + ref).exit_code ==
        0;
    as_user = reachable ? nobody : "skip";
  }
  struct Unusable {
    std::string path, reason, user;
  };
  const std::vector<Unusable> unusable = {
      {dir.file("missing"), "not a directory", ""},
      {plain_file, "not a directory", ""},
      {read_only, "Permission denied", as_user},
  };
  const std::vector<std::string> commands = {
      "sort -I " + input + " -O {out}/s.bam",
      "markdup -I " + input + " -O {out}/m.bam -M {out}/m.txt",
      "run " + input + " -R " + ref + " -o {out}/run",
  };
  for (const Unusable& tmp : unusable) {
    if (tmp.user == "skip") continue;
    for (const std::string& command : commands) {
      test::TempDir out;
      std::filesystem::permissions(out.path(), std::filesystem::perms::all);
      const auto r =
          run_command(tmp.user + bin() + " " + with_out(command, out.path().string()) +
                      " --verbosity ERROR --max-memory 1M --tmp-dir " + shell_quote(tmp.path));
      EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.err;
      EXPECT_EQ(r.err, "gpu-pipeline: error: " + tmp.path + ": cannot hold temporary files (" +
                           tmp.reason + ")\n")
          << command;
      EXPECT_TRUE(out.entries().empty()) << command;
    }
  }
  EXPECT_EQ(dir.entries().size(), 2u);  // plain_file and read_only, nothing added
  const auto bad = run_command(bin() + " sort --max-memory lots -I " + input + " -O " +
                               shell_quote(dir.file("s.bam")));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--max-memory: 'lots' is not a size (e.g. 768M, 2G)"), std::string::npos)
      << bad.err;
}

// A generated 1 M-read BAM (about 150 MB, 700 MB as columns) under a 300 MiB budget.
// Not under AddressSanitizer: its resident memory is not the program's, and the tiny-budget tests
// above take the same paths.
class MaxMemoryScaleConformance : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test::kAddressSanitizer) GTEST_SKIP() << "memory measured without AddressSanitizer only";
  }
  static void SetUpTestSuite() {
    if (test::kAddressSanitizer) return;
    data_ = new test::TempDir;
    const auto r =
        run_command(shell_quote(test::bench_generate_path()) + " " +
                    shell_quote(test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz")) +
                    " " + shell_quote(data_->file("reads.bam")) +
                    " 500000 --seed 7 --known-sites " + shell_quote(data_->file("known.vcf.gz")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(
        run_command("samtools faidx " +
                    shell_quote(test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz")) +
                    " chr20 chr21 > " + shell_quote(data_->file("ref.fa")) + " && samtools faidx " +
                    shell_quote(data_->file("ref.fa")))
            .exit_code,
        0);
  }
  static void TearDownTestSuite() { delete data_; }
  static std::string file(const std::string& name) { return shell_quote(data_->file(name)); }
  static test::TempDir* data_;
};
test::TempDir* MaxMemoryScaleConformance::data_ = nullptr;

// Resident memory allowed above --max-memory: the process itself (code, libraries, threads, the
// reference contigs run loads: 75 MiB seen for run), and with the GPU backend the CUDA context and
// its page-locked staging buffers.
long overhead_kib() { return (test::gpu_available() ? 320 : 96) * 1024; }

TEST_F(MaxMemoryScaleConformance, EveryCommandStaysNearItsBudgetAndWritesTheUnboundedOutputs) {
  const std::string reads = file("reads.bam");
  const std::string ref = file("ref.fa");
  const std::vector<Case> cases = {
      {"sort -I " + reads + " -O {out}/s.bam", {"s.bam"}},
      {"markdup -I " + reads + " -O {out}/m.bam -M {out}/m.txt", {"m.bam", "m.txt"}},
      {"bqsr -I " + reads + " -R " + ref + " --known-sites " + file("known.vcf.gz") +
           " -O {out}/t.table",
       {"t.table"},
       false},
      // Counted from the runs as spilled (their duplicates by place in the run), chr20's
      // records of every run before chr21's.
      {"run " + reads + " -R " + ref + " --known-sites " + file("known.vcf.gz") +
           " -o {out} --prefix s",
       {"s.md.bqsr.bam", "s.dup-metrics.txt", "s.recal.table", "s.vcf.gz"},
       true,
       "counting covariates (the runs read contig by contig)"},
  };
  const std::vector<long> peaks = expect_same_outputs(cases, "300M");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    EXPECT_GT(peaks[k], 0) << cases[k].arguments;
    EXPECT_LE(peaks[k], 300 * 1024 + overhead_kib()) << cases[k].arguments;
  }
}

// SIGTERM once a spilled run is being written into --tmp-dir: the process ends by the signal
// and leaves neither runs nor outputs.
TEST_F(MaxMemoryScaleConformance, SigtermWhileSpillingLeavesNoFile) {
  test::TempDir tmp, out;
  const std::string tmp_dir = tmp.path().string();
  const std::string script =
      bin() + " markdup --verbosity ERROR --max-memory 32M --tmp-dir " + shell_quote(tmp_dir) +
      " -I " + file("reads.bam") + " -O " + shell_quote(out.file("m.bam")) + " -M " +
      shell_quote(out.file("m.txt")) +
      " & pid=$!; i=0; while [ $i -lt 3000 ] && ! ls -l /proc/$pid/fd 2>/dev/null | grep -q -- "
      "'-> " +
      tmp_dir + "/'; do sleep 0.01; i=$((i+1)); done; kill -15 $pid; wait $pid";
  const auto r = run_command("sh -c " + shell_quote(script));
  EXPECT_EQ(r.exit_code, 128 + 15) << r.err;  // ended by the signal, while spilling
  EXPECT_TRUE(tmp.entries().empty());
  EXPECT_TRUE(out.entries().empty());
}

// --gpu-memory: the GPU path under a small cap writes what the CPU path writes (work that does
// not fit runs smaller or on the CPU) and its device buffers never hold more than the cap.
using MaxMemoryGpu = test::GpuTest;

/// Runs every case on the CPU backend and with `gpu_arguments` ({out}: the output directory);
/// the outputs must be equal, and no temporary file may be left. Returns the GPU runs' logs.
std::vector<std::string> expect_gpu_writes_the_cpu_outputs(const std::vector<Case>& cases,
                                                           const std::string& gpu_arguments) {
  std::vector<std::string> logs;
  for (const Case& c : cases) {
    test::TempDir cpu_dir, gpu_dir;
    const auto cpu =
        run_command(bin() + " " + with_out(c.arguments, cpu_dir.path().string()) + " --device cpu");
    const auto gpu = run_command(
        bin() + " " + with_out(c.arguments + " " + gpu_arguments, gpu_dir.path().string()));
    EXPECT_EQ(cpu.exit_code, 0) << c.arguments << "\n" << cpu.err;
    EXPECT_EQ(gpu.exit_code, 0) << c.arguments << "\n" << gpu.err;
    for (const std::string& name : c.outputs) {
      EXPECT_TRUE(output_text(gpu_dir.file(name)) == output_text(cpu_dir.file(name)))
          << c.arguments << ": " << name;
    }
    for (const std::string& entry : gpu_dir.entries()) {
      EXPECT_EQ(entry.find(".gpu-pipeline."), std::string::npos) << c.arguments << ": " << entry;
    }
    logs.push_back(gpu.err);
  }
  return logs;
}

// The GPU's counting keeps dense counts of every read group and quality (1.5 MB a read group on
// the host, as much on the device): where those exceed half of --max-memory the CPU counts, into
// tables of the qualities seen, with the same table.
TEST_F(MaxMemoryGpu, ManyReadGroupsAreCountedWithinTheBudget) {
  expect_many_read_groups_within_the_budget("gpu");
}

TEST_F(MaxMemoryGpu, SmallGpuMemoryCapGivesTheCpuOutputs) {
  const std::string bam = nfcore("test.paired_end.sorted.bam");
  const std::string ref = nfcore("genome.fasta");
  const std::string sites = nfcore("dbsnp_146.hg38.vcf.gz");
  const std::vector<Case> cases = {
      {"markdup -I " + bam + " -O {out}/m.bam -M {out}/m.txt", {"m.bam", "m.txt"}},
      {"bqsr -I " + bam + " -R " + ref + " --known-sites " + sites + " -O {out}/t.table",
       {"t.table"}},
      {"call -I " + bam + " -R " + ref + " -O {out}/c.vcf.gz", {"c.vcf.gz"}},
      {"run " + bam + " -R " + ref + " --known-sites " + sites + " -o {out} --prefix s",
       {"s.md.bqsr.bam", "s.dup-metrics.txt", "s.recal.table", "s.vcf.gz"}},
  };
  const std::vector<std::string> logs =
      expect_gpu_writes_the_cpu_outputs(cases, "--device gpu --gpu-memory 256M");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const std::size_t at = logs[k].find("peak GPU memory ");
    ASSERT_NE(at, std::string::npos) << cases[k].arguments << ": the GPU was not used\n" << logs[k];
    EXPECT_LE(std::stol(logs[k].substr(at + 16)), 256) << cases[k].arguments << "\n" << logs[k];
  }
}

// With --gpu-write the spilled runs are compressed by the GPU block encoder: the records that
// come back from them are the ones the CPU backend writes without a budget.
TEST_F(MaxMemoryGpu, RunsSpilledThroughTheGpuEncoderGiveTheUnboundedOutputs) {
  const std::string na12878 =
      shell_quote(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  const std::string bam = nfcore("test.paired_end.sorted.bam");
  const std::vector<Case> cases = {
      {"sort -I " + na12878 + " -O {out}/s.bam", {"s.bam", "s.bam.bai"}},
      {"markdup -I " + na12878 + " -O {out}/m.bam -M {out}/m.txt", {"m.bam", "m.bam.bai", "m.txt"}},
      {"run " + bam + " -R " + nfcore("genome.fasta") + " --known-sites " +
           nfcore("dbsnp_146.hg38.vcf.gz") + " -o {out} --prefix s",
       {"s.md.bqsr.bam", "s.dup-metrics.txt", "s.recal.table", "s.vcf.gz"}},
  };
  const std::vector<std::string> logs = expect_gpu_writes_the_cpu_outputs(
      cases, "--device gpu --gpu-write --max-memory 512K --tmp-dir {out}");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    EXPECT_NE(logs[k].find("spilled run 2 "), std::string::npos) << cases[k].arguments;
  }
}

}  // namespace
}  // namespace gpp::pipeline
