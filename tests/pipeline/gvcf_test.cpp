// gpu-pipeline call in reference-confidence mode end to end, on the real NA12878 region: every
// base covered once, blocks within one GQ band (checked against the per-base records of
// BP_RESOLUTION), the variants of VCF mode (GATK's rule, gatk#5676), bcftools reading, converting
// and merging the gVCF, determinism across thread counts, `run --gvcf`, and GPU = CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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
const std::string kInterval = "chr20:10000000-10100000";
constexpr std::int64_t kFirst = 10000000, kLast = 10100000;

std::string na12878_bam() { return test::data_path(kDir + "NA12878_S1.chr20.10_10p1mb.bam"); }
std::string hg19_chr20() { return test::data_path(kDir + "ucsc.hg19.chr20.unittest.fasta.gz"); }

test::CommandResult call(const std::string& args) {
  return run_command(shell_quote(test::binary_path()) + " call -R " + shell_quote(hg19_chr20()) +
                     " " + args + " --verbosity WARNING");
}

/// Calls the NA12878 region into `out` with the extra arguments.
void call_region(const std::string& out, const std::string& extra) {
  const auto r = call("-I " + shell_quote(na12878_bam()) + " -L " + kInterval + " -O " +
                      shell_quote(out) + " " + extra);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

struct Record {
  std::int64_t pos = 0;  ///< 1-based
  std::int64_t end = 0;  ///< INFO END, or POS + len(REF) - 1
  std::string ref;
  std::vector<std::string> alts;
  double qual = -1;  ///< -1 for '.'
  bool block = false;
  std::map<std::string, std::string> sample;  ///< FORMAT key -> value
};

std::vector<Record> read_records(const std::string& vcf) {
  const auto r = run_command("bgzip -dc " + shell_quote(vcf) + " | grep -v '^#'");
  std::vector<Record> records;
  for (const std::string& line : split(r.out, '\n')) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() < 10) continue;
    Record rec;
    rec.pos = std::stoll(f[1]);
    rec.ref = f[3];
    rec.alts = split(f[4], ',');
    rec.qual = f[5] == "." ? -1 : std::stod(f[5]);
    rec.end = rec.pos + static_cast<std::int64_t>(rec.ref.size()) - 1;
    for (const std::string& info : split(f[7], ';')) {
      if (info.rfind("END=", 0) == 0) {
        rec.end = std::stoll(info.substr(4));
        rec.block = true;
      }
    }
    const std::vector<std::string> keys = split(f[8], ':'), values = split(f[9], ':');
    for (std::size_t k = 0; k < keys.size() && k < values.size(); ++k) {
      rec.sample[keys[k]] = values[k];
    }
    records.push_back(rec);
  }
  return records;
}

/// GATK's default GQ bands: [g, g+1) below 60, then [60,70) [70,80) [80,90) [90,99) [99,100).
int band_of(int gq) {
  gq = std::min(gq, 99);
  if (gq < 60) return gq;
  if (gq == 99) return 99;
  return gq / 10 * 10;
}

/// The called genotype as sorted allele strings, each allele with the bases it shares with REF
/// at the end removed (the same variant however many alleles the record lists).
std::vector<std::string> genotype_alleles(const Record& rec) {
  std::vector<std::string> alleles;
  for (const std::string& index : split(rec.sample.at("GT"), rec.sample.at("GT")[1])) {
    if (index == ".") return {};
    const std::size_t i = std::stoul(index);
    std::string allele = i == 0 ? rec.ref : rec.alts[i - 1];
    std::string ref = rec.ref;
    while (allele.size() > 1 && ref.size() > 1 && allele.back() == ref.back()) {
      allele.pop_back();
      ref.pop_back();
    }
    alleles.push_back(ref + ">" + allele);
  }
  std::sort(alleles.begin(), alleles.end());
  return alleles;
}

bool is_hom_ref(const Record& rec) {
  const std::string& gt = rec.sample.at("GT");
  return gt.find_first_not_of("0/|") == std::string::npos;
}

TEST(GvcfConformance, Na12878BlocksCoverEveryBaseWithinOneBand) {
  test::TempDir dir;
  const std::string gvcf = dir.file("na12878.g.vcf.gz");
  const std::string bp = dir.file("na12878.bp.g.vcf.gz");
  call_region(gvcf, "-ERC GVCF --device cpu");
  call_region(bp, "--emit-ref-confidence BP_RESOLUTION --device cpu");
  EXPECT_TRUE(std::filesystem::exists(gvcf + ".tbi"));
  const std::string text = run_command("bgzip -dc " + shell_quote(gvcf)).out;
  EXPECT_NE(text.find("##GVCFBlock99-100=minGQ=99(inclusive),maxGQ=100(exclusive)"),
            std::string::npos);
  EXPECT_NE(text.find("##ALT=<ID=NON_REF,"), std::string::npos);

  const std::vector<Record> records = read_records(gvcf);
  ASSERT_GT(records.size(), 1000u);
  // No gap: each record starts at or before one past the furthest end so far; a record starts
  // inside an earlier one only where a deletion's span continues (GATK writes the sites after the
  // last call's end), and reference blocks never overlap one another.
  std::int64_t covered = kFirst - 1, last_block_end = 0;
  int blocks = 0;
  for (const Record& rec : records) {
    EXPECT_EQ(rec.alts.back(), "<NON_REF>") << rec.pos;
    EXPECT_LE(rec.pos, covered + 1) << "gap before " << rec.pos;
    if (rec.block) {
      ++blocks;
      EXPECT_GT(rec.pos, last_block_end) << "blocks overlap at " << rec.pos;
      last_block_end = rec.end;
      EXPECT_TRUE(is_hom_ref(rec)) << rec.pos;
      EXPECT_EQ(rec.alts.size(), 1u);
      EXPECT_LE(std::stoi(rec.sample.at("MIN_DP")), std::stoi(rec.sample.at("DP"))) << rec.pos;
    } else {
      EXPECT_TRUE(rec.sample.count("SB")) << rec.pos;
    }
    covered = std::max(covered, rec.end);
  }
  EXPECT_EQ(covered, kLast);
  EXPECT_GT(blocks, 1000);

  // Every base of a block lies in the block's GQ band, and two adjacent blocks lie in different
  // bands (else they would be one): the per-base records of BP_RESOLUTION say so.
  std::map<std::int64_t, int> site_gq;
  for (const Record& rec : read_records(bp)) {
    if (rec.alts.size() == 1) site_gq[rec.pos] = std::stoi(rec.sample.at("GQ"));
  }
  EXPECT_EQ(site_gq.begin()->first, kFirst);
  const Record* previous = nullptr;
  for (const Record& rec : records) {
    if (!rec.block) {
      previous = nullptr;
      continue;
    }
    const int band = band_of(std::stoi(rec.sample.at("GQ")));
    for (std::int64_t p = rec.pos; p <= rec.end; ++p) {
      ASSERT_TRUE(site_gq.count(p)) << p;
      ASSERT_EQ(band_of(site_gq[p]), band) << "block at " << rec.pos << " mixes bands at " << p;
    }
    if (previous != nullptr && previous->end + 1 == rec.pos) {
      EXPECT_NE(band_of(std::stoi(previous->sample.at("GQ"))), band) << rec.pos;
    }
    previous = &rec;
  }
}

TEST(GvcfConformance, VariantsAreThoseOfVcfMode) {
  test::TempDir dir;
  const std::string gvcf = dir.file("na12878.g.vcf.gz");
  const std::string vcf = dir.file("na12878.vcf.gz");
  call_region(gvcf, "--gvcf --device cpu");
  call_region(vcf, "--device cpu");
  // GATK's rule: a gVCF holds the calls of VCF mode (with <NON_REF>, and every alt the site had);
  // its calls of QUAL >= 30 with an ALT in the genotype are exactly the VCF's.
  std::map<std::int64_t, std::vector<std::string>> from_gvcf, from_vcf;
  for (const Record& rec : read_records(gvcf)) {
    if (!rec.block && rec.qual >= 30 && !is_hom_ref(rec)) {
      from_gvcf[rec.pos] = genotype_alleles(rec);
    }
  }
  for (const Record& rec : read_records(vcf)) from_vcf[rec.pos] = genotype_alleles(rec);
  EXPECT_GT(from_vcf.size(), 240u);
  EXPECT_EQ(from_gvcf, from_vcf);
}

TEST(GvcfConformance, BcftoolsReadsConvertsAndMerges) {
  test::TempDir dir;
  const std::string gvcf = dir.file("na12878.g.vcf.gz");
  call_region(gvcf, "--gvcf --device cpu");
  const auto view = run_command("bcftools view -H " + shell_quote(gvcf) + " | wc -l");
  ASSERT_EQ(view.exit_code, 0) << view.err;
  const std::size_t records = std::stoul(view.out);
  EXPECT_EQ(records, read_records(gvcf).size());
  // gvcf2vcf expands each block back to one line per base and keeps the calls.
  std::size_t expected_lines = 0;
  for (const Record& rec : read_records(gvcf)) {
    expected_lines += rec.block ? static_cast<std::size_t>(rec.end - rec.pos + 1) : 1;
  }
  EXPECT_GT(expected_lines, 99000u);  // every base but those under deletions
  const auto expanded = run_command("bcftools convert --gvcf2vcf -f " + shell_quote(hg19_chr20()) +
                                    " " + shell_quote(gvcf) + " | grep -vc '^#'");
  ASSERT_EQ(expanded.exit_code, 0) << expanded.err;
  EXPECT_EQ(std::stoul(expanded.out), expected_lines);
  // A second sample (half the reads, renamed) merges with it as gVCFs do.
  const std::string other_bam = dir.file("other.bam");
  ASSERT_EQ(run_command("samtools view -h -s 7.5 " + shell_quote(na12878_bam()) +
                        " | sed 's/SM:NA12878/SM:OTHER/' | samtools view -b -o " +
                        shell_quote(other_bam) + " -")
                .exit_code,
            0);
  const std::string other = dir.file("other.g.vcf.gz");
  ASSERT_EQ(call("-I " + shell_quote(other_bam) + " -L " + kInterval + " -O " + shell_quote(other) +
                 " --gvcf --device cpu")
                .exit_code,
            0);
  const auto merged =
      run_command("bcftools merge --gvcf " + shell_quote(hg19_chr20()) + " " + shell_quote(gvcf) +
                  " " + shell_quote(other) + " | grep -v '^##' | head -2");
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("\tNA12878\tOTHER\n"), std::string::npos) << merged.out;
  EXPECT_NE(merged.out.find("chr20\t10000000\t"), std::string::npos) << merged.out;
}

/// The gVCF's lines without the command-line header line (it names the output and the threads).
std::string records_text(const std::string& gvcf) {
  return run_command("bgzip -dc " + shell_quote(gvcf) + " | grep -v '^##gpu-pipelineCommand'").out;
}

TEST(Gvcf, SameBytesAtAnyThreadCount) {
  test::TempDir dir;
  call_region(dir.file("t1.g.vcf.gz"), "--gvcf --device cpu --threads 1");
  call_region(dir.file("t2.g.vcf.gz"), "--gvcf --device cpu --threads 2");
  const std::string one = records_text(dir.file("t1.g.vcf.gz"));
  EXPECT_GT(one.size(), 100000u);
  EXPECT_EQ(one, records_text(dir.file("t2.g.vcf.gz")));
}

TEST(Gvcf, BandsAndFloorBlocks) {
  test::TempDir dir;
  const std::string gvcf = dir.file("bands.g.vcf.gz");
  call_region(gvcf,
              "--gvcf --device cpu -GQB 20 -GQB 60 --floor-blocks -L chr20:10000000-10002000");
  const std::string text = run_command("bgzip -dc " + shell_quote(gvcf)).out;
  EXPECT_NE(text.find("##GVCFBlock0-20=minGQ=0(inclusive),maxGQ=20(exclusive)"), std::string::npos);
  EXPECT_NE(text.find("##GVCFBlock60-100=minGQ=60(inclusive),maxGQ=100(exclusive)"),
            std::string::npos);
  EXPECT_EQ(text.find("##GVCFBlock1-2"), std::string::npos);
  for (const Record& rec : read_records(gvcf)) {
    if (!rec.block) continue;
    // Floor blocks: GQ is the band's lower bound, no PL or MIN_DP.
    const int gq = std::stoi(rec.sample.at("GQ"));
    EXPECT_TRUE(gq == 0 || gq == 20 || gq == 60) << rec.pos;
    EXPECT_EQ(rec.sample.count("PL"), 0u);
    EXPECT_EQ(rec.sample.count("MIN_DP"), 0u);
  }
}

// Physical phasing is GATK's default in a diploid gVCF: --do-not-run-physical-phasing, or a
// ploidy other than 2, leaves PGT, PID and PS out of the header and the records (the calls
// otherwise unchanged).
TEST(Gvcf, PhysicalPhasingCanBeTurnedOff) {
  test::TempDir dir;
  call_region(dir.file("phased.g.vcf.gz"), "--gvcf --device cpu");
  call_region(dir.file("unphased.g.vcf.gz"), "--gvcf --device cpu --do-not-run-physical-phasing");
  call_region(dir.file("haploid.g.vcf.gz"), "--gvcf --device cpu --sample-ploidy 1");
  const auto text = [&](const std::string& name) {
    return run_command("bgzip -dc " + shell_quote(dir.file(name))).out;
  };
  const std::string phased = text("phased.g.vcf.gz");
  EXPECT_NE(phased.find("##FORMAT=<ID=PGT"), std::string::npos);
  EXPECT_NE(phased.find(":PGT:PID:"), std::string::npos);
  for (const std::string name : {"unphased.g.vcf.gz", "haploid.g.vcf.gz"}) {
    const std::string other = text(name);
    EXPECT_GT(other.size(), 50000u);
    EXPECT_EQ(other.find("PGT"), std::string::npos) << name;
    EXPECT_EQ(other.find("ID=PS,"), std::string::npos) << name;
  }
  // Without the phasing fields the sites and genotypes are the same.
  const auto sites = [&](const std::string& name) {
    return run_command("bgzip -dc " + shell_quote(dir.file(name)) +
                       " | grep -v '^#' | cut -f 1-8 | grep -v '^$'")
        .out;
  };
  EXPECT_EQ(sites("phased.g.vcf.gz"), sites("unphased.g.vcf.gz"));
}

TEST(Gvcf, BadBlockOptionsAreRefused) {
  test::TempDir dir;
  const std::string base = "-I " + shell_quote(na12878_bam()) + " -O " +
                           shell_quote(dir.file("x.g.vcf.gz")) + " --device cpu";
  const auto unordered = call(base + " --gvcf -GQB 30 -GQB 20");
  EXPECT_EQ(unordered.exit_code, 1);
  EXPECT_NE(unordered.err.find("-GQB"), std::string::npos) << unordered.err;
  const auto floor_without_gvcf = call(base + " --floor-blocks");
  EXPECT_EQ(floor_without_gvcf.exit_code, 1);
  EXPECT_NE(floor_without_gvcf.err.find("--floor-blocks"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.g.vcf.gz")));
}

TEST(Gvcf, RunWritesTheGvcfOfCallOnItsBam) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string reference = test::data_path(d + "genome.fasta");
  const auto r = run_command(shell_quote(test::binary_path()) + " run " +
                             shell_quote(test::data_path(d + "test.paired_end.sorted.bam")) +
                             " -R " + shell_quote(reference) + " --known-sites " +
                             shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) +
                             " --out-dir " + shell_quote(dir.path().string()) +
                             " --gvcf --vcf --device cpu --verbosity WARNING");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bam = dir.file("test.paired_end.sorted.md.bqsr.bam");
  const std::string run_gvcf = dir.file("test.paired_end.sorted.g.vcf.gz");
  EXPECT_TRUE(std::filesystem::exists(run_gvcf + ".tbi"));
  EXPECT_TRUE(std::filesystem::exists(dir.file("test.paired_end.sorted.vcf.gz")));
  const auto called = run_command(shell_quote(test::binary_path()) + " call -I " +
                                  shell_quote(bam) + " -R " + shell_quote(reference) + " -O " +
                                  shell_quote(dir.file("called.g.vcf.gz")) + " --gvcf");
  ASSERT_EQ(called.exit_code, 0) << called.err;
  const std::string from_run = records_text(run_gvcf);
  EXPECT_NE(from_run.find("<NON_REF>"), std::string::npos);
  EXPECT_EQ(from_run, records_text(dir.file("called.g.vcf.gz")));
}

using GvcfGpu = ::gpp::test::GpuTest;

TEST_F(GvcfGpu, GpuGvcfEqualsCpuGvcf) {
  test::TempDir dir;
  call_region(dir.file("cpu.g.vcf.gz"), "--gvcf --device cpu");
  call_region(dir.file("gpu.g.vcf.gz"), "--gvcf --device gpu");
  EXPECT_EQ(records_text(dir.file("cpu.g.vcf.gz")), records_text(dir.file("gpu.g.vcf.gz")));
}

}  // namespace
}  // namespace gpp::pipeline
