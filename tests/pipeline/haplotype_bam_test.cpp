// Tests of the haplotype BAM (`call --bam-output`, GATK's -bamout, Parabricks'
// --htvc-bam-output):
//  - the output layer against GATK's HaplotypeBAMWriterUnitTest golden (testSAM.sam: four reads
//    and an ALL_POSSIBLE_HAPLOTYPES haplotype on an artificial header, its records ported here);
//  - `call` on NA12878: a valid, sorted, indexed BAM whose haplotype records carry every called
//    SNP's alternate base (checked against the VCF through the records' own CIGARs), reads from
//    the input with the caller's tags, the calls unchanged, each writer type's records, the same
//    bytes at any thread count and from the GPU backend.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/cigar.hpp"
#include "io/reads/header.hpp"
#include "pipeline/haplotype_bam_output.hpp"
#include "tests/pipeline/na12878_truth.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) out.push_back(f);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// HaplotypeBAMWriterUnitTest.testWriteToSAMFile: ArtificialReadUtils' header of 20 contigs of
// 1000 bases and three programs, reads READ_<sample>_<i> (100 A's, qualities 'b', at 2:1, 100M)
// and the haplotype ACTGAAGGTTCC (12M) at 20:10, written by ALL_POSSIBLE_HAPLOTYPES without a
// callable region.
TEST(HaplotypeBam, OutputMatchesGatksWriterGolden) {
  std::string source_text = "@HD\tVN:1.6\n";
  for (int c = 1; c <= 20; ++c) source_text += "@SQ\tSN:" + std::to_string(c) + "\tLN:1000\n";
  source_text +=
      "@PG\tID:0\tCL:run 0\tVN:1.0\tPN:Program0\n"
      "@PG\tID:1\tCL:run 1\tVN:1.0\tPP:0\tPN:Program1\n"
      "@PG\tID:2\tCL:run 2\tVN:1.0\tPP:1\tPN:Program2\n";
  const io::Header source = io::Header::from_text(source_text);
  test::TempDir dir;
  const std::string path = dir.file("out.sam");
  HaplotypeBamOutput output(path, source, stages::call::BamWriterType::kAllPossibleHaplotypes);
  std::vector<stages::call::HaplotypeBamRecord> records;
  stages::call::Haplotype haplotype;
  haplotype.bases = "ACTGAAGGTTCC";
  haplotype.cigar = {cigar_element(CigarOp::kMatch, 12)};
  records.push_back(stages::call::haplotype_bam_record(haplotype, 19, 9, "", 0));
  for (const char* name : {"READ_0_0", "READ_0_1", "READ_1_0", "READ_1_1"}) {
    stages::call::HaplotypeBamRecord read;
    read.read.name = name;
    read.read.contig = 1;
    read.read.start = 0;
    read.read.cigar = {cigar_element(CigarOp::kMatch, 100)};
    read.read.bases = std::string(100, 'A');
    read.read.quals.assign(100, 'b' - 33);
    records.push_back(std::move(read));
  }
  output.add(std::move(records), 0);
  output.commit();
  std::string expected = "@HD\tVN:1.6\tSO:coordinate\n";
  for (int c = 1; c <= 20; ++c) expected += "@SQ\tSN:" + std::to_string(c) + "\tLN:1000\n";
  expected +=
      "@RG\tID:ArtificialHaplotypeRG\tSM:HC\tCN:BI\n"  // GATK's test names it TestHaplotypeRG
      "@PG\tID:0\tCL:run 0\tVN:1.0\tPN:Program0\n"
      "@PG\tID:1\tCL:run 1\tVN:1.0\tPP:0\tPN:Program1\n"
      "@PG\tID:2\tCL:run 2\tVN:1.0\tPP:1\tPN:Program2\n"
      "@PG\tID:HaplotypeBAMWriter\n";
  for (const char* name : {"READ_0_0", "READ_0_1", "READ_1_0", "READ_1_1"}) {
    expected += std::string(name) + "\t0\t2\t1\t0\t100M\t*\t0\t0\t" + std::string(100, 'A') + "\t" +
                std::string(100, 'b') + "\n";
  }
  expected +=
      "HC_1_0\t16\t20\t10\t60\t12M\t*\t0\t0\tACTGAAGGTTCC\tBBBBBBBBBBBB\tHC:i:1835413366\t"
      "RG:Z:ArtificialHaplotypeRG\n";
  EXPECT_EQ(test::read_file(path), expected);
}

// Records are held until no later region can sort before them, a write at a time: with one
// record a write, regions that overlap, ties across regions (htsjdk's comparator: strand, then
// name) and a change of contig still come out in htsjdk's order, arrivals breaking full ties.
TEST(HaplotypeBam, RecordsAreReleasedInCoordinateOrderAsRegionsPass) {
  const io::Header source =
      io::Header::from_text("@HD\tVN:1.6\n@SQ\tSN:c1\tLN:1000\n@SQ\tSN:c2\tLN:1000\n");
  test::TempDir dir;
  const std::string path = dir.file("out.sam");
  HaplotypeBamOutput output(path, source, stages::call::BamWriterType::kNoHaplotypes, {}, {}, 1);
  const auto read = [](const std::string& name, std::int32_t contig, std::int64_t start,
                       std::uint16_t flag = 0) {
    stages::call::HaplotypeBamRecord record;
    record.read.name = name;
    record.read.contig = contig;
    record.read.start = start;
    record.read.flag = flag;
    record.read.cigar = {cigar_element(CigarOp::kMatch, 4)};
    record.read.bases = "ACGT";
    record.read.quals.assign(4, 30);
    return record;
  };
  using Records = std::vector<stages::call::HaplotypeBamRecord>;
  output.add(Records{read("r120", 0, 120), read("b100", 0, 100), read("rev100", 0, 100, 16)}, 50);
  output.add(Records{read("a100", 0, 100), read("r95", 0, 95), read("dup", 0, 300)}, 90);
  output.add(Records{read("dup", 0, 300), read("r200", 0, 200), read("r250", 0, 250)}, 150);
  output.add(Records{read("r310", 0, 310), read("r305", 0, 305)}, 280);
  output.add(Records{read("c2_5", 1, 5), read("c2_1", 1, 1)}, 0);
  output.commit();
  std::vector<std::string> names;
  for (const std::string& line : lines_of(test::read_file(path))) {
    if (line.empty() || line[0] == '@') continue;
    names.push_back(fields(line)[0]);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"r95", "a100", "b100", "rev100", "r120", "r200", "r250",
                                      "dup", "dup", "r305", "r310", "c2_1", "c2_5"}));
  EXPECT_EQ(output.records_written(), 13u);
}

std::string na12878_call(const std::string& options, const std::string& vcf,
                         const std::string& bam) {
  const auto r = run_command(shell_quote(test::binary_path()) + " call --verbosity ERROR -I " +
                             shell_quote(test::na12878::bam()) + " -R " +
                             shell_quote(test::na12878::reference()) + " -O " + shell_quote(vcf) +
                             (bam.empty() ? "" : " -bamout " + shell_quote(bam)) + options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.err;
}

std::string vcf_records(const std::string& vcf) {
  return run_command("grep -v '^##gpu-pipelineCommand' " + shell_quote(vcf)).out;
}

std::string sam_records(const std::string& bam) {
  const auto r = run_command("samtools view " + shell_quote(bam));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

/// The base a record places at 1-based `position` (its CIGAR walked from its start), or 0.
char base_at(const std::vector<std::string>& record, std::int64_t position) {
  std::int64_t ref = std::stoll(record[3]);
  std::size_t query = 0;
  const std::string& cigar = record[5];
  std::size_t i = 0;
  while (i < cigar.size()) {
    std::size_t used = 0;
    const std::int64_t length = std::stoll(cigar.substr(i), &used);
    const char op = cigar[i + used];
    i += used + 1;
    if (op == 'M' || op == '=' || op == 'X') {
      if (position >= ref && position < ref + length) {
        return record[9][query + static_cast<std::size_t>(position - ref)];
      }
      ref += length;
      query += static_cast<std::size_t>(length);
    } else if (op == 'I' || op == 'S') {
      query += static_cast<std::size_t>(length);
    } else if (op == 'D' || op == 'N') {
      ref += length;
    }
  }
  return 0;
}

TEST(HaplotypeBam, CallWritesCalledHaplotypesAndRealignedReads) {
  test::TempDir dir;
  const std::string bam = dir.file("hc.bam");
  na12878_call(" --device cpu", dir.file("with.vcf"), bam);
  na12878_call(" --device cpu", dir.file("without.vcf"), "");
  // The calls do not change.
  EXPECT_EQ(vcf_records(dir.file("with.vcf")), vcf_records(dir.file("without.vcf")));
  EXPECT_EQ(run_command("samtools quickcheck " + shell_quote(bam)).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(bam + ".bai"));
  const std::string header = run_command("samtools view -H " + shell_quote(bam)).out;
  EXPECT_EQ(header.rfind("@HD\tVN:1.6\tSO:coordinate\n", 0), 0u) << header;
  EXPECT_NE(header.find("@RG\tID:NA12878\tSM:NA12878\n"), std::string::npos);
  EXPECT_NE(header.find("@RG\tID:ArtificialHaplotypeRG\tSM:HC\tCN:BI\n"), std::string::npos);
  EXPECT_NE(header.find("@PG\tID:HaplotypeBAMWriter\n"), std::string::npos);

  // Records in coordinate order, haplotypes named in sequence with their tags.
  std::int64_t last_position = 0;
  std::set<std::string> input_names;
  for (const std::string& name : lines_of(
           run_command("samtools view " + shell_quote(test::na12878::bam()) + " | cut -f 1").out)) {
    input_names.insert(name);
  }
  std::vector<std::vector<std::string>> haplotypes;
  std::size_t reads = 0, tagged_reads = 0, supporting_reads = 0;
  for (const std::string& line : lines_of(sam_records(bam))) {
    const std::vector<std::string> f = fields(line);
    ASSERT_GE(f.size(), 11u);
    const std::int64_t position = std::stoll(f[3]);
    EXPECT_GE(position, last_position) << line;
    last_position = position;
    if (f[0].rfind("HC_", 0) == 0) {
      EXPECT_EQ(f[1], "16");
      EXPECT_EQ(f[4], "60");
      EXPECT_EQ(f[10], std::string(f[9].size(), 'B'));
      EXPECT_EQ(f[11].rfind("HC:i:", 0), 0u) << line;
      EXPECT_EQ(f[12], "RG:Z:ArtificialHaplotypeRG");
      EXPECT_EQ(f[13].rfind("CR:Z:chr20:", 0), 0u) << line;
      haplotypes.push_back(f);
    } else {
      ++reads;
      EXPECT_EQ(input_names.count(f[0]), 1u) << f[0];
      EXPECT_NE(line.find("\tRG:Z:NA12878"), std::string::npos) << line;
      EXPECT_NE(line.find("\tAR:Z:chr20:"), std::string::npos) << line;
      EXPECT_NE(line.find("\tCR:Z:chr20:"), std::string::npos) << line;
      tagged_reads += line.find("\tHC:i:") != std::string::npos;
      // htsjdk writes the tags sorted by their binary tag: second character, then first.
      for (std::size_t t = 12; t < f.size(); ++t) {
        const auto key = [](const std::string& field) {
          return std::make_pair(field[1], field[0]);
        };
        EXPECT_LT(key(f[t - 1]), key(f[t])) << line;
      }
      supporting_reads += line.find("\tXA:Z:chr20:") != std::string::npos;
    }
  }
  // Haplotype names count up from 1 in the order the regions were called.
  std::set<std::string> names;
  for (const auto& h : haplotypes) names.insert(h[0]);
  EXPECT_EQ(names.size(), haplotypes.size());
  EXPECT_GT(haplotypes.size(), 247u);  // at least the reference and one alternate per region
  EXPECT_GT(reads, 5000u);
  EXPECT_GT(tagged_reads, reads / 4);  // informative for one haplotype: near a variant
  EXPECT_GT(supporting_reads, reads / 2);

  // Every called SNP's alternate base is on a haplotype record covering it.
  std::size_t snps = 0;
  for (const std::string& line : lines_of(vcf_records(dir.file("with.vcf")))) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = fields(line);
    if (f[3].size() != 1 || f[4].size() != 1) continue;
    ++snps;
    const std::int64_t position = std::stoll(f[1]);
    bool carried = false;
    for (const auto& h : haplotypes) carried = carried || base_at(h, position) == f[4][0];
    EXPECT_TRUE(carried) << line;
  }
  EXPECT_GT(snps, 180u);
}

TEST(HaplotypeBam, WriterTypesChooseTheRecords) {
  test::TempDir dir;
  const auto records_of_type = [&](const std::string& type) {
    const std::string bam = dir.file(type + ".bam");
    na12878_call(" --device cpu --bam-writer-type " + type, dir.file(type + ".vcf"), bam);
    return lines_of(sam_records(bam));
  };
  const auto count = [](const std::vector<std::string>& records, bool haplotypes) {
    std::size_t n = 0;
    for (const std::string& r : records) n += (r.rfind("HC_", 0) == 0) == haplotypes;
    return n;
  };
  const auto called = records_of_type("CALLED_HAPLOTYPES");
  const auto no_reads = records_of_type("CALLED_HAPLOTYPES_NO_READS");
  const auto all = records_of_type("ALL_POSSIBLE_HAPLOTYPES");
  const auto no_haplotypes = records_of_type("NO_HAPLOTYPES");
  EXPECT_EQ(count(no_reads, true), count(called, true));
  EXPECT_EQ(count(no_reads, false), 0u);
  EXPECT_GE(count(all, true), count(called, true));
  EXPECT_GE(count(all, false), count(called, false));  // also regions without a call
  EXPECT_EQ(count(no_haplotypes, true), 0u);
  EXPECT_EQ(count(no_haplotypes, false), count(all, false));
  EXPECT_EQ(run_command("samtools view -H " + shell_quote(dir.file("NO_HAPLOTYPES.bam")) +
                        " | grep -c ArtificialHaplotypeRG")
                .out,
            "0\n");
}

TEST(HaplotypeBam, SameRecordsAtAnyThreadCount) {
  test::TempDir dir;
  na12878_call(" --device cpu --threads 1", dir.file("one.vcf"), dir.file("one.bam"));
  na12878_call(" --device cpu --threads 2", dir.file("two.vcf"), dir.file("two.bam"));
  EXPECT_TRUE(sam_records(dir.file("one.bam")) == sam_records(dir.file("two.bam")));
}

TEST(HaplotypeBam, OutputMayNotBeTheInput) {
  test::TempDir dir;
  const auto r = run_command(
      shell_quote(test::binary_path()) + " call -I " + shell_quote(test::na12878::bam()) + " -R " +
      shell_quote(test::na12878::reference()) + " -O " + shell_quote(dir.file("x.vcf")) +
      " -bamout " + shell_quote(test::na12878::bam()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.vcf")));
}

// `run --bam-output` (Parabricks' germline --htvc-bam-output): the records `call -bamout` writes
// from run's own BAM.
TEST(HaplotypeBam, RunWritesWhatCallWritesFromItsBam) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string reference = " -R " + shell_quote(test::data_path(d + "genome.fasta"));
  const auto r =
      run_command(shell_quote(test::binary_path()) + " run " +
                  shell_quote(test::data_path(d + "test.paired_end.sorted.bam")) + reference +
                  " --known-sites " + shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) +
                  " --verbosity ERROR -o " + shell_quote(dir.path().string()) +
                  " --prefix s --bam-output " + shell_quote(dir.file("run.hc.bam")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = run_command(shell_quote(test::binary_path()) + " call --verbosity ERROR -I " +
                             shell_quote(dir.file("s.md.bqsr.bam")) + reference + " -O " +
                             shell_quote(dir.file("call.vcf")) + " --htvc-bam-output " +
                             shell_quote(dir.file("call.hc.bam")));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string records = sam_records(dir.file("run.hc.bam"));
  EXPECT_GT(lines_of(records).size(), 100u);
  EXPECT_TRUE(records == sam_records(dir.file("call.hc.bam")));
}

using HaplotypeBamGpu = ::gpp::test::GpuTest;

TEST_F(HaplotypeBamGpu, GpuRecordsEqualCpuRecords) {
  test::TempDir dir;
  na12878_call(" --device cpu", dir.file("cpu.vcf"), dir.file("cpu.bam"));
  na12878_call(" --device gpu", dir.file("gpu.vcf"), dir.file("gpu.bam"));
  EXPECT_TRUE(sam_records(dir.file("cpu.bam")) == sam_records(dir.file("gpu.bam")));
}

}  // namespace
}  // namespace gpp::pipeline
