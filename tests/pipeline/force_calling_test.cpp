// `call --alleles` (GATK's force-calling) end to end on NA12878 (chr20:10.0-10.1 Mb) with GATK's
// own given-allele files (HaplotypeCallerIntegrationTest testForceCalling and
// testForceCallingNotProducingNoCalls, contig 20 renamed chr20). GATK's expected output for the
// second comes from another sequencing run of the sample, so its ordinary calls differ; at the
// sites the given alleles reach, the alleles and genotypes are compared with it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;
using test::split;

const std::string kDir = "real_na12878_chr20_hg19/";
const std::string kGolden = "gatk_golden/force_calling/";

struct Record {
  std::string pos, ref, alt, qual, filter, gt;
};

/// POS -> the record there (one per position in these outputs), from a plain-text VCF.
std::map<std::string, Record> records_of(const std::string& vcf) {
  std::map<std::string, Record> records;
  std::ifstream in(vcf);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, '\t');
    const std::string gt = f.size() > 9 ? split(f[9], ':').front() : "";
    records[f[1]] = {f[1], f[3], f[4], f[5], f[6], gt};
  }
  return records;
}

/// `from` with each line passed through `edit`, to `to`.
template <typename Edit>
void write_edited(const std::string& from, const std::string& to, const Edit& edit) {
  std::ifstream in(from);
  std::ofstream out(to);
  for (std::string line; std::getline(in, line);) out << edit(line) << '\n';
}

class ForceCalling : public ::testing::Test {
 protected:
  test::CommandResult call(const std::string& out, const std::string& args) {
    return run_command(
        shell_quote(test::binary_path()) + " call -I " +
        shell_quote(test::data_path(kDir + "NA12878_S1.chr20.10_10p1mb.bam")) + " -R " +
        shell_quote(test::data_path(kDir + "ucsc.hg19.chr20.unittest.fasta.gz")) + " -O " +
        shell_quote(dir.file(out)) + " --device cpu --verbosity ERROR " + args);
  }
  static std::string given(const std::string& name) {
    return shell_quote(test::data_path(kGolden + name));
  }
  test::TempDir dir;
};

TEST_F(ForceCalling, GivenSitesGetTheAllelesAndGenotypesOfGatk) {
  const std::string options =
      "-L chr20:10000000-10010000 --standard-min-confidence-threshold-for-calling 1000";
  ASSERT_EQ(call("forced.vcf", options + " --alleles " + given("given_alleles.vcf")).exit_code, 0);
  ASSERT_EQ(call("plain.vcf", options).exit_code, 0);
  const auto forced = records_of(dir.file("forced.vcf"));
  const auto plain = records_of(dir.file("plain.vcf"));
  const auto gatk =
      records_of(test::data_path(kGolden + "expected.testForceCallingNotProducingNoCalls.vcf"));
  // The given sites, and 10004193 G>T: forced by the given A>T at 10004094 (the rule compares
  // ALTs and length changes, not positions). Six of them are below the threshold of 1000 here.
  for (const std::string pos : {"10000694", "10001436", "10001661", "10004094", "10004193",
                                "10004769", "10004771", "10006819", "10006823", "10008738"}) {
    ASSERT_TRUE(forced.count(pos)) << pos;
    const Record& ours = forced.at(pos);
    const Record& theirs = gatk.at(pos);
    EXPECT_EQ(ours.ref, theirs.ref) << pos;
    EXPECT_EQ(ours.alt, theirs.alt) << pos;
    EXPECT_EQ(ours.gt, theirs.gt) << pos;
  }
  // Unsupported: GATK's 0/0 record (QUAL Infinity at 47 reads; finite at this depth).
  EXPECT_EQ(forced.at("10008738").gt, "0/0");
  EXPECT_EQ(forced.at("10004193").filter, "LowQual");
  EXPECT_FALSE(plain.count("10004193") || plain.count("10008738") || plain.count("10000694"));
  // Every call made without them is still made, its ALTs first.
  for (const auto& [pos, record] : plain) {
    ASSERT_TRUE(forced.count(pos)) << pos;
    EXPECT_EQ(forced.at(pos).ref, record.ref) << pos;
    EXPECT_EQ(forced.at(pos).alt.rfind(record.alt, 0), 0u) << pos;
  }
}

/// GATK's testForceCalling check: every ALT with bases of every given record is among the ALTs of
/// the output record at its start.
void expect_given_alts_called(const std::string& alleles_vcf, const std::string& output) {
  const auto calls = records_of(output);
  std::ifstream in(alleles_vcf);
  int checked = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, '\t');
    for (const std::string& alt : split(f[4], ',')) {
      if (alt.empty() || std::string("ACGTN").find(alt[0]) == std::string::npos) continue;
      ASSERT_TRUE(calls.count(f[1])) << alleles_vcf << ": nothing at " << f[1];
      const std::vector<std::string> alts = split(calls.at(f[1]).alt, ',');
      EXPECT_NE(std::find(alts.begin(), alts.end(), alt), alts.end())
          << alleles_vcf << ": " << f[1] << " " << alt << " not in " << calls.at(f[1]).alt;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST_F(ForceCalling, EveryGivenAlleleIsCalledAtItsStartInVcfAndGvcf) {
  for (const auto& [name, interval] : std::vector<std::pair<std::string, std::string>>{
           {"given_alleles.vcf", "chr20:10000000-10010000"},
           {"gga_mode.vcf", "chr20:9998500-10010000"},
           {"extreme_length_deletion.vcf", "chr20:9998500-10010000"}}) {
    for (const std::string mode : {"", " -ERC GVCF"}) {
      const std::string out = "out.vcf";
      const auto r = call(out, "-L " + interval + mode + " --alleles " + given(name));
      ASSERT_EQ(r.exit_code, 0) << name << mode << r.err;
      expect_given_alts_called(test::data_path(kGolden + name), dir.file(out));
    }
  }
}

TEST_F(ForceCalling, FilteredRecordsAreForcedOnlyWithTheFlag) {
  // The given G>A at 10000694 (a het below QUAL 1000 here), FILTER LowQual.
  const std::string alleles = dir.file("filtered.vcf");
  write_edited(test::data_path(kGolden + "given_alleles.vcf"), alleles, [](std::string line) {
    std::vector<std::string> f = split(line, '\t');
    if (f.size() < 8 || f[1] != "10000694") return line;
    f[6] = "LowQual";
    std::string edited = f[0];
    for (std::size_t i = 1; i < f.size(); ++i) edited += "\t" + f[i];
    return edited;
  });
  const std::string options =
      "-L chr20:10000000-10010000 --standard-min-confidence-threshold-for-calling 1000 --alleles " +
      shell_quote(alleles);
  ASSERT_EQ(call("unforced.vcf", options).exit_code, 0);
  ASSERT_EQ(call("forced.vcf", options + " --genotype-filtered-alleles").exit_code, 0);
  EXPECT_FALSE(records_of(dir.file("unforced.vcf")).count("10000694"));
  EXPECT_TRUE(records_of(dir.file("unforced.vcf")).count("10004094"));
  EXPECT_EQ(records_of(dir.file("forced.vcf")).at("10000694").alt, "A");
}

TEST_F(ForceCalling, AllelesOnOtherContigNamesAreAnError) {
  const std::string alleles = dir.file("b37.vcf");
  write_edited(test::data_path(kGolden + "given_alleles.vcf"), alleles, [](std::string line) {
    if (line.rfind("chr20\t", 0) == 0) return line.substr(3);
    const std::size_t at = line.find("ID=chr20");
    return at == std::string::npos ? line : line.replace(at + 3, 3, "");
  });
  const auto r = call("out.vcf", "--alleles " + shell_quote(alleles));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("b37.vcf: no contig in common"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir.file("out.vcf")).good());
}

}  // namespace
}  // namespace gpp::pipeline
