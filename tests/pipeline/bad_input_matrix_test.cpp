// Every malformed input through every command that reads its kind: alignments through sort,
// markdup, bqsr, applybqsr, call and run; known sites, intervals, references and recalibration
// tables (the corpus tests/data/bad/ with its expected_messages.tsv) through bqsr, applybqsr,
// call and run. Each ends with the same one-line error naming the file, exit code 1 and no output
// left, whatever the command does with the file afterwards.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

const std::string kDir = "nfcore_chr22_40kb/";

std::string data(const std::string& name) { return test::data_path(kDir + name); }

std::string inflated(const std::string& bam) {
  std::string raw;
  gzFile in = gzopen(bam.c_str(), "rb");
  char buffer[65536];
  for (int n; in != nullptr && (n = gzread(in, buffer, sizeof buffer)) > 0;) raw.append(buffer, n);
  if (in != nullptr) gzclose(in);
  return raw;
}

std::uint32_t load32(const std::string& raw, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, raw.data() + at, 4);
  return v;
}

std::size_t first_record(const std::string& raw) {
  std::size_t at = 8 + load32(raw, 4);
  const std::uint32_t n_ref = load32(raw, at);
  at += 4;
  for (std::uint32_t r = 0; r < n_ref; ++r) at += 4 + load32(raw, at) + 4;
  return at;
}

struct BadInput {
  std::string name;     // file name in the inputs directory
  std::string message;  // what follows "<path>: " in the error
};

/// Writes `bytes` BGZF-compressed (bgzip) to `path`.
void write_bgzf(const std::string& path, const std::string& bytes) {
  std::ofstream(path + ".raw", std::ios::binary) << bytes;
  ASSERT_EQ(run_command("bgzip -f " + shell_quote(path + ".raw") + " && mv " +
                        shell_quote(path + ".raw.gz") + " " + shell_quote(path))
                .exit_code,
            0);
}

/// The malformed inputs, made from the real test BAM (so that every command gets past the header:
/// read groups, contigs of the reference) and written into `dir`.
std::vector<BadInput> make_bad_inputs(const test::TempDir& dir) {
  std::vector<BadInput> bad;
  const std::string bam = data("test.paired_end.sorted.bam");
  const std::string raw = inflated(bam);
  const std::size_t record = first_record(raw);
  struct Patch {
    const char* name;
    std::size_t field;
    std::int32_t value;
    const char* message;
  };
  for (const Patch& p : {Patch{"refid_too_large.bam", 4, 99, "reference index out of range"},
                         Patch{"refid_negative.bam", 4, -7, "reference index out of range"},
                         Patch{"mate_refid.bam", 24, 1000, "mate reference index out of range"},
                         Patch{"position.bam", 8, -5, "position out of range"}}) {
    std::string damaged = raw;
    std::memcpy(damaged.data() + record + p.field, &p.value, 4);
    write_bgzf(dir.file(p.name), damaged);
    bad.push_back({p.name, std::string("corrupt BAM record 1 of this batch (") + p.message + ")"});
  }
  {  // the first CIGAR operation three bases shorter than the sequence
    std::string damaged = raw;
    const std::size_t cigar = record + 36 + static_cast<unsigned char>(damaged[record + 12]);
    std::uint32_t element = load32(damaged, cigar) - (3u << 4);
    std::memcpy(damaged.data() + cigar, &element, 4);
    write_bgzf(dir.file("cigar.bam"), damaged);
    bad.push_back({"cigar.bam",
                   "corrupt BAM record 1 of this batch (CIGAR and sequence lengths "
                   "differ)"});
  }
  {  // cut in the middle of a BGZF block
    std::ifstream in(bam, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir.file("cut.bam"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    bad.push_back({"cut.bam", "the BGZF end-of-file marker is missing: the file is truncated"});
  }
  {  // bytes of no format
    std::string bytes(4000, '\0');
    std::mt19937 rng(11);
    for (char& c : bytes) c = static_cast<char>(rng());
    std::ofstream(dir.file("noise.bam"), std::ios::binary) << bytes;
    bad.push_back({"noise.bam", "not a SAM, BAM or CRAM file"});
  }
  {  // SAM whose third record has a position that is not a number
    const auto sam = run_command("samtools view -h " + shell_quote(bam) + " | head -n 40");
    std::string text = sam.out;
    std::size_t headers = 0, at = 0;
    for (; text[at] == '@'; at = text.find('\n', at) + 1) ++headers;
    for (int r = 0; r < 2; ++r) at = text.find('\n', at) + 1;  // the third record
    std::size_t pos = at;
    for (int field = 0; field < 3; ++field) pos = text.find('\t', pos) + 1;
    text.replace(pos, text.find('\t', pos) - pos, "x12");
    std::ofstream(dir.file("bad_pos.sam")) << text;
    bad.push_back({"bad_pos.sam", "truncated or corrupt SAM data at record 3 (line " +
                                      std::to_string(headers + 3) + ")"});
  }
  {  // a BGZF block that claims more than 64 KiB uncompressed (as the fuzzer's corpus file)
    std::ifstream in(bam, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t second_block =
        (static_cast<unsigned char>(bytes[16]) | static_cast<unsigned char>(bytes[17]) << 8) + 1u;
    const std::size_t block_size = (static_cast<unsigned char>(bytes[second_block + 16]) |
                                    static_cast<unsigned char>(bytes[second_block + 17]) << 8) +
                                   1u;
    const std::uint32_t claim = 0x20000;  // ISIZE, the block's last four bytes
    std::memcpy(bytes.data() + second_block + block_size - 4, &claim, 4);
    std::ofstream(dir.file("isize.bam"), std::ios::binary) << bytes;
    bad.push_back({"isize.bam", "corrupt BGZF block at byte " + std::to_string(second_block) +
                                    " (it claims 131072 uncompressed bytes; at most 65536)"});
  }
  return bad;
}

/// Runs `command` ({in} and {out} filled in) and expects exactly "<named>: <message>" (up to a
/// final *) as its one line of error, exit code 1 and nothing in the output directory.
void expect_refused(std::string command, const std::string& input, const std::string& named,
                    const std::string& message, const std::string& what) {
  test::TempDir out;
  command.replace(command.find("{in}"), 4, shell_quote(input));
  for (std::size_t at; (at = command.find("{out}")) != std::string::npos;) {
    command.replace(at, 5, shell_quote(out.path().string()));
  }
  const auto r =
      run_command(shell_quote(test::binary_path()) + " " + command + " --verbosity ERROR");
  EXPECT_EQ(r.exit_code, 1) << what << "\n" << r.err;
  const std::string expected = "gpu-pipeline: error: " + named + ": " + message;
  if (message.ends_with('*')) {  // the rest depends on the host
    EXPECT_EQ(r.err.substr(0, expected.size() - 1), expected.substr(0, expected.size() - 1))
        << what;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\n" << r.err;
  } else {
    EXPECT_EQ(r.err, expected + "\n") << what;
  }
  EXPECT_TRUE(out.entries().empty()) << what << " left output behind";
}

TEST(BadInputMatrixConformance, EveryCommandRefusesEveryMalformedInputTheSameWay) {
  test::TempDir inputs;
  const std::vector<BadInput> bad = make_bad_inputs(inputs);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const std::string ref = shell_quote(data("genome.fasta"));
  const std::string sites = shell_quote(data("dbsnp_146.hg38.vcf.gz"));
  const std::vector<std::string> commands = {
      "sort -I {in} -O {out}/o.bam",
      "markdup -I {in} -O {out}/o.bam -M {out}/m.txt",
      "bqsr -I {in} -R " + ref + " --known-sites " + sites + " -O {out}/r.table",
      "applybqsr -I {in} --bqsr-recal-file " + shell_quote(data("test.baserecalibrator.table")) +
          " -O {out}/o.bam",
      "call -I {in} -R " + ref + " -O {out}/o.vcf.gz",
      "run {in} -R " + ref + " --known-sites " + sites + " -o {out}/run",
  };
  for (const BadInput& input : bad) {
    const std::string path = inputs.file(input.name);
    for (const std::string& command : commands) {
      expect_refused(command, path, path, input.message,
                     input.name + " through " + command.substr(0, command.find(' ')));
    }
  }
}

TEST(BadInputMatrixConformance, EveryCommandRefusesEveryMalformedGenomeInputTheSameWay) {
  const std::string bam = shell_quote(data("test.paired_end.sorted.bam"));
  const std::string ref = shell_quote(data("genome.fasta"));
  const std::string sites = shell_quote(data("dbsnp_146.hg38.vcf.gz"));
  const std::string table = shell_quote(data("test.baserecalibrator.table"));
  const std::map<std::string, std::vector<std::string>> commands_reading = {
      {"known_sites",
       {"bqsr -I " + bam + " -R " + ref + " --known-sites {in} -O {out}/r.table",
        "run " + bam + " -R " + ref + " --known-sites {in} -o {out}/run",
        "call -I " + bam + " -R " + ref + " --dbsnp {in} -O {out}/o.vcf.gz",
        "run " + bam + " -R " + ref + " --known-sites " + sites + " --dbsnp {in} -o {out}/run"}},
      {"intervals",
       {"bqsr -I " + bam + " -R " + ref + " --known-sites " + sites + " -L {in} -O {out}/r.table",
        "applybqsr -I " + bam + " --bqsr-recal-file " + table + " -L {in} -O {out}/o.bam",
        "call -I " + bam + " -R " + ref + " -L {in} -O {out}/o.vcf.gz",
        "run " + bam + " -R " + ref + " --known-sites " + sites + " -L {in} -o {out}/run"}},
      {"reference",
       {"bqsr -I " + bam + " -R {in} --known-sites " + sites + " -O {out}/r.table",
        "call -I " + bam + " -R {in} -O {out}/o.vcf.gz",
        "run " + bam + " -R {in} --known-sites " + sites + " -o {out}/run"}},
      {"recal_table",
       {"applybqsr -I " + bam + " --bqsr-recal-file {in} -O {out}/o.bam",
        "call -I " + bam + " -R " + ref + " --bqsr-recal-file {in} -O {out}/o.vcf.gz"}},
  };
  std::ifstream manifest(test::data_path("bad/expected_messages.tsv"));
  ASSERT_TRUE(manifest) << "bad/expected_messages.tsv";
  std::map<std::string, int> cases;
  for (std::string line; std::getline(manifest, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string kind, file, named, message;
    std::getline(fields, kind, '\t');
    std::getline(fields, file, '\t');
    std::getline(fields, named, '\t');
    std::getline(fields, message);
    ASSERT_TRUE(commands_reading.count(kind)) << line;
    const std::string path = test::data_path("bad/" + file);
    for (const std::string& command : commands_reading.at(kind)) {
      expect_refused(command, path, named == "=" ? path : test::data_path("bad/" + named), message,
                     file + " through " + command.substr(0, command.find(' ')));
    }
    ++cases[kind];
  }
  // The corpus covers each kind (a manifest read short would test nothing).
  EXPECT_EQ(cases["known_sites"], 5);
  EXPECT_EQ(cases["intervals"], 6);
  EXPECT_EQ(cases["reference"], 7);
  EXPECT_EQ(cases["recal_table"], 9);
}

}  // namespace
}  // namespace gpp::pipeline
