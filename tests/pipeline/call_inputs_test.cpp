// gpu-pipeline call on hostile inputs: a 20,000x pile-up, reads of 5,000 bases, empty interval
// files, read groups without or with several samples, malformed reads, a truncated BAM,
// unsorted input and an output directory that does not exist. Each either works (the planted
// SNP is called, the VCF is valid) or fails with one line `gpu-pipeline: error: <file>: <what>`,
// exit code 1 and no output file. The reads are made here from the nf-core chr22 reference
// (40,001 bp) with a heterozygous SNP planted at chr22:20101, or cut from the NA12878 BAM.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "tests/pipeline/synthetic_reads.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;

constexpr std::int64_t kContigLength = 40001;
/// The planted SNP, 0-based (chr22:20101 in the VCF): reference T, alternate C.
constexpr std::int64_t kSnp = 20100;
const std::string kSnpRecord = "chr22\t20101\tT\tC\t0/1";

std::string genome() { return test::data_path("nfcore_chr22_40kb/genome.fasta"); }
std::string na12878_bam() {
  return test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam");
}
std::string hg19_chr20() {
  return test::data_path("real_na12878_chr20_hg19/ucsc.hg19.chr20.unittest.fasta.gz");
}

/// The bases of genome.fasta's one contig, upper-case.
const std::string& reference_bases() { return test::synthetic::chr22_bases(); }

constexpr const char* kOneSample = "@RG\tID:rg1\tSM:NA12878\n";

std::string sam_header(const std::string& read_groups = kOneSample,
                       std::int64_t contig_length = kContigLength) {
  return "@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:chr22\tLN:" + std::to_string(contig_length) + "\n" +
         read_groups;
}

/// One SAM line: `length` reference bases from 0-based `start` (the SNP's C where `alt`), all
/// qualities 40, MAPQ 60, in read group rg1.
std::string sam_read(const std::string& name, std::int64_t start, std::int64_t length, bool alt,
                     bool reverse = false) {
  std::string bases =
      reference_bases().substr(static_cast<std::size_t>(start), static_cast<std::size_t>(length));
  if (alt && start <= kSnp && kSnp < start + length) {
    EXPECT_EQ(bases[static_cast<std::size_t>(kSnp - start)], 'T');
    bases[static_cast<std::size_t>(kSnp - start)] = 'C';
  }
  return name + (reverse ? "\t16" : "\t0") + "\tchr22\t" + std::to_string(start + 1) + "\t60\t" +
         std::to_string(length) + "M\t*\t0\t0\t" + bases + "\t" + std::string(bases.size(), 'I') +
         "\tRG:Z:rg1\n";
}

/// Forty 5,000-base reads (but read `skip`), one every 100 bases, all covering the SNP; every
/// other one carries it.
std::string long_reads(int skip = -1) {
  std::string sam;
  for (int i = 0; i < 40; ++i) {
    if (i != skip)
      sam +=
          sam_read("long" + std::to_string(i), kSnp - 4500 + 100 * i, 5000, i % 2 == 1, i % 4 >= 2);
  }
  return sam;
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// `sam` as a BAM at `bam` (samtools also checks the SAM text).
void to_bam(const test::TempDir& dir, const std::string& sam, const std::string& bam) {
  const std::string text = dir.file("to_bam.sam");
  write(text, sam);
  const auto r = run_command("samtools view -b -o " + shell_quote(bam) + " " + shell_quote(text));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

/// gpu-pipeline call, stopped after 300 s so that a hang fails the test instead of stalling it.
test::CommandResult call(const std::string& args, const std::string& verbosity = "WARNING") {
  return run_command("timeout 300 " + shell_quote(test::binary_path()) + " call " + args +
                     " --verbosity " + verbosity);
}

std::string call_args(const std::string& input, const std::string& reference,
                      const std::string& output) {
  return "-I " + shell_quote(input) + " -R " + shell_quote(reference) + " -O " +
         shell_quote(output);
}

/// CHROM POS REF ALT GT of each record (bcftools parses the whole VCF: a malformed one fails).
std::string calls_of(const std::string& vcf) {
  const auto r =
      run_command("bcftools query -f '%CHROM\\t%POS\\t%REF\\t%ALT[\\t%GT]\\n' " + shell_quote(vcf));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

/// The VCF's lines without the command-line header line (it names the input and output).
std::string records_of(const std::string& vcf) {
  return run_command("grep -v '^##gpu-pipelineCommand' " + shell_quote(vcf)).out;
}

/// The run failed with exit code 1 and one line `gpu-pipeline: error: <what>`, `what` holding
/// `expected`, and left nothing whose name starts with `output_name` in `dir`.
void expect_one_line_error(const test::CommandResult& r, const std::string& expected,
                           const test::TempDir& dir, const std::string& output_name = "out.vcf") {
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("gpu-pipeline: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  for (const std::string& entry : dir.entries()) {
    EXPECT_NE(entry.rfind(output_name, 0), 0u) << "left behind: " << entry;
  }
}

// --- extreme depth ----------------------------------------------------------------------------

/// 20,000 reads of 500 bases, 40 starting at each of the 500 positions whose read covers the SNP:
/// the per-start downsampling (50) keeps them all, so only --max-reads-per-region (2000) bounds
/// the work. Which reads carry the SNP is drawn at random (fixed seed), half of them: the cap keeps
/// every tenth read here, so strictly alternating reads would all be kept from one allele.
TEST(CallInputs, TwentyThousandXPileUpIsCappedAndCallsTheSnp) {
  test::TempDir dir;
  std::mt19937 random(20000);
  std::string sam = sam_header();
  int n = 0;
  for (std::int64_t start = kSnp - 499; start <= kSnp; ++start) {
    for (int k = 0; k < 40; ++k, ++n) {
      const std::uint32_t bits = random();
      sam += sam_read("deep" + std::to_string(n), start, 500, bits & 1u, bits & 2u);
    }
  }
  ASSERT_EQ(n, 20000);
  const std::string bam = dir.file("deep.bam");
  to_bam(dir, sam, bam);
  const std::string vcf = dir.file("deep.vcf");
  const auto r = call(call_args(bam, genome(), vcf));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(calls_of(vcf), kSnpRecord + "\n");
  // The region's reads were capped: DP counts at most 2000 of the 20,000, about half of them
  // with the SNP.
  const auto depth = run_command("bcftools query -f '[%DP %AD]' " + shell_quote(vcf));
  int dp = 0, ref_depth = 0, alt_depth = 0;
  char comma = 0;
  std::istringstream(depth.out) >> dp >> ref_depth >> comma >> alt_depth;
  EXPECT_GT(dp, 1000) << depth.out;
  EXPECT_LE(dp, 2000) << depth.out;
  EXPECT_GT(alt_depth, dp / 3) << depth.out;
  EXPECT_GT(ref_depth, dp / 3) << depth.out;
}

/// 20,000 copies (distinct names) of one read, half with the SNP: the per-start downsampling
/// keeps 50.
TEST(CallInputs, TwentyThousandCopiesOfOneReadAreDownsampled) {
  test::TempDir dir;
  std::mt19937 random(50);
  std::string sam = sam_header();
  for (int n = 0; n < 20000; ++n)
    sam += sam_read("copy" + std::to_string(n), kSnp - 60, 150, random() & 1u);
  const std::string bam = dir.file("copies.bam");
  to_bam(dir, sam, bam);
  const std::string vcf = dir.file("copies.vcf");
  const auto r = call(call_args(bam, genome(), vcf));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(calls_of(vcf), kSnpRecord + "\n");
  EXPECT_EQ(run_command("bcftools query -f '[%DP]' " + shell_quote(vcf)).out, "50");
}

// --- long reads -------------------------------------------------------------------------------

TEST(CallInputs, ReadsOfFiveThousandBasesCallTheSnp) {
  test::TempDir dir;
  const std::string bam = dir.file("long.bam");
  to_bam(dir, sam_header() + long_reads(), bam);
  const std::string vcf = dir.file("long.vcf.gz");
  const auto r = call(call_args(bam, genome(), vcf));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(calls_of(vcf), kSnpRecord + "\n");
  EXPECT_EQ(run_command("bcftools query -f '[%AD]' " + shell_quote(vcf)).out, "20,20");
}

// --- intervals --------------------------------------------------------------------------------

/// GATK refuses an interval file without intervals (IntervalUtils.intervalFileToList: "It
/// contains no intervals."); calling the whole genome instead would be a silent surprise.
TEST(CallInputs, IntervalFileWithoutIntervalsIsAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("long.bam");
  to_bam(dir, sam_header() + long_reads(), bam);
  write(dir.file("empty.bed"), "");
  write(dir.file("comments.bed"), "track name=none\n# nothing here\n\n");
  write(dir.file("header_only.interval_list"), sam_header());
  for (const std::string name : {"empty.bed", "comments.bed", "header_only.interval_list"}) {
    SCOPED_TRACE(name);
    const auto r =
        call(call_args(bam, genome(), dir.file("out.vcf")) + " -L " + shell_quote(dir.file(name)));
    expect_one_line_error(r, name + ": the interval file contains no intervals", dir);
  }
}

TEST(CallInputs, EmptyIntervalIsAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("long.bam");
  to_bam(dir, sam_header() + long_reads(), bam);
  write(dir.file("zero_length.bed"), "chr22\t100\t100\n");
  auto r = call(call_args(bam, genome(), dir.file("out.vcf")) + " -L " +
                shell_quote(dir.file("zero_length.bed")));
  expect_one_line_error(r, "zero_length.bed: line 1: interval chr22:101-100 is empty", dir);
  r = call(call_args(bam, genome(), dir.file("out.vcf")) + " -L chr22:200-100");
  expect_one_line_error(r, "-L chr22:200-100: interval chr22:200-100 is empty", dir);
}

// --- samples ----------------------------------------------------------------------------------

TEST(CallInputs, ReadGroupWithoutSampleIsAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("nosm.bam");
  to_bam(dir, sam_header(std::string(kOneSample) + "@RG\tID:rg2\tLB:lib2\n") + long_reads(), bam);
  expect_one_line_error(call(call_args(bam, genome(), dir.file("out.vcf"))),
                        "nosm.bam: read group 'rg2' has no sample (SM)", dir);
}

TEST(CallInputs, TwoSamplesAreAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("two.bam");
  to_bam(dir, sam_header(std::string(kOneSample) + "@RG\tID:rg2\tSM:NA12891\n") + long_reads(),
         bam);
  expect_one_line_error(call(call_args(bam, genome(), dir.file("out.vcf"))),
                        "two.bam: 2 samples in the read groups ('NA12878', 'NA12891')", dir);
}

TEST(CallInputs, TwoReadGroupsOfOneSampleAreOneSample) {
  test::TempDir dir;
  const std::string bam = dir.file("tworg.bam");
  to_bam(dir, sam_header(std::string(kOneSample) + "@RG\tID:rg2\tSM:NA12878\n") + long_reads(),
         bam);
  const std::string vcf = dir.file("out.vcf");
  ASSERT_EQ(call(call_args(bam, genome(), vcf)).exit_code, 0);
  EXPECT_EQ(calls_of(vcf), kSnpRecord + "\n");
  EXPECT_EQ(run_command("bcftools query -l " + shell_quote(vcf)).out, "NA12878\n");
}

// --- malformed reads --------------------------------------------------------------------------

/// Rewrites the first CIGAR operation of the record named `name` to `length`M, in the plain BAM
/// stream (bgzip -d), and compresses it again: a record whose CIGAR and SEQ lengths differ, which
/// samtools refuses to write.
void set_cigar_length(const std::string& bam, const std::string& out, const std::string& name,
                      std::uint32_t length) {
  const auto plain = run_command("bgzip -dc " + shell_quote(bam));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  std::string bytes = plain.out;
  ASSERT_GT(bytes.size(), 12u);
  const auto int32_at = [&](std::size_t offset) {
    std::int32_t value = 0;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return static_cast<std::size_t>(value);
  };
  std::size_t offset = 8 + int32_at(4);  // magic, l_text, text
  const std::size_t references = int32_at(offset);
  offset += 4;
  for (std::size_t i = 0; i < references; ++i) offset += 8 + int32_at(offset);
  bool found = false;
  while (offset < bytes.size()) {
    const std::size_t name_length = static_cast<std::uint8_t>(bytes[offset + 12]);
    if (bytes.compare(offset + 36, name_length - 1, name) == 0 && name_length - 1 == name.size()) {
      const std::uint32_t operation = length << 4;  // op 0: M
      std::memcpy(bytes.data() + offset + 36 + name_length, &operation, sizeof operation);
      found = true;
    }
    offset += 4 + int32_at(offset);
  }
  ASSERT_TRUE(found) << name;
  const std::string raw = out + ".raw";
  write(raw, bytes);
  const auto compressed = run_command("bgzip -c " + shell_quote(raw));
  ASSERT_EQ(compressed.exit_code, 0) << compressed.err;
  write(out, compressed.out);
}

/// A BAM record whose CIGAR covers 4,000 bases of its 5,000 is refused as samtools refuses it
/// (htslib's bam_read1), with the file and the record, as the SAM path refuses such a line.
TEST(CallInputs, BamReadWithCigarAndSequenceOfDifferentLengthsIsAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("long.bam");
  to_bam(dir, sam_header() + long_reads(), bam);
  const std::string bad = dir.file("bad_cigar.bam");
  set_cigar_length(bam, bad, "long11", 4000);
  expect_one_line_error(call(call_args(bad, genome(), dir.file("out.vcf"))),
                        "bad_cigar.bam: corrupt BAM record", dir);
}

/// HTSlib's SAM parser refuses such a line: an error naming the file.
TEST(CallInputs, SamReadWithCigarAndSequenceOfDifferentLengthsIsAnError) {
  test::TempDir dir;
  std::string sam = sam_header() + long_reads();
  const std::size_t cigar = sam.find("\t5000M\t", sam.find("long11\t"));
  sam.replace(cigar, 7, "\t4000M\t");
  write(dir.file("bad.sam"), sam);
  expect_one_line_error(call(call_args(dir.file("bad.sam"), genome(), dir.file("out.vcf"))),
                        "bad.sam: ", dir);
}

/// A read running past the end of its contig fails WellformedReadFilter
/// (ALIGNMENT_AGREES_WITH_HEADER): the calls are those without it.
TEST(CallInputs, ReadPastTheContigEndIsFiltered) {
  test::TempDir dir;
  const std::string bases = reference_bases().substr(kContigLength - 500) + std::string(500, 'A');
  const std::string past_end = "past_end\t0\tchr22\t" + std::to_string(kContigLength - 499) +
                               "\t60\t1000M\t*\t0\t0\t" + bases + "\t" + std::string(1000, 'I') +
                               "\tRG:Z:rg1\n";
  write(dir.file("past_end.sam"), sam_header() + long_reads() + past_end);
  write(dir.file("plain.sam"), sam_header() + long_reads());
  ASSERT_EQ(call(call_args(dir.file("past_end.sam"), genome(), dir.file("a.vcf"))).exit_code, 0);
  ASSERT_EQ(call(call_args(dir.file("plain.sam"), genome(), dir.file("b.vcf"))).exit_code, 0);
  EXPECT_EQ(calls_of(dir.file("a.vcf")), kSnpRecord + "\n");
  EXPECT_EQ(records_of(dir.file("a.vcf")), records_of(dir.file("b.vcf")));
}

/// The BAM's chr22 is 50,000 bp, the reference's 40,001: an error before any calling.
TEST(CallInputs, ContigOfAnotherLengthThanTheReferenceIsAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("longer.bam");
  to_bam(dir, sam_header(kOneSample, 50000) + long_reads(), bam);
  expect_one_line_error(call(call_args(bam, genome(), dir.file("out.vcf"))),
                        "genome.fasta: contig 'chr22' is 40001 bp here but 50000 bp in the "
                        "header of " +
                            bam,
                        dir);
}

// --- damaged and unsorted files ---------------------------------------------------------------

/// NA12878's reads in chr20:10,000,000-10,010,000 as a BAM at `bam`.
void na12878_slice(const std::string& bam) {
  ASSERT_EQ(run_command("samtools view -b -o " + shell_quote(bam) + " " +
                        shell_quote(na12878_bam()) + " chr20:10000000-10010000")
                .exit_code,
            0);
}

TEST(CallInputs, TruncatedBamIsAnError) {
  test::TempDir dir;
  const std::string bam = dir.file("slice.bam");
  na12878_slice(bam);
  const std::string bytes = test::read_file(bam);
  ASSERT_GT(bytes.size(), 100000u);
  // Cut in the middle of a BGZF block.
  write(dir.file("cut.bam"), bytes.substr(0, bytes.size() / 2));
  expect_one_line_error(call(call_args(dir.file("cut.bam"), hg19_chr20(), dir.file("out.vcf.gz"))),
                        "cut.bam: the BGZF end-of-file marker is missing: the file is truncated",
                        dir, "out.vcf");
  // Cut in the middle of a record, as whole BGZF blocks ending with the end-of-file marker.
  const auto short_bam =
      run_command("bgzip -dc " + shell_quote(bam) + " | head -c 1000000 | bgzip -c");
  ASSERT_EQ(short_bam.exit_code, 0) << short_bam.err;
  write(dir.file("short.bam"), short_bam.out);
  expect_one_line_error(
      call(call_args(dir.file("short.bam"), hg19_chr20(), dir.file("out.vcf.gz"))),
      "short.bam: truncated or corrupt BAM data after record", dir, "out.vcf");
}

/// The records of `bam` as SAM lines.
std::vector<std::string> sam_records(const std::string& bam) {
  std::istringstream lines(run_command("samtools view " + shell_quote(bam)).out);
  std::vector<std::string> records;
  for (std::string line; std::getline(lines, line);) records.push_back(line);
  return records;
}

/// A shuffled BAM is sorted in memory: the records are those of the sorted input.
TEST(CallInputs, UnsortedInputGivesTheRecordsOfSortedInput) {
  test::TempDir dir;
  const std::string sorted = dir.file("sorted.bam");
  na12878_slice(sorted);
  std::vector<std::string> records = sam_records(sorted);
  ASSERT_GT(records.size(), 4000u);
  std::shuffle(records.begin(), records.end(), std::mt19937(7));
  std::string sam = run_command("samtools view -H " + shell_quote(sorted)).out;
  for (const std::string& record : records) sam += record + "\n";
  const std::string shuffled = dir.file("shuffled.bam");
  to_bam(dir, sam, shuffled);
  const std::string interval = " -L chr20:10000000-10010000";
  ASSERT_EQ(call(call_args(sorted, hg19_chr20(), dir.file("sorted.vcf")) + interval).exit_code, 0);
  const auto r =
      call(call_args(shuffled, hg19_chr20(), dir.file("shuffled.vcf")) + interval, "INFO");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is not coordinate-sorted; sorting it in memory"), std::string::npos);
  const std::string calls = records_of(dir.file("sorted.vcf"));
  EXPECT_GT(std::count(calls.begin(), calls.end(), '\n'), 60);
  EXPECT_EQ(records_of(dir.file("shuffled.vcf")), calls);
}

/// `held` and `streamed` (the same reads) give the same VCF and the same gVCF, of more than
/// `min_lines` lines.
void expect_same_records(const test::TempDir& dir, const std::string& held,
                         const std::string& streamed, const std::string& reference,
                         const std::string& extra, long min_lines) {
  for (const std::string mode : {"", " --gvcf"}) {
    ASSERT_EQ(call(call_args(held, reference, dir.file("held.vcf")) + extra + mode).exit_code, 0);
    ASSERT_EQ(
        call(call_args(streamed, reference, dir.file("streamed.vcf")) + extra + mode).exit_code, 0);
    const std::string records = records_of(dir.file("held.vcf"));
    EXPECT_GT(std::count(records.begin(), records.end(), '\n'), min_lines);
    EXPECT_EQ(records_of(dir.file("streamed.vcf")), records) << mode;
  }
}

// The same BAM with and without SO:coordinate in its header: streamed through the caller batch by
// batch, or held whole; the records are the same, VCF and gVCF.
TEST(CallInputs, StreamedAndHeldInputGiveTheSameRecords) {
  test::TempDir dir;
  const std::string held = na12878_bam();  // no @HD line: held whole
  const std::string streamed = dir.file("streamed.bam");
  ASSERT_EQ(run_command("sh -c '(printf \"@HD\\tVN:1.6\\tSO:coordinate\\n\"; samtools view -h " +
                        held + ") | samtools view -b -o " + streamed + " -'")
                .exit_code,
            0);
  ASSERT_NE(run_command("samtools view -H " + shell_quote(streamed)).out.find("SO:coordinate"),
            std::string::npos);
  expect_same_records(dir, held, streamed, hg19_chr20(), " -L chr20:10000000-10040000", 100);
}

// With -L, an indexed input is read through its index, only near the intervals: within the
// assembly padding (the first interval's last SNP, at 10,000,211, counts reads that end before
// the interval in its DP), and each record once (the second and third intervals are closer than
// twice the padding). The records equal those of the same file without an index, read whole; VCF
// and gVCF.
TEST(CallInputs, IndexedInputIsReadOnlyNearTheIntervals) {
  test::TempDir dir;
  const std::string unindexed = dir.file("unindexed.bam");
  ASSERT_EQ(
      run_command("cp " + shell_quote(na12878_bam()) + " " + shell_quote(unindexed)).exit_code, 0);
  const std::string intervals =
      " -L chr20:9999911-10000212 -L chr20:10004150-10009000 -L chr20:10009150-10012000";
  const auto r =
      call(call_args(na12878_bam(), hg19_chr20(), dir.file("indexed.vcf")) + intervals, "INFO");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find(na12878_bam() + ": reading the records near the intervals through its index"),
      std::string::npos)
      << r.err;
  const auto whole =
      call(call_args(unindexed, hg19_chr20(), dir.file("whole.vcf")) + intervals, "INFO");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(whole.err.find("through the index"), std::string::npos) << whole.err;
  expect_same_records(dir, unindexed, na12878_bam(), hg19_chr20(), intervals, 20);
}

// More records than one streamed batch (2^18), so that alignment-start stacks and contigs cross
// batch boundaries: the streamed records equal those of the same reads held whole.
TEST(CallStreamingConformance, StreamedBatchesGiveTheRecordsOfTheWholeInput) {
  test::TempDir dir;
  const std::string reference = dir.file("ref.fa");
  ASSERT_EQ(
      run_command(
          "sh -c 'samtools faidx " +
          test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz") +
          " chr20:2000001-2600000 chr21:8000001-8400000 | sed \"s/^>chr2\\([01]\\).*/>c\\1/\" > " +
          reference + " && samtools faidx " + reference + "'")
          .exit_code,
      0);
  const std::string streamed = dir.file("streamed.bam");
  ASSERT_EQ(run_command(shell_quote(test::bench_generate_path()) + " " + shell_quote(reference) +
                        " " + shell_quote(streamed) + " 150000 --sorted --seed 5")
                .exit_code,
            0);
  const std::string held = dir.file("held.bam");
  ASSERT_EQ(run_command("sh -c 'samtools view -h " + streamed +
                        " | grep -v ^@HD | samtools view -b -o " + held + " -'")
                .exit_code,
            0);
  EXPECT_GT(std::stoul(run_command("samtools view -c " + shell_quote(streamed)).out),
            std::size_t{1} << 18);
  expect_same_records(dir, held, streamed, reference, "", 500);
}

// A header that says SO:coordinate is believed: the input streams through the caller, and records
// out of that order are an error naming the input and the two positions (no output is left).
TEST(CallInputs, UnsortedRecordsUnderACoordinateHeaderAreAnError) {
  test::TempDir dir;
  const std::string sorted = dir.file("sorted.bam");
  na12878_slice(sorted);
  std::vector<std::string> records = sam_records(sorted);
  ASSERT_GT(records.size(), 4000u);
  std::swap(records[100], records[3000]);
  std::string sam = "@HD\tVN:1.6\tSO:coordinate\n";
  std::istringstream header(run_command("samtools view -H " + shell_quote(sorted)).out);
  for (std::string line; std::getline(header, line);) {
    if (line.rfind("@HD", 0) != 0) sam += line + "\n";
  }
  for (const std::string& record : records) sam += record + "\n";
  const std::string lying = dir.file("lying.bam");
  to_bam(dir, sam, lying);
  const auto r = call(call_args(lying, hg19_chr20(), dir.file("lying.vcf")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(lying + ": the records are not in coordinate order (chr20:"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("lying.vcf")));
}

// --- output -----------------------------------------------------------------------------------

/// The output's directory is checked before the input is read.
TEST(CallInputs, OutputInAMissingDirectoryIsAnErrorBeforeWork) {
  test::TempDir dir;
  const std::string output = dir.file("missing/out.vcf");
  const auto r = call(call_args(na12878_bam(), hg19_chr20(), output), "INFO");
  expect_one_line_error(
      r, output + ": cannot write output (directory " + dir.file("missing") + " does not exist)",
      dir, "missing");
}

}  // namespace
}  // namespace gpp::pipeline
