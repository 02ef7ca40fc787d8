// Bad input: one line "gpu-pipeline: error: <file>: <what>", exit code 1, no output left behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

struct Failure {
  test::TempDir inputs;   // files the case prepares
  test::TempDir outputs;  // where the command writes; must stay empty
};

// Runs gpu-pipeline with `args`; expects exit 1, one error line that mentions `names`, and an
// empty output directory.
void expect_clean_failure(const std::string& args, const std::string& names, const Failure& f) {
  const auto r = run_command(shell_quote(test::binary_path()) + " " + args + " --verbosity ERROR");
  EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("gpu-pipeline: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line:\n" << r.err;
  EXPECT_NE(r.err.find(names), std::string::npos) << "expected '" << names << "' in: " << r.err;
  EXPECT_TRUE(f.outputs.entries().empty()) << "left output behind after: " << args;
}

// Runs each command (arguments, then the message its one error line must hold): exit code 1.
void expect_one_line_errors(const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [args, message] : cases) {
    const auto r =
        run_command(shell_quote(test::binary_path()) + " " + args + " --verbosity ERROR");
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

std::string sort_args(const std::string& input, const Failure& f, const std::string& extra = "") {
  return "sort -I " + shell_quote(input) + " -O " + shell_quote(f.outputs.file("out.bam")) + extra;
}

void copy_prefix(const std::string& from, const std::string& to, std::uintmax_t bytes) {
  std::ifstream in(from, std::ios::binary);
  std::string data(bytes, '\0');
  in.read(data.data(), static_cast<std::streamsize>(bytes));
  std::ofstream(to, std::ios::binary).write(data.data(), static_cast<std::streamsize>(bytes));
}

const std::string kBam = "nfcore_chr22_40kb/test.paired_end.sorted.bam";

/// Generated reads over the nfcore chr22 contig (bench_generate `pairs` and `options`) at `path`.
void generate_bam(const std::string& path, int pairs, const std::string& options) {
  ASSERT_EQ(run_command(shell_quote(test::bench_generate_path()) + " " +
                        shell_quote(test::data_path("nfcore_chr22_40kb/genome.fasta")) + " " +
                        shell_quote(path) + " " + std::to_string(pairs) + " " + options)
                .exit_code,
            0);
}

TEST(Errors, MissingInput) {
  Failure f;
  const std::string missing = f.inputs.file("missing.bam");
  expect_clean_failure(sort_args(missing, f), missing + ": no such file", f);
}

TEST(Errors, NotABam) {
  Failure f;
  const std::string text = f.inputs.file("notes.bam");
  std::ofstream(text) << "this is not an alignment file\n";
  expect_clean_failure(sort_args(text, f), text + ": ", f);
  const std::string fasta = test::data_path("nfcore_chr22_40kb/genome.fasta");
  expect_clean_failure(sort_args(fasta, f), fasta + ": not a SAM, BAM or CRAM file", f);
  // Bytes of no format at all (HTSlib: "Exec format error").
  const std::string noise = f.inputs.file("noise.bam");
  std::string bytes(3000, '\0');
  std::mt19937 rng(3);
  for (char& c : bytes) c = static_cast<char>(rng());
  std::ofstream(noise, std::ios::binary) << bytes;
  expect_clean_failure(sort_args(noise, f), noise + ": not a SAM, BAM or CRAM file", f);
}

// The malformed record is named by its number and, in plain SAM, its line, whatever the threads
// parsing ahead had read; a compressed SAM by its number; a stream by where it may start.
TEST(Errors, MalformedSamRecordIsNamedByNumberAndLine) {
  Failure f;
  const std::string sam = f.inputs.file("bad.sam");
  std::ofstream(sam) << "@HD\tVN:1.6\n@SQ\tSN:chr1\tLN:1000\n"
                        "r1\t0\tchr1\t10\t60\t5M\t*\t0\t0\tACGTA\tIIIII\n"
                        "r2\t0\tchr1\t20\t60\t5M\t*\t0\t0\tACGTA\tIIIII\n"
                        "r3\t0\tchr1\tabc\t60\t5M\t*\t0\t0\tACGTA\tIIIII\n"
                        "r4\t0\tchr1\t40\t60\t5M\t*\t0\t0\tACGTA\tIIIII\n";
  for (const char* threads : {"1", "2"}) {
    expect_clean_failure(sort_args(sam, f, std::string(" --threads ") + threads),
                         sam + ": truncated or corrupt SAM data at record 3 (line 5)", f);
  }
  const std::string gz = sam + ".gz";
  ASSERT_EQ(run_command("bgzip -k " + shell_quote(sam)).exit_code, 0);
  expect_clean_failure(sort_args(gz, f), gz + ": truncated or corrupt SAM data at record 3", f);
  const auto r =
      run_command("cat " + shell_quote(sam) + " | " + shell_quote(test::binary_path()) +
                  " sort -I - -O " + shell_quote(f.outputs.file("out.bam")) + " --verbosity ERROR");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err.rfind("gpu-pipeline: error: -: truncated or corrupt SAM data at or after record ", 0),
      0u)
      << r.err;
  EXPECT_TRUE(f.outputs.entries().empty());
}

TEST(Errors, TruncatedBamCutMidBlock) {
  Failure f;
  const std::string bam = test::data_path(kBam);
  const std::string cut = f.inputs.file("cut.bam");
  copy_prefix(bam, cut, std::filesystem::file_size(bam) / 2);
  expect_clean_failure(sort_args(cut, f), cut + ": the BGZF end-of-file marker is missing", f);

  // Cut mid-block but with an EOF marker appended: the damage shows while decoding.
  static const unsigned char kEofBlock[28] = {0x1f, 0x8b, 0x08, 0x04, 0,    0, 0,    0, 0,    0xff,
                                              0x06, 0,    0x42, 0x43, 0x02, 0, 0x1b, 0, 0x03, 0,
                                              0,    0,    0,    0,    0,    0, 0,    0};
  const std::string patched = f.inputs.file("patched.bam");
  copy_prefix(bam, patched, std::filesystem::file_size(bam) / 2);
  std::ofstream(patched, std::ios::binary | std::ios::app)
      .write(reinterpret_cast<const char*>(kEofBlock), 28);
  expect_clean_failure(sort_args(patched, f), patched + ": truncated", f);
}

// A CRAM without its end-of-file container (HTSlib only warns, as samtools does): refused, as a
// BAM without its BGZF end marker is.
TEST(Errors, CramWithoutItsEndContainer) {
  Failure f;
  const std::string fasta = test::data_path("nfcore_chr22_40kb/genome.fasta");
  const std::string cram = f.inputs.file("whole.cram");
  ASSERT_EQ(run_command("samtools view -C -T " + shell_quote(fasta) + " -o " + shell_quote(cram) +
                        " " + shell_quote(test::data_path(kBam)))
                .exit_code,
            0);
  const std::string cut = f.inputs.file("cut.cram");
  copy_prefix(cram, cut, std::filesystem::file_size(cram) - 38);  // CRAM 3's EOF container
  expect_clean_failure(sort_args(cut, f, " -R " + shell_quote(fasta)),
                       cut + ": the CRAM end-of-file container is missing", f);
  const auto whole = run_command(shell_quote(test::binary_path()) + " " +
                                 sort_args(cram, f, " -R " + shell_quote(fasta)));
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
}

TEST(Errors, ApplyBqsrInputDamagedAfterBatchesWereWritten) {
  // applybqsr streams: with small batches, records are already written when the damage is found.
  Failure f;
  const std::string bam = test::data_path(kBam);
  static const unsigned char kEofBlock[28] = {0x1f, 0x8b, 0x08, 0x04, 0,    0, 0,    0, 0,    0xff,
                                              0x06, 0,    0x42, 0x43, 0x02, 0, 0x1b, 0, 0x03, 0,
                                              0,    0,    0,    0,    0,    0, 0,    0};
  const std::string patched = f.inputs.file("patched.bam");
  copy_prefix(bam, patched, std::filesystem::file_size(bam) * 3 / 4);
  std::ofstream(patched, std::ios::binary | std::ios::app)
      .write(reinterpret_cast<const char*>(kEofBlock), 28);
  expect_clean_failure(
      "applybqsr -I " + shell_quote(patched) + " --bqsr-recal-file " +
          shell_quote(test::data_path("nfcore_chr22_40kb/test.baserecalibrator.table")) +
          " --records-per-batch 500 -O " + shell_quote(f.outputs.file("out.bam")),
      patched + ": truncated", f);
}

TEST(Errors, CramWithoutReference) {
  Failure f;
  const std::string cram = f.inputs.file("in.cram");
  ASSERT_EQ(run_command("samtools view -C -T " +
                        shell_quote(test::data_path("nfcore_chr22_40kb/genome.fasta")) + " -o " +
                        shell_quote(cram) + " " + shell_quote(test::data_path(kBam)))
                .exit_code,
            0);
  expect_clean_failure(sort_args(cram, f), cram + ": CRAM input needs its reference", f);
}

TEST(Errors, ReferenceMissingAContigOfTheBamHeader) {
  Failure f;
  const std::string sam = test::data_path("edge_cases/edge_cases.sam");
  const std::string ref = test::data_path("nfcore_chr22_40kb/genome.fasta");
  expect_clean_failure("run " + shell_quote(sam) + " -R " + shell_quote(ref) + " --out-dir " +
                           shell_quote(f.outputs.path().string()),
                       ref + ": the reference has no contig 'chrA'", f);
}

TEST(Errors, RunLeavesNoOutputDirectoryItCreated) {
  Failure f;
  const std::string sam = test::data_path("edge_cases/edge_cases.sam");
  const std::string ref = test::data_path("nfcore_chr22_40kb/genome.fasta");
  // Two levels created for the run, both removed when it fails; the existing parent stays.
  const std::string out_dir = f.outputs.file("new/deeper");
  expect_clean_failure(
      "run " + shell_quote(sam) + " -R " + shell_quote(ref) + " --out-dir " + shell_quote(out_dir),
      ref + ": the reference has no contig 'chrA'", f);
  EXPECT_TRUE(std::filesystem::is_directory(f.outputs.path()));
  EXPECT_TRUE(f.outputs.entries().empty());
  // A directory that existed before is kept, empty as it was.
  std::filesystem::create_directories(out_dir);
  const auto r = run_command(shell_quote(test::binary_path()) + " run " + shell_quote(sam) +
                             " -R " + shell_quote(ref) + " --out-dir " + shell_quote(out_dir));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(std::filesystem::is_directory(out_dir));
  EXPECT_TRUE(std::filesystem::is_empty(out_dir));
}

// Exit code 3 (README "Exit codes"): host memory exhausted, which a workflow engine may retry
// with more. The address space is capped at 300 MB: enough to start and to sort a small BAM, not
// to hold 800 k records.
TEST(Errors, OutOfMemoryExitsThree) {
  if (test::kAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer reserves more address space than the cap";
  Failure f;
  const std::string bam = f.inputs.file("big.bam");
  ASSERT_NO_FATAL_FAILURE(generate_bam(bam, 400000, "--sorted"));
  // On the CPU: a GPU's driver alone reserves more address space than the cap.
  const std::string capped = "ulimit -v 300000; " + shell_quote(test::binary_path());
  const auto small = run_command(capped + " sort --device cpu --threads 2 -I " +
                                 shell_quote(test::data_path(kBam)) + " -O " +
                                 shell_quote(f.inputs.file("small.bam")));
  ASSERT_EQ(small.exit_code, 0) << small.err;
  const auto r = run_command(capped + " markdup --device cpu --threads 2 --verbosity ERROR -I " +
                             shell_quote(bam) + " -O " + shell_quote(f.outputs.file("o.bam")) +
                             " -M " + shell_quote(f.outputs.file("o.txt")));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "gpu-pipeline: error: out of memory\n");
  EXPECT_TRUE(f.outputs.entries().empty());
}

// A full disk, simulated by a file-size limit (ulimit -f: writes past it fail with EFBIG once
// SIGXFSZ is ignored): every command says which output it could not write, exits 1 and leaves
// no output or temporary file.
TEST(Errors, FileSizeLimitLeavesNoOutput) {
  Failure f;
  const std::string bam = f.inputs.file("in.bam");
  const std::string ref = test::data_path("nfcore_chr22_40kb/genome.fasta");
  ASSERT_NO_FATAL_FAILURE(generate_bam(bam, 30000, "--sorted"));
  ASSERT_GT(std::filesystem::file_size(bam), 2'000'000u);
  const std::string table = f.inputs.file("recal.table");
  ASSERT_EQ(run_command(shell_quote(test::binary_path()) + " bqsr -I " + shell_quote(bam) + " -R " +
                        shell_quote(ref) + " --known-sites " +
                        shell_quote(test::data_path("nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz")) +
                        " -O " + shell_quote(table))
                .exit_code,
            0);
  const auto out = [&](const std::string& name) { return shell_quote(f.outputs.file(name)); };
  const std::string commands[] = {
      "sort -I " + shell_quote(bam) + " -O " + out("o.bam"),
      "markdup -I " + shell_quote(bam) + " -O " + out("o.bam") + " -M " + out("m.txt"),
      "applybqsr -I " + shell_quote(bam) + " --bqsr-recal-file " + shell_quote(table) + " -O " +
          out("o.bam"),
      // A line per base of the 40 kb contig, uncompressed: about 3 MB.
      "call -I " + shell_quote(bam) + " -R " + shell_quote(ref) + " -O " + out("o.g.vcf") +
          " -ERC BP_RESOLUTION",
      "run " + shell_quote(bam) + " -R " + shell_quote(ref) + " -o " + out("run"),
  };
  for (const std::string& command : commands) {
    // 1,000 blocks of 512 bytes (POSIX sh): far less than any of these outputs.
    const auto r = run_command("ulimit -f 1000; " + shell_quote(test::binary_path()) + " " +
                               command + " --verbosity ERROR");
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("gpu-pipeline: error: " + f.outputs.path().string() + "/", 0), 0u)
        << command << "\n"
        << r.err;
    EXPECT_NE(r.err.find(": cannot write ("), std::string::npos) << command << "\n" << r.err;
    EXPECT_TRUE(f.outputs.entries().empty()) << command;
  }
}

// A spilled run that cannot be written (here past a file-size limit) is named by its temporary
// directory: the run itself is an unnamed file whose /proc path would say nothing.
TEST(Errors, UnwritableSpilledRunNamesTheTemporaryDirectory) {
  Failure f;
  test::TempDir tmp;
  const std::string bam = f.inputs.file("in.bam");
  ASSERT_NO_FATAL_FAILURE(generate_bam(bam, 30000, "--sorted"));
  for (const std::string& command :
       {"sort -I " + shell_quote(bam) + " -O " + shell_quote(f.outputs.file("o.bam")),
        "markdup -I " + shell_quote(bam) + " -O " + shell_quote(f.outputs.file("o.bam")) + " -M " +
            shell_quote(f.outputs.file("m.txt"))}) {
    // Runs of a sixth of 4 MiB hold about 300 KB of BAM each; the limit is 100 KB.
    const auto r = run_command("ulimit -f 200; " + shell_quote(test::binary_path()) + " " +
                               command + " --max-memory 4M --tmp-dir " +
                               shell_quote(tmp.path().string()) + " --verbosity ERROR");
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("gpu-pipeline: error: " + tmp.path().string() +
                              ": cannot write temporary files (File too large)\n",
                          0),
              0u)
        << command << "\n"
        << r.err;
    EXPECT_TRUE(f.outputs.entries().empty()) << command;
    EXPECT_TRUE(tmp.entries().empty()) << command;
  }
}

// Not an error (the other files may be right), but never silent.
TEST(Errors, KnownSitesOnContigsTheReferenceLacksAreAWarning) {
  Failure f;
  const std::string sites = f.inputs.file("sites.vcf");
  std::ofstream(sites) << "##fileformat=VCFv4.2\n##contig=<ID=chrZ,length=1000>\n"
                          "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                          "chrZ\t100\t.\tA\tG\t.\t.\t.\n";
  const std::string ref = test::data_path("nfcore_chr22_40kb/genome.fasta");
  const auto r = run_command(shell_quote(test::binary_path()) + " bqsr -I " +
                             shell_quote(test::data_path(kBam)) + " -R " + shell_quote(ref) +
                             " --known-sites " + shell_quote(sites) + " -O " +
                             shell_quote(f.outputs.file("t.table")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("gpu-pipeline: warning: " + sites +
                       ": known sites on 1 contig(s) the "
                       "reference " +
                       ref + " lacks (chrZ): they are not used\n"),
            std::string::npos)
      << r.err;
}

// bqsr frees a contig's reference and known sites once the reads of a coordinate-sorted input have
// passed it: a record on an earlier contig is an error, not a read counted without its reference.
TEST(Errors, BqsrInputOutOfTheOrderItsHeaderStates) {
  Failure f;
  const std::string sam = f.inputs.file("unordered.sam");
  const std::string read = std::string(50, 'A');
  std::ofstream(sam) << "@HD\tVN:1.6\tSO:coordinate\n"
                        "@SQ\tSN:chr20\tLN:10000000\n@SQ\tSN:chr21\tLN:10000000\n"
                        "@RG\tID:rg\tSM:s\tPL:ILLUMINA\n"
                     << "r1\t0\tchr21\t5000001\t60\t50M\t*\t0\t0\t" << read << "\t"
                     << std::string(50, 'I') << "\tRG:Z:rg\n"
                     << "r2\t0\tchr20\t5000001\t60\t50M\t*\t0\t0\t" << read << "\t"
                     << std::string(50, 'I') << "\tRG:Z:rg\n";
  const std::string sites = f.inputs.file("sites.vcf");
  std::ofstream(sites) << "##fileformat=VCFv4.2\n##contig=<ID=chr20>\n##contig=<ID=chr21>\n"
                          "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
  const std::string reference = test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz");
  expect_clean_failure("bqsr -I " + shell_quote(sam) + " -R " + shell_quote(reference) +
                           " --known-sites " + shell_quote(sites) + " -O " +
                           shell_quote(f.outputs.file("r.table")),
                       sam + ": the records are not in coordinate order (chr20 after chr21)", f);
}

TEST(Errors, UnwritableOutputDirectory) {
  Failure f;
  const std::string bam = test::data_path(kBam);
  const std::string absent = f.outputs.file("no/such/dir/out.bam");
  expect_clean_failure("sort -I " + shell_quote(bam) + " -O " + shell_quote(absent),
                       absent + ": cannot write output", f);
  // A regular file where a directory should be (unwritable even for root).
  const std::string file = f.inputs.file("plain_file");
  std::ofstream(file) << "x";
  const std::string under_file = file + "/out.bam";
  expect_clean_failure("sort -I " + shell_quote(bam) + " -O " + shell_quote(under_file),
                       under_file + ": cannot write output", f);
  if (::geteuid() != 0) {  // permission bits bind only non-root users
    std::filesystem::permissions(
        f.outputs.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    expect_clean_failure(sort_args(bam, f), "not writable", f);
    std::filesystem::permissions(f.outputs.path(), std::filesystem::perms::owner_all);
  }
}

TEST(Errors, BadKnownSitesAndIntervals) {
  Failure f;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string common = "run " +
                             shell_quote(test::data_path(d + "test.paired_end.sorted.bam")) +
                             " -R " + shell_quote(test::data_path(d + "genome.fasta")) +
                             " --out-dir " + shell_quote(f.outputs.path().string());
  const std::string missing_vcf = f.inputs.file("dbsnp.vcf.gz");
  expect_clean_failure(common + " --known-sites " + shell_quote(missing_vcf),
                       missing_vcf + ": no such file", f);
  expect_clean_failure(common + " -L chr99:1-100", "chr99", f);
}

// An output naming an input (directly, by another spelling or through a symbolic link), or two
// outputs naming one file, is refused before any work, and the input stays as it was.
TEST(Errors, OutputThatIsAnInputIsRefused) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string original = test::data_path(d + "test.paired_end.sorted.bam");
  const std::string bam = dir.file("in.bam");
  std::filesystem::copy_file(original, bam);
  std::filesystem::create_symlink(bam, dir.file("link.bam"));
  const std::string in = shell_quote(bam);
  const std::string reference = shell_quote(test::data_path(d + "genome.fasta"));
  const std::string sites = shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz"));
  const std::string table = shell_quote(test::data_path(d + "test.baserecalibrator.table"));
  const std::string other = shell_quote(dir.file("other.bam"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sort -I " + in + " -O " + in, "the output is the input"},
      {"sort -I " + shell_quote(dir.file("link.bam")) + " -O " + in, "the output is the input"},
      {"sort -I " + in + " -O " + shell_quote(dir.path().string() + "/./in.bam"),
       "the output is the input"},
      {"markdup -I " + in + " -O " + in + " -M " + shell_quote(dir.file("m.txt")),
       "the output is the input"},
      {"markdup -I " + in + " -O " + other + " -M " + other, "given as two outputs"},
      {"bqsr -I " + in + " -R " + reference + " --known-sites " + sites + " -O " + in,
       "the output is the input"},
      {"applybqsr -I " + in + " --bqsr-recal-file " + table + " -O " + in,
       "the output is the input"},
      {"call -I " + in + " -R " + reference + " -O " + shell_quote(dir.file("x.vcf")) +
           " --bqsr-recal-file " + shell_quote(dir.file("x.vcf")),
       "the output is the input"},
  };
  expect_one_line_errors(cases);
  EXPECT_EQ(test::read_file(bam), test::read_file(original));
  EXPECT_FALSE(std::filesystem::exists(dir.file("other.bam")));
}

// The files read beside an input are inputs too: an output (or the index written beside it) must
// not replace a BAM's index, a FASTA's index, or a VCF given to --dbsnp or --alleles.
TEST(Errors, OutputThatIsAnInputsIndexIsRefused) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string bam = dir.file("in.bam");
  const std::string fasta = dir.file("ref.fa");
  const std::string dbsnp = dir.file("dbsnp.vcf.gz");
  std::filesystem::copy_file(test::data_path(d + "test.paired_end.sorted.bam"), bam);
  std::filesystem::copy_file(test::data_path(d + "genome.fasta"), fasta);
  std::filesystem::copy_file(test::data_path(d + "dbsnp_146.hg38.vcf.gz"), dbsnp);
  ASSERT_EQ(run_command("samtools index " + shell_quote(bam) + " && samtools faidx " +
                        shell_quote(fasta) + " && tabix -p vcf " + shell_quote(dbsnp))
                .exit_code,
            0);
  std::filesystem::copy_file(bam + ".bai", dir.file("in.bai"));
  std::filesystem::create_directory(dir.file("dir"));
  std::filesystem::create_directory(dir.file("x.bam.bai"));
  std::filesystem::create_symlink(bam, dir.file("link.bam"));
  std::filesystem::copy_file(dbsnp, dir.file("out.vcf.gz.tbi"));
  const std::vector<std::string> kept = {
      bam + ".bai",   fasta + ".fai",     dbsnp,
      dbsnp + ".tbi", dir.file("in.bai"), dir.file("out.vcf.gz.tbi")};
  std::vector<std::string> before;
  for (const std::string& file : kept) before.push_back(test::read_file(file));
  const std::string before_bam = test::read_file(bam);
  const std::string call = "call -I " + shell_quote(bam) + " -R " + shell_quote(fasta) + " ";
  const std::string vcf = shell_quote(dir.file("out.vcf.gz"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {call + "-O " + vcf + " -bamout " + shell_quote(bam + ".bai"),
       "writing it would overwrite " + bam + ".bai, which is read with the input " + bam},
      {call + "-O " + vcf + " -bamout " + shell_quote(fasta + ".fai"),
       "writing it would overwrite " + fasta + ".fai"},
      // The haplotype BAM's own index would land on the input's (in.bai is HTSlib's other name).
      {call + "-O " + vcf + " -bamout " + shell_quote(dir.file("in")),
       "writing it would overwrite " + dir.file("in.bai")},
      // The VCF's index would replace an input named like it.
      {call + "-O " + vcf + " --dbsnp " + shell_quote(dir.file("out.vcf.gz.tbi")),
       "its index " + dir.file("out.vcf.gz.tbi") + " would overwrite the input"},
      {call + "-O " + shell_quote(dbsnp) + " --dbsnp " + shell_quote(dbsnp),
       "the output is the input " + dbsnp},
      {call + "-O " + shell_quote(dbsnp) + " --alleles " + shell_quote(dbsnp),
       "the output is the input " + dbsnp},
      {"sort -I " + shell_quote(bam) + " -O " + shell_quote(bam + ".bai"),
       "writing it would overwrite " + bam + ".bai"},
      // One output on the index written beside another.
      {"markdup -I " + shell_quote(bam) + " -O " + shell_quote(dir.file("y.bam")) + " -M " +
           shell_quote(dir.file("y.bam.bai")),
       "the index " + dir.file("y.bam.bai") + " of the output " + dir.file("y.bam")},
      {call + "-O " + vcf + " -bamout " + shell_quote(dir.file("out.vcf.gz.tbi")),
       "the index " + dir.file("out.vcf.gz.tbi") + " of the output"},
      // An existing directory as an output, or where an output's index goes.
      {"sort -I " + shell_quote(bam) + " -O " + shell_quote(dir.file("dir")),
       dir.file("dir") + ": cannot write output (" + dir.file("dir") + " is a directory)"},
      {"sort -I " + shell_quote(bam) + " -O " + shell_quote(dir.file("x.bam")),
       "cannot write output (" + dir.file("x.bam.bai") + " is a directory)"},
      // Standard input reads a file that an output names through a link.
      {"sort -I - -O " + shell_quote(dir.file("link.bam")) + " < " + shell_quote(bam),
       "the file standard input reads"},
      // Two outputs interleaved on standard output.
      {call + "-O - -bamout /dev/stdout", "/dev/stdout: - already writes to standard output"},
      {"markdup -I " + shell_quote(bam) + " -O - -M -", "-: - already writes to standard output"},
  };
  expect_one_line_errors(cases);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    EXPECT_EQ(test::read_file(kept[k]), before[k]) << kept[k] << " was changed";
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.vcf.gz")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("in")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.bam")));

  // Two spellings of one output, relative to the working directory (neither exists yet), and a
  // log that is a hard link of the input.
  const std::string in_dir =
      "cd " + shell_quote(dir.path().string()) + " && " + shell_quote(test::binary_path()) + " ";
  const auto twice = run_command(in_dir + "markdup -I in.bam -O o.bam -M ./o.bam");
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("o.bam: given as two outputs (./o.bam)"), std::string::npos)
      << twice.err;
  std::filesystem::create_hard_link(bam, dir.file("hard.bam"));
  const auto log = run_command(in_dir + "sort -I in.bam -O s.bam --logfile hard.bam");
  EXPECT_EQ(log.exit_code, 1);
  EXPECT_NE(log.err.find("--logfile hard.bam: also given as another argument"), std::string::npos)
      << log.err;
  EXPECT_EQ(test::read_file(bam), before_bam);
  EXPECT_FALSE(std::filesystem::exists(dir.file("o.bam")));
}

// Offset of the first alignment record in uncompressed BAM bytes (after the header).
std::size_t first_record_offset(const std::string& raw) {
  auto load32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, raw.data() + at, 4);
    return v;
  };
  std::size_t at = 8 + load32(4);  // magic, l_text, text
  const std::uint32_t n_ref = load32(at);
  at += 4;
  for (std::uint32_t r = 0; r < n_ref; ++r) at += 4 + load32(at) + 4;
  return at;
}

// Base qualities above SAM's largest (93) fit in a BAM byte; the recalibration's tables end at
// 93, so `bqsr` and `run` refuse such a read by name and file (they used to write past the
// tables' end: a crash or a corrupt table); `sort` takes the file as it is.
TEST(Errors, BaseQualityAboveSamsLargestIsRefusedByTheRecalibration) {
  Failure f;
  std::string raw;
  {
    gzFile in = gzopen(test::data_path(kBam).c_str(), "rb");
    ASSERT_NE(in, nullptr);
    char buffer[65536];
    for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) raw.append(buffer, n);
    gzclose(in);
  }
  auto load32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, raw.data() + at, 4);
    return v;
  };
  std::size_t patched = 0;
  for (std::size_t at = first_record_offset(raw); at + 36 <= raw.size(); at += 4 + load32(at)) {
    const std::size_t name_length = static_cast<unsigned char>(raw[at + 12]);
    const std::size_t cigar_ops = static_cast<unsigned char>(raw[at + 16]) |
                                  static_cast<std::size_t>(static_cast<unsigned char>(raw[at + 17]))
                                      << 8;
    const std::size_t length = load32(at + 20);
    const std::size_t qual = at + 36 + name_length + 4 * cigar_ops + (length + 1) / 2;
    if (length == 0 || static_cast<unsigned char>(raw[qual]) == 0xFF) continue;
    raw[qual + length / 2] = 100;  // one base of every read
    ++patched;
  }
  ASSERT_GT(patched, 5000u);
  const std::string bam = f.inputs.file("q100.bam");
  std::ofstream(f.inputs.file("q100"), std::ios::binary) << raw;
  ASSERT_EQ(run_command("bgzip -f " + shell_quote(f.inputs.file("q100")) + " && mv " +
                        shell_quote(f.inputs.file("q100.gz")) + " " + shell_quote(bam))
                .exit_code,
            0);
  const std::string ref = shell_quote(test::data_path("nfcore_chr22_40kb/genome.fasta"));
  const std::string sites = shell_quote(test::data_path("nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz"));
  for (const std::string& args : {"bqsr -I " + shell_quote(bam) + " -R " + ref + " --known-sites " +
                                      sites + " -O " + shell_quote(f.outputs.file("t.table")),
                                  "run " + shell_quote(bam) + " -R " + ref + " --known-sites " +
                                      sites + " -o " + shell_quote(f.outputs.path().string())}) {
    const auto r =
        run_command(shell_quote(test::binary_path()) + " " + args + " --verbosity ERROR");
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("gpu-pipeline: error: " + bam + ": read ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(" has base quality 100, above SAM's largest (93)\n"), std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(f.outputs.entries().empty()) << args;
  }
  // The BI/BD tags' qualities too, where indel tables are counted.
  const std::string sam = f.inputs.file("bi.sam");
  const auto text = run_command("samtools view -h " + shell_quote(test::data_path(kBam)));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::ostringstream tagged;
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("@")) {  // every read's last BI quality a space (a valid Z character)
      std::size_t bases = 0;       // where SEQ, the tenth field, starts
      for (int field = 0; field < 9; ++field) bases = line.find('\t', bases) + 1;
      const std::size_t length = line.find('\t', bases) - bases;
      line += "\tBI:Z:" + std::string(length - 1, 'I') + " ";
    }
    tagged << line << "\n";
  }
  std::ofstream(sam) << tagged.str();
  expect_clean_failure("bqsr -I " + shell_quote(sam) + " -R " + ref + " --known-sites " + sites +
                           " --compute-indel-bqsr-tables -O " +
                           shell_quote(f.outputs.file("t.table")),
                       " has a BI tag with a character that is not a quality (32)", f);
  const auto sorted = run_command(shell_quote(test::binary_path()) + " " + sort_args(bam, f));
  EXPECT_EQ(sorted.exit_code, 0) << sorted.err;
}

// A read base '=' (SAM's "equal to the reference") is an error for the caller, as GATK's
// HaplotypeCaller's BaseUtils makes it; the message names the file, and `run`, which finds it
// only while calling, leaves none of its outputs (its BAM is complete by then).
TEST(Errors, ReadBaseEqualsSignIsRefusedByTheCallerNamingTheFile) {
  Failure f;
  const std::string sam = f.inputs.file("eq.sam");
  const std::string bam = f.inputs.file("eq.bam");
  const auto text = run_command("samtools view -h " + shell_quote(test::data_path(kBam)));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::ofstream(sam) << text.out << "eq1\t0\tchr22\t3220\t60\t70M\t*\t0\t0\t"
                     << std::string(70, '=') << "\t" << std::string(70, 'I') << "\tRG:Z:1\n";
  ASSERT_EQ(run_command("samtools sort -o " + shell_quote(bam) + " " + shell_quote(sam) +
                        " && samtools index " + shell_quote(bam))
                .exit_code,
            0);
  const std::string ref = shell_quote(test::data_path("nfcore_chr22_40kb/genome.fasta"));
  const std::string message =
      bam + ": read eq1: non-standard, non-IUPAC base '=' in the read bases";
  expect_clean_failure(
      "call -I " + shell_quote(bam) + " -R " + ref + " -O " + shell_quote(f.outputs.file("o.vcf")),
      message, f);
  expect_clean_failure("run " + shell_quote(bam) + " -R " + ref + " --known-sites " +
                           shell_quote(test::data_path("nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz")) +
                           " -o " + shell_quote(f.outputs.path().string()),
                       message, f);
  expect_clean_failure("run " + shell_quote(bam) + " -R " + ref + " -o " +
                           shell_quote(f.outputs.path().string()) + " --max-memory 256K",
                       message, f);
}

// A BAM record whose reference index, mate reference index or position is out of range, or whose
// CIGAR does not cover its sequence, is refused with a message naming the file, as samtools does
// (the reference index used to crash the index builder).
TEST(Errors, BamRecordFieldsOutOfRange) {
  Failure f;
  const std::string bam = test::data_path(kBam);
  std::string raw;
  {
    gzFile in = gzopen(bam.c_str(), "rb");
    ASSERT_NE(in, nullptr);
    char buffer[65536];
    for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) raw.append(buffer, n);
    gzclose(in);
  }
  const std::size_t record = first_record_offset(raw);
  struct Patch {
    std::size_t field;
    std::int32_t value;
    const char* message;
  };
  for (const Patch& patch :
       {Patch{4, 99, "reference index out of range"}, Patch{4, -7, "reference index out of range"},
        Patch{24, 1000, "mate reference index out of range"}, Patch{8, -5, "position out of range"},
        Patch{0, 0, "CIGAR and sequence lengths differ"}}) {
    std::string damaged = raw;
    if (patch.field == 0) {  // the first CIGAR operation three bases shorter than it is
      const std::size_t cigar = record + 36 + static_cast<unsigned char>(damaged[record + 12]);
      std::uint32_t element;
      std::memcpy(&element, damaged.data() + cigar, 4);
      ASSERT_GT(element >> 4, 3u);
      element -= 3u << 4;
      std::memcpy(damaged.data() + cigar, &element, 4);
    } else {
      std::memcpy(damaged.data() + record + patch.field, &patch.value, 4);
    }
    const std::string path = f.inputs.file("bad.bam");
    {
      std::ofstream out(f.inputs.file("bad"), std::ios::binary);
      out << damaged;
    }
    ASSERT_EQ(run_command("bgzip -f " + shell_quote(f.inputs.file("bad")) + " && mv " +
                          shell_quote(f.inputs.file("bad.gz")) + " " + shell_quote(path))
                  .exit_code,
              0);
    expect_clean_failure(
        sort_args(path, f),
        std::string("bad.bam: corrupt BAM record 1 of this batch (") + patch.message + ")", f);
  }
}

// SIGTERM while markdup writes its BAM (its temporary file exists): the process ends by the
// signal and leaves nothing in the output directory, neither the temporary BAM nor the metrics,
// which appear only with the BAM.
// SIGTERM, and SIGKILL, which no handler sees, while the output is being written: nothing is
// left, because the output is an unnamed file (O_TMPFILE) until it is complete.
TEST(Errors, SigtermAndSigkillLeaveNoOutput) {
  Failure f;
  const std::string bam = f.inputs.file("big.bam");
  ASSERT_NO_FATAL_FAILURE(generate_bam(bam, 300000, "--seed 5"));
  const std::string out = f.outputs.path().string();
  // SIGKILL leaves nothing only where the file system has unnamed files (O_TMPFILE).
  const int probe = ::open(out.c_str(), O_TMPFILE | O_RDWR, 0600);
  const bool unnamed_files = probe >= 0;
  if (unnamed_files) ::close(probe);
  for (const int signal : {15, 9}) {
    if (signal == 9 && !unnamed_files) {
      std::cout << "SIGKILL not tried: " << out << " has no O_TMPFILE\n";
      continue;
    }
    // Signalled once one of its descriptors is a file of the output directory (the unnamed
    // output: "<dir>/#<inode> (deleted)"; or a named temporary where O_TMPFILE is not supported).
    const std::string script =
        shell_quote(test::binary_path()) + " markdup --threads 1 --verbosity ERROR -I " +
        shell_quote(bam) + " -O " + shell_quote(out + "/out.bam") + " -M " +
        shell_quote(out + "/metrics.txt") + " & pid=$!; i=0; while [ $i -lt 3000 ] && ! ls -l " +
        "/proc/$pid/fd 2>/dev/null | grep -q -- '-> " + out + "/'; do sleep 0.01; i=$((i+1)); " +
        "done; kill -" + std::to_string(signal) + " $pid; wait $pid";
    const auto r = run_command("sh -c " + shell_quote(script));
    EXPECT_EQ(r.exit_code, 128 + signal) << r.err;  // ended by the signal, while writing
    EXPECT_TRUE(f.outputs.entries().empty()) << "signal " << signal;
  }
  // `run -o` into directories it makes: a SIGTERM while it writes removes them too.
  const std::string deep = out + "/new/deep";
  const std::string script =
      shell_quote(test::binary_path()) + " run --threads 1 --verbosity ERROR " + shell_quote(bam) +
      " -R " + shell_quote(test::data_path("nfcore_chr22_40kb/genome.fasta")) + " -o " +
      shell_quote(deep) + " --prefix s & pid=$!; i=0; while [ $i -lt 3000 ] && ! ls -l " +
      "/proc/$pid/fd 2>/dev/null | grep -q -- '-> " + deep + "/'; do sleep 0.01; i=$((i+1)); " +
      "done; kill -15 $pid; wait $pid";
  const auto r = run_command("sh -c " + shell_quote(script));
  EXPECT_EQ(r.exit_code, 128 + 15) << r.err;
  EXPECT_TRUE(f.outputs.entries().empty()) << "run -o left its directories";
}

}  // namespace
}  // namespace gpp::pipeline
