// Alignments read from standard input (-I -) and from a FIFO: every command that reads them gives
// what it gives for the same bytes in a regular file (`bwa mem ... | gpu-pipeline run - ...`).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string bin() { return shell_quote(test::binary_path()); }
std::string data(const std::string& name) {
  return shell_quote(test::data_path("nfcore_chr22_40kb/" + name));
}

enum class Source { kFile, kStandardInput, kFifo };

const char* name_of(Source source) {
  switch (source) {
    case Source::kFile:
      return "file";
    case Source::kStandardInput:
      return "stdin";
    case Source::kFifo:
      return "fifo";
  }
  return "";
}

/// `arguments` with {in} replaced by the input as `source` gives it, as a shell command.
std::string command_reading(Source source, const std::string& input, const std::string& arguments,
                            const test::TempDir& dir) {
  std::string with_input = arguments;
  const std::string fifo = dir.file("input.fifo");
  const std::string in = source == Source::kFile            ? input
                         : source == Source::kStandardInput ? std::string("-")
                                                            : shell_quote(fifo);
  with_input.replace(with_input.find("{in}"), 4, in);
  switch (source) {
    case Source::kFile:
      return bin() + " " + with_input;
    case Source::kStandardInput:
      return "cat " + input + " | " + bin() + " " + with_input;
    case Source::kFifo:
      return "rm -f " + shell_quote(fifo) + " && mkfifo " + shell_quote(fifo) + " && (cat " +
             input + " > " + shell_quote(fifo) + " &) && " + bin() + " " + with_input;
  }
  return "";
}

struct Outputs {
  std::string sorted, marked, metrics, table, applied, vcf, run_bam, run_table, run_vcf;
};

Outputs outputs_reading(Source source, const std::string& input) {
  test::TempDir dir;
  const std::string ref = data("genome.fasta");
  const std::string sites = data("dbsnp_146.hg38.vcf.gz");
  const auto out = [&](const std::string& name) { return shell_quote(dir.file(name)); };
  const std::string commands[] = {
      "sort -I {in} -O " + out("sorted.bam"),
      "markdup -I {in} -O " + out("marked.bam") + " -M " + out("metrics.txt"),
      "bqsr -I {in} -R " + ref + " --known-sites " + sites + " -O " + out("recal.table"),
      "applybqsr -I {in} -R " + ref + " --bqsr-recal-file " + data("test.baserecalibrator.table") +
          " -O " + out("applied.bam"),
      "call -I {in} -R " + ref + " -O " + out("calls.vcf.gz"),
      "run {in} -R " + ref + " --known-sites " + sites + " -o " + out("run") + " --prefix s",
  };
  for (const std::string& arguments : commands) {
    const auto r = run_command(command_reading(source, input, arguments, dir));
    EXPECT_EQ(r.exit_code, 0) << name_of(source) << ": " << arguments << "\n" << r.err;
  }
  return {test::bam_text_without_programs(dir.file("sorted.bam")),
          test::bam_text_without_programs(dir.file("marked.bam")),
          test::text_without_comments(dir.file("metrics.txt"), "#"),
          test::read_file(dir.file("recal.table")),
          test::bam_text_without_programs(dir.file("applied.bam")),
          test::text_without_comments(dir.file("calls.vcf.gz"), "##"),
          test::bam_text_without_programs(dir.file("run/s.md.bqsr.bam")),
          test::read_file(dir.file("run/s.recal.table")),
          test::text_without_comments(dir.file("run/s.vcf.gz"), "##")};
}

TEST(StreamInputConformance, EveryCommandReadsStandardInputAndFifosAsAFile) {
  const std::string input = data("test.paired_end.sorted.bam");
  const Outputs file = outputs_reading(Source::kFile, input);
  // Real outputs, not empty ones that would agree anyway.
  EXPECT_NE(file.sorted.find("\tchr22\t"), std::string::npos);
  EXPECT_NE(file.metrics.find("PERCENT_DUPLICATION"), std::string::npos);
  EXPECT_NE(file.table.find("#:GATKTable:RecalTable0"), std::string::npos);
  EXPECT_NE(file.vcf.find("\nchr22\t"), std::string::npos);
  for (const std::string* bam : {&file.marked, &file.applied, &file.run_bam}) {
    EXPECT_NE(bam->find("\tchr22\t"), std::string::npos);
  }
  EXPECT_NE(file.run_table.find("#:GATKTable:RecalTable0"), std::string::npos);
  EXPECT_NE(file.run_vcf.find("\nchr22\t"), std::string::npos);
  for (const Source source : {Source::kStandardInput, Source::kFifo}) {
    const Outputs streamed = outputs_reading(source, input);
    const char* how = name_of(source);
    EXPECT_TRUE(streamed.sorted == file.sorted) << how;
    EXPECT_TRUE(streamed.marked == file.marked) << how;
    EXPECT_EQ(streamed.metrics, file.metrics) << how;
    EXPECT_EQ(streamed.table, file.table) << how;
    EXPECT_TRUE(streamed.applied == file.applied) << how;
    EXPECT_EQ(streamed.vcf, file.vcf) << how;
    EXPECT_TRUE(streamed.run_bam == file.run_bam) << how;
    EXPECT_EQ(streamed.run_table, file.run_table) << how;
    EXPECT_EQ(streamed.run_vcf, file.run_vcf) << how;
  }
}

TEST(StreamInputConformance, SamOnStandardInputSortsAsTheBam) {
  test::TempDir dir;
  const std::string input = data("test.paired_end.sorted.bam");
  ASSERT_EQ(
      run_command(bin() + " sort -I " + input + " -O " + shell_quote(dir.file("a.bam"))).exit_code,
      0);
  const auto r = run_command("samtools view -h " + input + " | " + bin() + " sort -I - -O " +
                             shell_quote(dir.file("b.bam")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::bam_text_without_programs(dir.file("a.bam")) ==
              test::bam_text_without_programs(dir.file("b.bam")));
}

TEST(StreamInputConformance, StreamCutBeforeItsEndOfFileMarkerIsAnError) {
  test::TempDir dir;
  const std::string input = test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam");
  // The 28-byte BGZF end-of-file block removed: every record is there, the end is not.
  const auto r = run_command("head -c $(( $(stat -c %s " + shell_quote(input) + ") - 28 )) " +
                             shell_quote(input) + " | " + bin() + " sort -I - -O " +
                             shell_quote(dir.file("o.bam")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gpu-pipeline: error: -: the BGZF end-of-file marker is missing: the "
                       "input is truncated"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(dir.entries().empty());
}

// A stream of no record (a header alone) goes through the spilling paths with no run to merge:
// every command writes its empty result, as samtools does.
TEST(StreamInputConformance, HeaderWithoutRecordsFromStandardInput) {
  test::TempDir dir;
  const std::string empty = dir.file("empty.bam");
  ASSERT_EQ(run_command("samtools view -H -b -o " + shell_quote(empty) + " " +
                        data("test.paired_end.sorted.bam"))
                .exit_code,
            0);
  const std::string ref = data("genome.fasta");
  for (const std::string& command : std::vector<std::string>{
           "sort -I - -O {out}/s.bam", "markdup -I - -O {out}/m.bam -M {out}/m.txt",
           "call -I - -R " + ref + " -O {out}/c.vcf.gz", "run - -R " + ref + " -o {out}/run"}) {
    test::TempDir out;
    std::string line = command;
    for (std::size_t at; (at = line.find("{out}")) != std::string::npos;) {
      line.replace(at, 5, shell_quote(out.path().string()));
    }
    const auto r = run_command("cat " + shell_quote(empty) + " | " + bin() + " " + line +
                               " --verbosity ERROR");
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    EXPECT_FALSE(out.entries().empty()) << command;
    if (command.starts_with("sort")) {
      EXPECT_EQ(run_command("samtools view -c " + shell_quote(out.file("s.bam"))).out, "0\n");
    }
  }
}

}  // namespace
}  // namespace gpp::pipeline
