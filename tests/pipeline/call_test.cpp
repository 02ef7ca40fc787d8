// gpu-pipeline call end to end: accuracy against the GIAB truth (bcftools normalisation and
// isec, bench/call/vcf_eval.sh), determinism, the bad inputs the caller must refuse, and GPU =
// CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/pipeline/na12878_truth.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

std::string na12878_bam() { return test::na12878::bam(); }
std::string hg19_chr20() { return test::na12878::reference(); }

test::CommandResult call(const std::string& args) {
  return run_command(shell_quote(test::binary_path()) + " call " + args + " --verbosity WARNING");
}

/// The VCF's lines without the command-line header line (it names the output and the threads).
std::string records_of(const std::string& vcf) {
  const std::string reader = vcf.ends_with(".gz") ? "bgzip -dc " : "cat ";
  const auto r = run_command(reader + shell_quote(vcf) + " | grep -v '^##gpu-pipelineCommand'");
  return r.out;
}

/// The records of `call` on NA12878 (CPU backend) with `option`, into dir/name.
std::string na12878_records(const test::TempDir& dir, const std::string& option,
                            const std::string& name) {
  const auto r = call("-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                      " --device cpu" + option + " -O " + shell_quote(dir.file(name)));
  EXPECT_EQ(r.exit_code, 0) << option << ": " << r.err;
  return records_of(dir.file(name));
}

using test::na12878::Counts;
using test::na12878::evaluate;

TEST(CallConformance, Na12878MatchesGiabTruth) {
  test::TempDir dir;
  const std::string vcf = dir.file("na12878.vcf.gz");
  const auto r = call("-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                      " -O " + shell_quote(vcf) + " --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(vcf + ".tbi"));
  // The BAM's header lists every hg19 contig, the reference holds chr20 only: a warning.
  EXPECT_NE(r.err.find("are not in"), std::string::npos) << r.err;
  // Inside the GIAB confident regions: every truth variant, nothing else.
  const std::string confident = test::na12878::confident_bed();
  const Counts snps = evaluate(dir, vcf, confident, "snps");
  EXPECT_EQ(snps.tp, 45);
  EXPECT_EQ(snps.fp, 0);
  EXPECT_EQ(snps.fn, 0);
  const Counts indels = evaluate(dir, vcf, confident, "indels");
  EXPECT_EQ(indels.tp, 4);
  EXPECT_EQ(indels.fp, 0);
  EXPECT_EQ(indels.fn, 0);
  // Over the whole 100 kb: recall of the 186 SNPs and 36 indels of the truth.
  const std::string whole = dir.file("whole.bed");
  std::ofstream(whole) << "chr20\t9999999\t10100000\n";
  EXPECT_GE(evaluate(dir, vcf, whole, "snps").tp, 185);
  EXPECT_GE(evaluate(dir, vcf, whole, "indels").tp, 34);
}

TEST(Call, SameRecordsAtAnyThreadCount) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " -L chr20:10000000-10030000 --device cpu";
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("t1.vcf")) + " --threads 1").exit_code, 0);
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("t2.vcf")) + " --threads 2").exit_code, 0);
  const std::string one = records_of(dir.file("t1.vcf"));
  EXPECT_GT(std::count(one.begin(), one.end(), '\n'), 60);
  EXPECT_EQ(one, records_of(dir.file("t2.vcf")));
}

// GATK's engine and thread options as workflows pass them (nf-core: --native-pair-hmm-threads
// ${task.cpus}) are taken, and change nothing in the records; --threads wins over the GATK one.
TEST(Call, GatkEngineAndThreadOptionsAreTaken) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " -L chr20:10000000-10030000 --device cpu";
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("plain.vcf"))).exit_code, 0);
  const auto r =
      call(args + " -O " + shell_quote(dir.file("gatk.vcf")) +
           " --native-pair-hmm-threads 1 --smith-waterman JAVA -pairHMM LOGLESS_CACHING" +
           " --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(records_of(dir.file("plain.vcf")), records_of(dir.file("gatk.vcf")));
  const auto bad = call(args + " -O " + shell_quote(dir.file("bad.vcf")) + " --smith-waterman X");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// GATK's --sample-name (-ALIAS) names the input's sample: the same calls; another name is an
// error naming the file and its samples, with no output.
TEST(Call, SampleNameMustBeTheInputsSample) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " -L chr20:10000000-10030000 --device cpu";
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("plain.vcf"))).exit_code, 0);
  const auto named = call(args + " -O " + shell_quote(dir.file("named.vcf")) + " -ALIAS NA12878");
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(records_of(dir.file("plain.vcf")), records_of(dir.file("named.vcf")));
  const auto other =
      call(args + " -O " + shell_quote(dir.file("other.vcf")) + " --sample-name NA12891");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(
      other.err.find(na12878_bam() + ": --sample-name 'NA12891' is not a sample of its read groups "
                                     "('NA12878')"),
      std::string::npos)
      << other.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("other.vcf")));
}

// -DF NotDuplicateReadFilter: the duplicates are used, as if their flags were cleared (samtools).
TEST(Call, DisabledDuplicateFilterCallsAsTheUnflaggedReads) {
  test::TempDir dir;
  const std::string unflagged = dir.file("unflagged.bam");
  ASSERT_EQ(run_command("samtools view -h " + shell_quote(na12878_bam()) +
                        " | awk 'BEGIN {OFS=\"\\t\"} /^@/ {print; next} "
                        "{if (int($2 / 1024) % 2 == 1) $2 -= 1024; print}' | samtools view -b -o " +
                        shell_quote(unflagged) + " - && samtools index " + shell_quote(unflagged))
                .exit_code,
            0);
  ASSERT_EQ(run_command("samtools view -c -f 1024 " + shell_quote(unflagged)).out, "0\n");
  const std::string rest = " -R " + shell_quote(hg19_chr20()) + " --device cpu";
  ASSERT_EQ(call("-I " + shell_quote(na12878_bam()) + rest + " -O " +
                 shell_quote(dir.file("default.vcf")))
                .exit_code,
            0);
  const auto r = call("-I " + shell_quote(na12878_bam()) + rest + " -O " +
                      shell_quote(dir.file("with_duplicates.vcf")) + " -DF NotDuplicateReadFilter");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(
      call("-I " + shell_quote(unflagged) + rest + " -O " + shell_quote(dir.file("unflagged.vcf")))
          .exit_code,
      0);
  const std::string with_duplicates = records_of(dir.file("with_duplicates.vcf"));
  EXPECT_EQ(with_duplicates, records_of(dir.file("unflagged.vcf")));
  EXPECT_NE(with_duplicates, records_of(dir.file("default.vcf")));
  const auto refused = call("-I " + shell_quote(na12878_bam()) + rest + " -O " +
                            shell_quote(dir.file("x.vcf")) + " -DF WellformedReadFilter");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("--disable-read-filter WellformedReadFilter: the caller needs mapped, "
                             "well-formed alignments"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.vcf")));
}

TEST(Call, IntervalsRestrictTheCalls) {
  test::TempDir dir;
  const std::string vcf = dir.file("part.vcf");
  ASSERT_EQ(call("-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                 " -L chr20:10000100-10000500 -O " + shell_quote(vcf) + " --device cpu")
                .exit_code,
            0);
  const auto r = run_command("grep -v '^#' " + shell_quote(vcf) + " | cut -f2");
  // GIAB's SNPs at 10000117, 10000211 and 10000439 (1-based) lie in the interval.
  EXPECT_NE(r.out.find("10000117\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10000439\n"), std::string::npos) << r.out;
  std::istringstream positions(r.out);
  for (long p; positions >> p;) {
    EXPECT_GE(p, 10000100 - 100);
    EXPECT_LE(p, 10000500 + 100);
  }
}

// --minimum-mapping-quality is GATK's MappingQualityReadFilter: the reads below it take no part in
// anything, as if samtools had left them out of the input.
TEST(Call, MinimumMappingQualityCallsAsTheReadsAboveItAlone) {
  test::TempDir dir;
  const std::string kept = dir.file("q30.bam");
  ASSERT_EQ(run_command("samtools view -b -q 30 -o " + shell_quote(kept) + " " +
                        shell_quote(na12878_bam()) + " && samtools index " + shell_quote(kept))
                .exit_code,
            0);
  const std::string reference = " -R " + shell_quote(hg19_chr20()) + " --device cpu";
  ASSERT_EQ(call("-I " + shell_quote(na12878_bam()) + reference +
                 " --minimum-mapping-quality 30 -O " + shell_quote(dir.file("filtered.vcf")))
                .exit_code,
            0);
  ASSERT_EQ(call("-I " + shell_quote(kept) + reference + " -O " + shell_quote(dir.file("kept.vcf")))
                .exit_code,
            0);
  ASSERT_EQ(call("-I " + shell_quote(na12878_bam()) + reference + " -O " +
                 shell_quote(dir.file("default.vcf")))
                .exit_code,
            0);
  const std::string filtered = records_of(dir.file("filtered.vcf"));
  EXPECT_NE(filtered.find("#CHROM"), std::string::npos);
  EXPECT_TRUE(filtered == records_of(dir.file("kept.vcf")));
  EXPECT_TRUE(filtered != records_of(dir.file("default.vcf")));  // reads at MQ 20-29 matter here
}

// --mapping-quality-threshold-for-genotyping: reads below it are assembled but not genotyped
// (they matter only above --minimum-mapping-quality, which is 20 like it by default).
TEST(Call, GenotypingMappingQualityThresholdChangesTheCalls) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " --device cpu --minimum-mapping-quality 0";
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("all.vcf"))).exit_code, 0);
  ASSERT_EQ(call(args + " --mapping-quality-threshold-for-genotyping 0 -O " +
                 shell_quote(dir.file("zero.vcf")))
                .exit_code,
            0);
  ASSERT_EQ(call(args + " --mapping-quality-threshold-for-genotyping 60 -O " +
                 shell_quote(dir.file("sixty.vcf")))
                .exit_code,
            0);
  const auto count = [&](const std::string& name) {
    return run_command("grep -vc '^#' " + shell_quote(dir.file(name))).out;
  };
  // Without MQ 0 reads' genotypes (the default threshold 20) some calls change; at 60 fewer stay.
  EXPECT_TRUE(records_of(dir.file("all.vcf")) != records_of(dir.file("zero.vcf")));
  EXPECT_LT(std::stoi(count("sixty.vcf")), std::stoi(count("all.vcf")));
}

// --adaptive-pruning (Mutect2's pruner in HaplotypeCaller): the GIAB truth is still called, the
// assembly differs from the default pruning's, --min-pruning no longer counts (GATK hands the
// assembler a prune factor of 0), and its log odds threshold is used.
TEST(CallConformance, AdaptivePruningKeepsTheGiabTruth) {
  test::TempDir dir;
  const auto called = [&](const std::string& option, const std::string& name) {
    return na12878_records(dir, option, name);
  };
  const std::string adaptive = called(" --adaptive-pruning", "adaptive.vcf");
  const std::string confident = test::na12878::confident_bed();
  const Counts snps = evaluate(dir, dir.file("adaptive.vcf"), confident, "snps");
  EXPECT_EQ(snps.tp, 45);
  EXPECT_EQ(snps.fp, 0);
  EXPECT_EQ(snps.fn, 0);
  const Counts indels = evaluate(dir, dir.file("adaptive.vcf"), confident, "indels");
  EXPECT_EQ(indels.tp, 4);
  EXPECT_EQ(indels.fp, 0);
  EXPECT_EQ(indels.fn, 0);
  const std::string whole = dir.file("whole.bed");
  std::ofstream(whole) << "chr20\t9999999\t10100000\n";
  EXPECT_GE(evaluate(dir, dir.file("adaptive.vcf"), whole, "snps").tp, 185);
  EXPECT_GE(evaluate(dir, dir.file("adaptive.vcf"), whole, "indels").tp, 34);

  EXPECT_TRUE(adaptive != called("", "default.vcf"));
  EXPECT_TRUE(called(" --adaptive-pruning --min-pruning 5", "min5.vcf") == adaptive);
  EXPECT_TRUE(called(" --min-pruning 5", "plain5.vcf") != called("", "default2.vcf"));
  EXPECT_TRUE(called(" --adaptive-pruning --pruning-lod-threshold 50", "lod50.vcf") != adaptive);
}

// GATK's engine options: all of them at GATK's defaults give the default records, each one
// changed gives other records (NA12878; the options that change nothing here have tests of their
// own below or in the gVCF tests).
TEST(Call, GatkEngineOptionsAtDefaultsChangeNothingAndOtherwiseChangeTheCalls) {
  test::TempDir dir;
  const auto called = [&](const std::string& option, const std::string& name) {
    return na12878_records(dir, option, name);
  };
  const std::string by_default = called("", "default.vcf");
  EXPECT_TRUE(
      called(" --min-assembly-region-size 50 --max-assembly-region-size 300"
             " --assembly-region-padding 100 --active-probability-threshold 0.002"
             " --max-prob-propagation-distance 50 --heterozygosity 0.001"
             " --indel-heterozygosity 0.000125 --heterozygosity-stdev 0.01"
             " --max-genotype-count 1024 --max-mnp-distance 0 --padding-around-snps 20"
             " --padding-around-indels 75 --padding-around-strs 75"
             " --base-quality-score-threshold 18 --pair-hmm-gap-continuation-penalty 10"
             " --phred-scaled-global-read-mismapping-rate 45"
             " --expected-mismatch-rate-for-read-disqualification 0.02 --num-pruning-samples 1"
             " --num-matching-bases-in-dangling-end-to-recover -1",
             "defaults.vcf") == by_default);
  for (const std::string option : {" --max-assembly-region-size 150",
                                   " --assembly-region-padding 50",
                                   " --active-probability-threshold 0.05",
                                   " --heterozygosity 0.01",
                                   " --indel-heterozygosity 0.01",
                                   " --heterozygosity-stdev 0.1",
                                   " --padding-around-snps 5",
                                   " --padding-around-indels 20",
                                   " --do-not-correct-overlapping-quality",
                                   " --soft-clip-low-quality-ends",
                                   " --base-quality-score-threshold 25",
                                   " --disable-cap-base-qualities-to-map-quality",
                                   " --pair-hmm-gap-continuation-penalty 20",
                                   " --phred-scaled-global-read-mismapping-rate 20",
                                   " --disable-symmetric-hmm-normalizing",
                                   " --expected-mismatch-rate-for-read-disqualification 0.001",
                                   " --dont-increase-kmer-sizes-for-cycles",
                                   " --allow-non-unique-kmers-in-ref",
                                   " --recover-all-dangling-branches",
                                   " --do-not-recover-dangling-branches",
                                   " --max-genotype-count 3",
                                   " --override-fragment-softclip-check"}) {
    EXPECT_TRUE(called(option, "changed.vcf") != by_default) << option;
  }
}

// --max-mnp-distance (GATK's; also -mnp-dist): phased substitutions this close become one record
// whose bases are those of the SNPs the default calling makes there.
TEST(Call, MaxMnpDistanceMergesPhasedSnpsIntoMnps) {
  test::TempDir dir;
  const std::string args =
      "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) + " --device cpu";
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("snps.vcf"))).exit_code, 0);
  ASSERT_EQ(call(args + " --max-mnp-distance 2 -O " + shell_quote(dir.file("mnps.vcf"))).exit_code,
            0);
  ASSERT_EQ(call(args + " -mnp-dist 2 -O " + shell_quote(dir.file("short.vcf"))).exit_code, 0);
  EXPECT_EQ(records_of(dir.file("short.vcf")), records_of(dir.file("mnps.vcf")));
  std::map<std::int64_t, std::pair<char, char>> snps;
  std::istringstream default_lines(records_of(dir.file("snps.vcf")));
  for (std::string line; std::getline(default_lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string contig, pos, id, ref, alt;
    f >> contig >> pos >> id >> ref >> alt;
    if (ref.size() == 1 && alt.size() == 1) snps[std::stoll(pos)] = {ref[0], alt[0]};
  }
  int mnps = 0;
  std::istringstream mnp_lines(records_of(dir.file("mnps.vcf")));
  for (std::string line; std::getline(mnp_lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string contig, pos, id, ref, alt;
    f >> contig >> pos >> id >> ref >> alt;
    if (ref.size() < 2 || ref.size() != alt.size() || alt.find(',') != std::string::npos) continue;
    ++mnps;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (ref[i] == alt[i]) continue;
      const auto snp = snps.find(std::stoll(pos) + static_cast<std::int64_t>(i));
      ASSERT_NE(snp, snps.end()) << line;
      EXPECT_EQ(snp->second, std::make_pair(ref[i], alt[i])) << line;
    }
  }
  EXPECT_GE(mnps, 1);
}

// --min-dangling-branch-length (GATK's default 4): the dangling heads and tails shorter than it
// are not recovered into the assembly graph; on this region both a shorter and a longer bound
// change the calls.
TEST(Call, MinDanglingBranchLengthChangesTheAssembly) {
  test::TempDir dir;
  const auto called = [&](const std::string& option, const std::string& name) {
    return na12878_records(dir, option, name);
  };
  const std::string by_default = called("", "default.vcf");
  EXPECT_NE(by_default.find("#CHROM"), std::string::npos);
  EXPECT_TRUE(called(" --min-dangling-branch-length 4", "four.vcf") == by_default);
  EXPECT_TRUE(called(" --min-dangling-branch-length 1", "one.vcf") != by_default);
  EXPECT_TRUE(called(" --min-dangling-branch-length 1000", "none.vcf") != by_default);
}

// --filter-reads-too-long (Parabricks): reads of more than 500 bases are left out. Thirty 600-base
// reads carrying a SNV are added to the NA12878 BAM: without the option they make a call, with it
// the calls are those of the BAM without them.
TEST(Call, FilterReadsTooLongLeavesReadsOver500BasesOut) {
  test::TempDir dir;
  const std::string with_long = dir.file("with_long.bam");
  const std::string bam = shell_quote(na12878_bam());
  const std::string script =
      "set -e; rg=$(samtools view -H " + bam +
      " | awk -F'\t' '/^@RG/ { sub(\"ID:\", \"\", $2); print $2; exit }'); "
      "seq=$(samtools faidx " +
      shell_quote(hg19_chr20()) +
      " chr20:10050001-10050600 | tail -n +2 | tr -d '\n' | tr a-z A-Z); "
      "alt=$(echo \"$seq\" | awk '{ b = substr($0, 300, 1); n = (b == \"A\") ? \"C\" : \"A\"; "
      "print substr($0, 1, 299) n substr($0, 301) }'); "
      "q=$(printf 'I%.0s' $(seq 600)); "
      "{ samtools view -H " +
      bam +
      "; for k in $(seq 30); do printf "
      "'long%d\t0\tchr20\t10050001\t60\t600M\t*\t0\t0\t%s\t%s\tRG:Z:%s\n' "
      "$k \"$alt\" \"$q\" \"$rg\"; done; samtools view " +
      bam + "; } | samtools sort -o " + shell_quote(with_long) + " - && samtools index " +
      shell_quote(with_long);
  const auto made = run_command("bash -c " + shell_quote(script));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string args =
      " -R " + shell_quote(hg19_chr20()) + " --device cpu -L chr20:10049000-10052000 -O ";
  ASSERT_EQ(call("-I " + shell_quote(with_long) + " --filter-reads-too-long" + args +
                 shell_quote(dir.file("filtered.vcf")))
                .exit_code,
            0);
  ASSERT_EQ(
      call("-I " + shell_quote(with_long) + args + shell_quote(dir.file("all.vcf"))).exit_code, 0);
  ASSERT_EQ(call("-I " + bam + args + shell_quote(dir.file("without.vcf"))).exit_code, 0);
  const std::string filtered = records_of(dir.file("filtered.vcf"));
  EXPECT_NE(filtered.find("chr20\t10050828\t"), std::string::npos);
  EXPECT_TRUE(filtered == records_of(dir.file("without.vcf")));
  const std::string all = records_of(dir.file("all.vcf"));
  EXPECT_NE(all.find("chr20\t10050300\t"), std::string::npos) << "the long reads' SNV";
  EXPECT_EQ(filtered.find("chr20\t10050300\t"), std::string::npos);
}

// --enable-dynamic-read-disqualification-for-genotyping: a read is disqualified below the lower of
// the dynamic threshold and the uncapped standard one, never above the default's capped threshold,
// so the genotyping keeps at least the default's reads: every site keeps its alleles and its
// allele depths add up to at least the default's, more at many sites (the assembly is unchanged).
TEST(Call, DynamicReadDisqualificationKeepsAtLeastTheDefaultReads) {
  test::TempDir dir;
  const std::string args =
      "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) + " --device cpu";
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("default.vcf"))).exit_code, 0);
  ASSERT_EQ(call(args + " --enable-dynamic-read-disqualification-for-genotyping -O " +
                 shell_quote(dir.file("dynamic.vcf")))
                .exit_code,
            0);
  // "CHROM:POS:REF:ALT depth" per record, depth the sum of its AD.
  const auto depths = [&](const std::string& name) {
    return "grep -v '^#' " + shell_quote(dir.file(name)) +
           " | awk -F'\t' '{ split($9, k, \":\"); split($10, v, \":\"); s = 0; "
           "for (i in k) if (k[i] == \"AD\") { n = split(v[i], a, \",\"); "
           "for (j = 1; j <= n; j++) s += a[j] } print $1 \":\" $2 \":\" $4 \":\" $5, s }' | "
           "sort";
  };
  const auto compared = run_command(
      "bash -c " + shell_quote("join -a1 -a2 -e missing -o 0,1.2,2.2 <(" + depths("default.vcf") +
                               ") <(" + depths("dynamic.vcf") +
                               ") | awk '{ if ($2 == \"missing\" || $3 == \"missing\") other++; "
                               "else if ($3 > $2) more++; else if ($3 < $2) less++; else same++ } "
                               "END { print other + 0, less + 0, more + 0, same + 0 }'"));
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  std::istringstream counts(compared.out);
  int other = -1, less = -1, more = -1, same = -1;
  counts >> other >> less >> more >> same;
  EXPECT_EQ(other, 0) << "the same sites and alleles";
  EXPECT_EQ(less, 0) << "no site with fewer reads";
  EXPECT_GT(more, 20);
  EXPECT_GT(same, 20);
}

// --ploidy, Parabricks' name for --sample-ploidy.
TEST(Call, PloidyIsSamplePloidy) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " --device cpu -L chr20:10000000-10030000";
  ASSERT_EQ(call(args + " --ploidy 1 -O " + shell_quote(dir.file("p.vcf"))).exit_code, 0);
  ASSERT_EQ(call(args + " --sample-ploidy 1 -O " + shell_quote(dir.file("s.vcf"))).exit_code, 0);
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("d.vcf"))).exit_code, 0);
  const std::string haploid = records_of(dir.file("p.vcf"));
  EXPECT_NE(haploid.find("\t1:"), std::string::npos) << "haploid genotypes";
  EXPECT_TRUE(haploid == records_of(dir.file("s.vcf")));
  EXPECT_TRUE(haploid != records_of(dir.file("d.vcf")));
}

// --no-alt-contigs (Parabricks): no calls on GRCh38's ALT haplotypes and HLA contigs. The nf-core
// chr22 reads are copied onto two more contigs of the same sequence, one named as an ALT contig,
// one as an HLA allele: the calls on chr22 stay, those on the copies go.
TEST(Call, NoAltContigsLeavesAlternateContigsWithoutCalls) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string fasta = dir.file("ref.fa");
  const std::string bam = dir.file("alt.bam");
  const std::vector<std::string> copies = {"chr22_KI270879v1_alt", "HLA-A*01:01:01:01"};
  std::string sequence_lines, header_lines, record_copies;
  for (const std::string& name : copies) {
    sequence_lines +=
        "; sed 's/^>chr22/>" + name + "/' " + shell_quote(test::data_path(d + "genome.fasta"));
    header_lines += "\\n@SQ\\tSN:" + name + "\\tLN:40001";
    record_copies += "; samtools view " +
                     shell_quote(test::data_path(d + "test.paired_end.sorted.bam")) +
                     " | awk 'BEGIN { OFS = \"\\t\" } { $3 = \"" + name + "\"; print }'";
  }
  ASSERT_EQ(run_command("bash -c " +
                        shell_quote("(cat " + shell_quote(test::data_path(d + "genome.fasta")) +
                                    sequence_lines + ") > " + shell_quote(fasta) +
                                    " && samtools faidx " + shell_quote(fasta)))
                .exit_code,
            0);
  const std::string input = shell_quote(test::data_path(d + "test.paired_end.sorted.bam"));
  ASSERT_EQ(run_command("bash -c " +
                        shell_quote("(samtools view -H " + input + " | sed 's/^\\(@SQ.*\\)$/\\1" +
                                    header_lines + "/'; samtools view " + input + record_copies +
                                    ") | samtools view -b -o " + shell_quote(bam)))
                .exit_code,
            0);
  const std::string args =
      "-I " + shell_quote(bam) + " -R " + shell_quote(fasta) + " --device cpu -O ";
  ASSERT_EQ(call(args + shell_quote(dir.file("all.vcf"))).exit_code, 0);
  const auto r = call(args + shell_quote(dir.file("primary.vcf")) + " --no-alt-contigs");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto calls_on = [&](const std::string& vcf, const std::string& contig) {
    return run_command("grep -v '^#' " + shell_quote(dir.file(vcf)) +
                       " | awk -v c=" + shell_quote(contig) + " '$1 == c { $1 = \"\"; print }'")
        .out;
  };
  const std::string on_chr22 = calls_on("all.vcf", "chr22");
  EXPECT_GE(std::count(on_chr22.begin(), on_chr22.end(), '\n'), 5);
  for (const std::string& name : copies) {
    EXPECT_TRUE(calls_on("all.vcf", name) == on_chr22) << name;  // the same reads, the same calls
    EXPECT_EQ(calls_on("primary.vcf", name), "") << name;
  }
  EXPECT_TRUE(calls_on("primary.vcf", "chr22") == on_chr22);
  // A gVCF covers every contig of the reference but these.
  ASSERT_EQ(
      call(args + shell_quote(dir.file("primary.g.vcf")) + " --gvcf --no-alt-contigs").exit_code,
      0);
  EXPECT_NE(calls_on("primary.g.vcf", "chr22"), "");
  for (const std::string& name : copies) EXPECT_EQ(calls_on("primary.g.vcf", name), "") << name;
}

// GATK's annotation options: -AX FisherStrand -A StrandBiasBySample leave every record as it was
// but for INFO FS gone and FORMAT SB added (bcftools strips each and finds the same records),
// and bcftools reads the SB values as the header declares them.
TEST(Call, AnnotationOptionsAddAndRemoveFields) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " --device cpu -L chr20:10000000-10050000 -O ";
  ASSERT_EQ(call(args + shell_quote(dir.file("d.vcf"))).exit_code, 0);
  const auto r =
      call(args + shell_quote(dir.file("x.vcf")) + " -AX FisherStrand -A StrandBiasBySample");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto stripped = [&](const std::string& vcf, const std::string& field) {
    return run_command("bcftools annotate -x " + field + " " + shell_quote(dir.file(vcf)) +
                       " | bcftools view -H")
        .out;
  };
  const std::string without_fs = stripped("d.vcf", "INFO/FS");
  EXPECT_GE(std::count(without_fs.begin(), without_fs.end(), '\n'), 40);
  EXPECT_EQ(without_fs.find("FS="), std::string::npos);
  EXPECT_TRUE(stripped("x.vcf", "FORMAT/SB") == without_fs);
  // SB: four counts per record, no more reads than the site's depth.
  const auto sb =
      run_command("bcftools query -f '[%SB]\\t%INFO/DP\\n' " + shell_quote(dir.file("x.vcf")) +
                  " | awk -F'[,\\t]' 'NF == 5 && $1 + $2 + $3 + $4 <= $5 "
                  "&& $3 + $4 > 0 { n++ } END { print n + 0, NR }'");
  std::istringstream counts(sb.out);
  int consistent = -1, records = -2;
  counts >> consistent >> records;
  EXPECT_EQ(consistent, records) << sb.out;
  EXPECT_GE(records, 40);
}

// --annotate-with-num-discovered-alleles: INFO NDA, the alternate alleles of the site handed to
// genotyping (GenotypingEngine.composeCallAttributes), <NON_REF> among them in a gVCF, before
// --max-alternate-alleles keeps the likeliest; nothing else changes. Two NA12878 sites have an
// allele discovered and not genotyped.
TEST(Call, NumberOfDiscoveredAllelesCountsTheAllelesHandedToGenotyping) {
  test::TempDir dir;
  const std::string args =
      "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) + " --device cpu -O ";
  ASSERT_EQ(call(args + shell_quote(dir.file("d.vcf"))).exit_code, 0);
  const std::string nda = " --annotate-with-num-discovered-alleles";
  auto r = call(args + shell_quote(dir.file("n.vcf")) + nda);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = call(args + shell_quote(dir.file("n.g.vcf")) + nda + " -ERC GVCF");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* vcf : {"n.vcf", "n.g.vcf"}) {
    EXPECT_NE(test::read_file(dir.file(vcf))
                  .find("##INFO=<ID=NDA,Number=1,Type=Integer,Description=\"Number of alternate "
                        "alleles discovered (but not necessarily genotyped) at this site\">\n"),
              std::string::npos)
        << vcf;
  }
  const std::string without = run_command("bcftools annotate -x INFO/NDA " +
                                          shell_quote(dir.file("n.vcf")) + " | bcftools view -H")
                                  .out;
  EXPECT_GT(test::lines_of(without).size(), 200u);
  EXPECT_EQ(without, run_command("bcftools view -H " + shell_quote(dir.file("d.vcf"))).out);
  // NDA against the number of ALTs: never fewer, more at two sites.
  const auto counts = run_command(
      "bcftools query -f '%INFO/NDA\t%ALT\n' " + shell_quote(dir.file("n.vcf")) +
      " | awk -F'\t' '{alts = split($2, a, \",\"); if ($1 < alts) bad++; if ($1 > alts) more++}"
      " END {print bad + 0, more + 0, NR}'");
  EXPECT_EQ(counts.out.substr(0, counts.out.find(' ')), "0") << counts.out;
  EXPECT_EQ(test::split(counts.out, ' ')[1], "2") << counts.out;
  // The gVCF's variant records count <NON_REF> too: one more than the VCF's at each site.
  const auto sites = [&](const std::string& vcf, int extra) {
    return run_command("bcftools view -H " + shell_quote(dir.file(vcf)) +
                       " | grep -v 'END=' | awk -F'\t' '{match($8, /NDA=[0-9]+/); print $2, "
                       "substr($8, RSTART + 4, RLENGTH - 4) - " +
                       std::to_string(extra) + "}'")
        .out;
  };
  const std::string gvcf_sites = sites("n.g.vcf", 1);
  const std::string vcf_sites = sites("n.vcf", 0);
  EXPECT_GT(test::lines_of(vcf_sites).size(), 200u);
  for (const std::string& line : test::lines_of(vcf_sites)) {
    EXPECT_NE(("\n" + gvcf_sites).find("\n" + line + "\n"), std::string::npos) << line;
  }
  // With one alternate allele kept per site, NDA still counts those discovered: the same values.
  r = call(args + shell_quote(dir.file("one.vcf")) + nda + " --max-alternate-alleles 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string one_alt_sites = sites("one.vcf", 0);
  EXPECT_NE(run_command("bcftools view -H " + shell_quote(dir.file("one.vcf")) +
                        " | awk -F'\t' '$5 !~ /,/ && $8 ~ /NDA=2/' | wc -l")
                .out,
            "0\n");
  for (const std::string& line : test::lines_of(one_alt_sites)) {
    EXPECT_NE(("\n" + vcf_sites).find("\n" + line + "\n"), std::string::npos) << line;
  }
}

// --output-mode: EMIT_ALL_CONFIDENT_SITES adds confident hom-ref records (ALT '.', QUAL >= 30) to
// the variants; EMIT_ALL_ACTIVE_SITES adds those below the threshold, LowQual, and keeps every
// passing variant record. bcftools reads both.
TEST(Call, OutputModesAddSitesToTheVariants) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " --device cpu -L chr20:10000000-10050000 -O ";
  ASSERT_EQ(call(args + shell_quote(dir.file("d.vcf"))).exit_code, 0);
  ASSERT_EQ(call(args + shell_quote(dir.file("c.vcf")) + " --output-mode EMIT_ALL_CONFIDENT_SITES")
                .exit_code,
            0);
  ASSERT_EQ(call(args + shell_quote(dir.file("a.vcf")) + " --output-mode EMIT_ALL_ACTIVE_SITES")
                .exit_code,
            0);
  const auto count = [&](const std::string& command) {
    const auto r = run_command("bash -c " + shell_quote(command));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::stoi(r.out);
  };
  const auto records = [&](const std::string& vcf) {
    return "<(grep -v '^#' " + shell_quote(dir.file(vcf)) + " | sort)";
  };
  const int variants = count("grep -vc '^#' " + shell_quote(dir.file("d.vcf")));
  EXPECT_GE(variants, 40);
  // Every variant record is in both, unchanged.
  EXPECT_EQ(count("comm -23 " + records("d.vcf") + " " + records("c.vcf") + " | wc -l"), 0);
  EXPECT_EQ(count("comm -23 " + records("d.vcf") + " " + records("a.vcf") + " | wc -l"), 0);
  // What the confident mode adds: hom-ref, QUAL >= 30, not filtered.
  const std::string added_confident = "comm -13 " + records("d.vcf") + " " + records("c.vcf");
  const int confident = count(added_confident + " | wc -l");
  EXPECT_GT(confident, 0);
  EXPECT_EQ(count(added_confident +
                  " | awk -F'\\t' '$5 == \".\" && $6 >= 30 && $7 == \".\" && $10 ~ /^0\\/0:/' "
                  "| wc -l"),
            confident);
  // What the active mode adds: LowQual, or hom-ref.
  const std::string added_active = "comm -13 " + records("d.vcf") + " " + records("a.vcf");
  const int active = count(added_active + " | wc -l");
  EXPECT_GT(active, confident);
  EXPECT_EQ(count(added_active + " | awk -F'\\t' '$7 == \"LowQual\" || $5 == \".\"' | wc -l"),
            active);
  EXPECT_GT(count(added_active + " | awk -F'\\t' '$7 == \"LowQual\"' | wc -l"), 0);
  EXPECT_EQ(count("bcftools view -H " + shell_quote(dir.file("a.vcf")) + " | wc -l"),
            variants + active);
}

// --all-site-pls (annotateAllSitesWithPLs): a monomorphic site's QUAL is -10 log10 P(no variant)
// instead of -10 log10 P(variant present), so at each such site (ALT '.') the two QUALs' error
// probabilities sum to 1, to their two decimals; variant records are unchanged.
TEST(Call, AllSitePlsGivesMonomorphicSitesTheNoVariantQual) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                           " --device cpu --output-mode EMIT_ALL_ACTIVE_SITES -O ";
  ASSERT_EQ(call(args + shell_quote(dir.file("a.vcf"))).exit_code, 0);
  const auto r = call(args + shell_quote(dir.file("p.vcf")) + " --all-site-pls");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string awk =
      "awk -F'\\t' '{ if ($2 != $12) mismatched++;"
      " else if ($5 != \".\") { variants++; if ($6 != $16 || $8 != $18 || $10 != $20) changed++ }"
      " else { s = 10 ^ (-$6 / 10) + 10 ^ (-$16 / 10); if (s < 0.997 || s > 1.003) off++;"
      " monomorphic++ } } END { print mismatched + 0, variants + 0, changed + 0,"
      " monomorphic + 0, off + 0 }'";
  const auto pairs =
      run_command("bash -c " + shell_quote("paste <(grep -v '^#' " + dir.file("a.vcf") +
                                           ") <(grep -v '^#' " + dir.file("p.vcf") + ") | " + awk));
  const std::vector<std::string> counts = test::split(test::lines_of(pairs.out).at(0), ' ');
  ASSERT_EQ(counts.size(), 5u) << pairs.out << pairs.err;
  EXPECT_EQ(counts[0], "0") << "the same sites";
  EXPECT_GE(std::stoi(counts[1]), 40);
  EXPECT_EQ(counts[2], "0") << "variant QUALs unchanged";
  EXPECT_GE(std::stoi(counts[3]), 5);
  EXPECT_EQ(counts[4], "0") << "P(no variant) + P(variant) = 1 at every monomorphic site";
}

// --ploidy-regions: chr20:10,030,001-10,070,000 haploid. The records well inside it are those of
// --ploidy 1, those well outside those of the diploid default (the active regions are the same:
// activity is evaluated at ploidy 2 at least); a gVCF's blocks inside are haploid ("0"). A region
// off the header's contigs is an error before any output.
TEST(Call, PloidyRegionsGenotypeEachRegionWithItsPloidy) {
  test::TempDir dir;
  const std::string bed = dir.file("haploid.bed");
  {
    std::ofstream out(bed);
    out << "chr20\t10030000\t10070000\t1\n";
  }
  const std::string args =
      "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) + " --device cpu -O ";
  ASSERT_EQ(call(args + shell_quote(dir.file("diploid.vcf"))).exit_code, 0);
  ASSERT_EQ(call(args + shell_quote(dir.file("haploid.vcf")) + " --ploidy 1").exit_code, 0);
  const auto r =
      call(args + shell_quote(dir.file("regions.vcf")) + " --ploidy-regions " + shell_quote(bed));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = [&](const std::string& vcf, const std::string& where) {
    return run_command("grep -v '^#' " + shell_quote(dir.file(vcf)) + " | awk '" + where + "'").out;
  };
  const std::string inside = "$2 >= 10031000 && $2 < 10069000";
  const std::string outside = "$2 < 10029000 || $2 >= 10071000";
  const std::string haploid_inside = records("regions.vcf", inside);
  EXPECT_GE(std::count(haploid_inside.begin(), haploid_inside.end(), '\n'), 20);
  EXPECT_TRUE(haploid_inside == records("haploid.vcf", inside));
  EXPECT_TRUE(haploid_inside != records("diploid.vcf", inside));
  const std::string diploid_outside = records("regions.vcf", outside);
  EXPECT_GE(std::count(diploid_outside.begin(), diploid_outside.end(), '\n'), 100);
  EXPECT_TRUE(diploid_outside == records("diploid.vcf", outside));

  ASSERT_EQ(call(args + shell_quote(dir.file("regions.g.vcf")) + " --gvcf --ploidy-regions " +
                 shell_quote(bed) + " -L chr20:10029000-10031000")
                .exit_code,
            0);
  const std::string blocks =
      records("regions.g.vcf", "$8 ~ /^END=/ { print $2, substr($10, 1, 3) }");
  EXPECT_NE(blocks.find("10029000 0/0"), std::string::npos) << blocks;
  EXPECT_NE(blocks.find(" 0:"), std::string::npos) << blocks;  // haploid blocks inside

  {
    std::ofstream out(dir.file("elsewhere.bed"));
    out << "chrZZ\t1\t100\t1\n";
  }
  const auto off = call(args + shell_quote(dir.file("off.vcf")) + " --ploidy-regions " +
                        shell_quote(dir.file("elsewhere.bed")));
  EXPECT_EQ(off.exit_code, 1);
  EXPECT_NE(off.err.find("--ploidy-regions: chrZZ:2-100 is not on a contig"), std::string::npos)
      << off.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("off.vcf")));
}

TEST(Call, NoReadGroupIsAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("norg.bam");
  ASSERT_EQ(run_command("samtools view -h " + shell_quote(na12878_bam()) +
                        " chr20:10000000-10001000 | grep -v '^@RG' | sed 's/\\tRG:Z:[^\\t]*//' | "
                        "samtools view -b -o " +
                        shell_quote(bam))
                .exit_code,
            0);
  const auto r = call("-I " + shell_quote(bam) + " -R " + shell_quote(hg19_chr20()) + " -O " +
                      shell_quote(dir.file("out.vcf")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("norg.bam: no read group"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.vcf")));
}

TEST(Call, ReadsOnAContigMissingFromTheReferenceAreAnError) {
  test::TempDir dir;
  // The nf-core chr22 reference has no chr20.
  const auto r = call("-I " + shell_quote(na12878_bam()) + " -R " +
                      shell_quote(test::data_path("nfcore_chr22_40kb/genome.fasta")) + " -O " +
                      shell_quote(dir.file("out.vcf")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("has no contig 'chr20'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.vcf")));
}

TEST(Call, NoReadsGiveAHeaderOnlyVcf) {
  test::TempDir dir;
  const std::string vcf = dir.file("empty.vcf");
  // An interval without reads: a valid VCF without records.
  const auto r = call("-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                      " -L chr20:20000000-20001000 -O " + shell_quote(vcf));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = test::read_file(vcf);
  EXPECT_NE(text.find("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tNA12878\n"),
            std::string::npos);
  EXPECT_EQ(run_command("grep -vc '^#' " + shell_quote(vcf)).out, "0\n");
  EXPECT_EQ(run_command("bcftools view -H " + shell_quote(vcf) + " | wc -l").out, "0\n");
}

TEST(Call, OutputMustBeAVcf) {
  test::TempDir dir;
  const auto r = call("-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20()) +
                      " -O " + shell_quote(dir.file("out.bam")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("out.bam: the output must end in .vcf or .vcf.gz"), std::string::npos)
      << r.err;
}

// --bqsr-recal-file recalibrates on the fly (Parabricks' --in-recal-file): the same records as
// calling on ApplyBQSR's output with that table, also with ApplyBQSR's options (Parabricks'
// --static-quantized-quals).
TEST(Call, RecalibrationOnTheFlyEqualsCallingOnApplyBqsrOutput) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string bam = test::data_path(d + "test.paired_end.sorted.bam");
  const std::string reference = test::data_path(d + "genome.fasta");
  const std::string table = test::data_path(d + "test.baserecalibrator.table");
  ASSERT_EQ(call("-I " + shell_quote(bam) + " -R " + shell_quote(reference) + " -O " +
                 shell_quote(dir.file("unrecalibrated.vcf")))
                .exit_code,
            0);
  std::vector<std::string> calls;
  for (const std::string options :
       {"", " --static-quantized-quals 10 --static-quantized-quals 20 --static-quantized-quals 30",
        " --quantize-quals 4 --preserve-qscores-less-than 12"}) {
    SCOPED_TRACE(options);
    const std::string recalibrated = dir.file("recalibrated.bam");
    ASSERT_EQ(run_command(shell_quote(test::binary_path()) + " applybqsr --verbosity ERROR -I " +
                          shell_quote(bam) + " --bqsr-recal-file " + shell_quote(table) + options +
                          " -O " + shell_quote(recalibrated))
                  .exit_code,
              0);
    ASSERT_EQ(call("-I " + shell_quote(recalibrated) + " -R " + shell_quote(reference) + " -O " +
                   shell_quote(dir.file("applied.vcf")))
                  .exit_code,
              0);
    ASSERT_EQ(
        call("-I " + shell_quote(bam) + " -R " + shell_quote(reference) + " --bqsr-recal-file " +
             shell_quote(table) + options + " -O " + shell_quote(dir.file("on_the_fly.vcf")))
            .exit_code,
        0);
    calls.push_back(records_of(dir.file("on_the_fly.vcf")));
    EXPECT_EQ(calls.back(), records_of(dir.file("applied.vcf")));
    // The table changes qualities, and so QUALs: the comparison is not between equal inputs.
    EXPECT_NE(calls.back(), records_of(dir.file("unrecalibrated.vcf")));
  }
  // Each set of options recalibrates differently.
  EXPECT_NE(calls[0], calls[1]);
  EXPECT_NE(calls[0], calls[2]);
  EXPECT_NE(calls[1], calls[2]);
}

using CallGpu = ::gpp::test::GpuTest;

TEST_F(CallGpu, GpuRecordsEqualCpuRecords) {
  test::TempDir dir;
  const std::string args = "-I " + shell_quote(na12878_bam()) + " -R " + shell_quote(hg19_chr20());
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("cpu.vcf")) + " --device cpu").exit_code, 0);
  ASSERT_EQ(call(args + " -O " + shell_quote(dir.file("gpu.vcf")) + " --device gpu").exit_code, 0);
  EXPECT_EQ(records_of(dir.file("cpu.vcf")), records_of(dir.file("gpu.vcf")));
}

/// Counts the records of two VCFs that differ, checking that each differs at most by the
/// rounding described below; returns {records, differing}.
std::pair<std::size_t, std::size_t> count_rounding_differences(const std::string& cpu_vcf,
                                                               const std::string& gpu_vcf) {
  const std::vector<std::string> cpu = test::split(records_of(cpu_vcf), '\n');
  const std::vector<std::string> gpu = test::split(records_of(gpu_vcf), '\n');
  EXPECT_EQ(cpu.size(), gpu.size());
  std::size_t records = 0, differing = 0;
  for (std::size_t i = 0; i < std::min(cpu.size(), gpu.size()); ++i) {
    if (cpu[i].empty() || cpu[i][0] == '#') {
      EXPECT_EQ(cpu[i], gpu[i]);
      continue;
    }
    ++records;
    if (cpu[i] == gpu[i]) continue;
    ++differing;
    const std::vector<std::string> c = test::split(cpu[i], '\t'), g = test::split(gpu[i], '\t');
    if (c.size() != 10 || g.size() != 10) {
      ADD_FAILURE() << cpu[i];
      continue;
    }
    for (int f : {0, 1, 3, 4, 8}) EXPECT_EQ(c[f], g[f]) << cpu[i];  // CHROM POS REF ALT FORMAT
    if (c[5] != "." || g[5] != ".") {
      EXPECT_NEAR(std::stod(c[5]), std::stod(g[5]), 1e-3 * std::stod(c[5])) << cpu[i];
    }
    const std::vector<std::string> keys = test::split(c[8], ':');
    const std::vector<std::string> cs = test::split(c[9], ':'), gs = test::split(g[9], ':');
    if (cs.size() != keys.size() || gs.size() != keys.size()) {
      ADD_FAILURE() << cpu[i];
      continue;
    }
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] != "GQ" && keys[k] != "PL") {
        EXPECT_EQ(cs[k], gs[k]) << keys[k] << " in " << cpu[i];
        continue;
      }
      const std::vector<std::string> cv = test::split(cs[k], ','), gv = test::split(gs[k], ',');
      EXPECT_EQ(cv.size(), gv.size()) << cpu[i];
      for (std::size_t v = 0; v < std::min(cv.size(), gv.size()); ++v) {
        EXPECT_LE(std::abs(std::stoi(cv[v]) - std::stoi(gv[v])), 1) << cpu[i];
      }
    }
  }
  return {records, differing};
}

// The GPU PairHMM sums in single precision in another order than the CPU engine (both within
// GATK's 1e-5 log10 of the double-precision result), so a genotype whose likelihoods sit on a
// rounding boundary may get a PL, GQ or QUAL one unit apart. Over 30x of 2 Mb of simulated reads
// (about 2,000 calls; in gVCF mode also the blocks of every base) this test counts such records
// and bounds them: at most 0.5% of the calls, each with the same position, alleles, genotype and
// other fields, PLs and GQ within 1, QUAL within 0.1%.
TEST_F(CallGpu, GpuAndCpuDifferAtMostByRoundingOnSimulatedReads) {
  test::TempDir dir;
  const std::string reference = dir.file("ref.fa");
  ASSERT_EQ(run_command("sh -c 'samtools faidx " +
                        test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz") +
                        " chr20:1-2000000 | sed \"s/^>.*/>chr20/\" > " + reference +
                        " && samtools faidx " + reference + "'")
                .exit_code,
            0);
  const std::string bam = dir.file("sim.bam");
  ASSERT_EQ(run_command(shell_quote(test::bench_generate_path()) + " " + shell_quote(reference) +
                        " " + shell_quote(bam) + " 200000 --sorted --seed 11")
                .exit_code,
            0);
  const std::string args = "-I " + shell_quote(bam) + " -R " + shell_quote(reference);
  for (const std::string mode : {"vcf", "g.vcf"}) {
    const std::string extra = mode == "vcf" ? "" : " --gvcf";
    const std::string cpu = dir.file("cpu." + mode), gpu = dir.file("gpu." + mode);
    ASSERT_EQ(call(args + extra + " -O " + shell_quote(cpu) + " --device cpu").exit_code, 0);
    ASSERT_EQ(call(args + extra + " -O " + shell_quote(gpu) + " --device gpu").exit_code, 0);
    const auto [records, differing] = count_rounding_differences(cpu, gpu);
    EXPECT_GT(records, 1500u);
    EXPECT_LE(differing, 10u) << differing << " of " << records;  // 0.5% of about 2,000 calls
    std::cout << mode << ": GPU and CPU differ in " << differing << " of " << records
              << " records\n";
  }
}

}  // namespace
}  // namespace gpp::pipeline
