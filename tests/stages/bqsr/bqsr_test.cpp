// bqsr and applybqsr against GATK's own outputs:
// - nf-core test/test2 BaseRecalibrator tables (GATK 4, default arguments, dbSNP 146 + Mills) of
//   the Picard-duplicate-marked BAMs, reproduced byte for byte from the unmarked BAMs through our
//   markdup;
// - GATK's BaseRecalibratorIntegrationTest chr17 tables (-indels --enable-baq), byte for byte;
// - GATK's ApplyBQSRIntegrationTest goldens (default, --quantize-quals 6, --static-quantized-quals
//   10 20 30) compared record by record: qualities and aux fields identical.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/bam/alignment_reader.hpp"
#include "io/reads/aux_fields.hpp"
#include "io/text/text_input.hpp"
#include "stages/bqsr/quantization.hpp"
#include "stages/bqsr/recal_math.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::bqsr {
namespace {

using test::run_command;
using test::shell_quote;

std::string gpp() { return shell_quote(test::binary_path()) + " "; }

TEST(RecalTableMath, EmpiricalQualityMatchesGatkRows) {
  // nf-core test table, RecalTable0: 447546 observations, 417 errors, reported 31.7482 -> 30.
  EXPECT_EQ(empirical_quality(447546, 417.0, 31.7482), 30.0);
  // RecalTable1 rows: (q13, 4435 obs, 225 errors) -> 13; (q8, 11 obs, 2 errors) -> 8.
  EXPECT_EQ(empirical_quality(4435, 225.0, 13), 13.0);
  EXPECT_EQ(empirical_quality(11, 2.0, 8), 8.0);
  // GATK 3 table, RecalTable0 M row: 74271335 obs, 148412.17 errors, prior 27.4717 -> 27.
  EXPECT_EQ(empirical_quality(74271335, 148412.17, 27.4717), 27.0);
}

TEST(RecalTableMath, JavaFixedFormatting) {
  EXPECT_EQ(java_format_fixed(0.125, 2), "0.13");  // HALF_UP on the decimal digits, unlike printf
  EXPECT_EQ(java_format_fixed(1.005, 2), "1.01");  // shortest repr "1.005", not 1.00499...
  EXPECT_EQ(java_format_fixed(31.74819, 4), "31.7482");
  EXPECT_EQ(java_format_fixed(417.0, 2), "417.00");
  EXPECT_EQ(java_format_fixed(9.99996, 4), "10.0000");
  EXPECT_EQ(java_format_fixed(0.0, 4), "0.0000");
  EXPECT_EQ(round_to_decimals(2.675, 2), 2.68);
}

TEST(RecalTableMath, StaticQuantizationMap) {
  const std::vector<int> map = static_quantization_map({30, 10, 20}, false);
  EXPECT_EQ(map[5], 5);  // below 6: unchanged
  EXPECT_EQ(map[6], 6);  // nearest in probability space to 6 (not 10)
  EXPECT_EQ(map[9], 10);
  EXPECT_EQ(map[12], 10);
  EXPECT_EQ(map[14], 20);
  EXPECT_EQ(map[25], 30);
  EXPECT_EQ(map[40], 30);
  const std::vector<int> down = static_quantization_map({10, 20, 30}, true);
  EXPECT_EQ(down[19], 10);
  EXPECT_EQ(down[29], 20);
  EXPECT_EQ(down[45], 30);
}

TEST(RecalTableReport, GatkTablesRoundTrip) {
  // Parsing a GATK 4 table and writing it again gives the same bytes (values, order, padding).
  for (const char* name : {"nfcore_chr22_40kb/test.baserecalibrator.table",
                           "nfcore_chr22_40kb/test2.baserecalibrator.table"}) {
    const std::string text = test::read_file(test::data_path(name));
    const RecalibrationReport report = parse_recalibration_report(text, name);
    EXPECT_EQ(format_recalibration_report(report.tables, report.read_groups), text) << name;
  }
}

TEST(RecalTableReport, ReadsGatk3TableWithIndelRows) {
  const std::string path = test::data_path("gatk_golden/applybqsr/HiSeq.20mb.1RG.table.gz");
  const RecalibrationReport report = parse_recalibration_report(io::read_text_file(path), path);
  ASSERT_EQ(report.read_groups, std::vector<std::string>{"20GAVAAXX100126.8"});
  const RecalBin& m = report.tables.read_group(0, static_cast<int>(EventType::kMismatch));
  EXPECT_EQ(m.observations, 74271335);
  EXPECT_NEAR(m.errors(), 148412.17, 1e-6);
  EXPECT_DOUBLE_EQ(m.estimated_quality, 27.4717);
  EXPECT_TRUE(report.tables.read_group(0, static_cast<int>(EventType::kInsertion)).present);
  EXPECT_EQ(report.tables.quality(0, 6, 0).observations, 63187);
  EXPECT_EQ(report.quantized_quals[0], 10);
}

TEST(RecalTableReport, MalformedTableIsOneLineErrorWithoutOutput) {
  test::TempDir dir;
  const std::string table = dir.file("bad.table");
  std::ofstream(table) << "#:GATKReport.v1.1:5\n#:GATKTable:2:17:%s:%s:;\n";
  const auto r = run_command(
      gpp() + "applybqsr --device cpu -I " +
      shell_quote(test::data_path("gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam")) +
      " --bqsr-recal-file " + shell_quote(table) + " -O " + shell_quote(dir.file("out.bam")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("gpu-pipeline: error: " + table + ": malformed", 0), 0u) << r.err;
  EXPECT_FALSE(std::ifstream(dir.file("out.bam")).good());
}

// nf-core's GATK tables from the unmarked BAMs through our markdup, then bqsr with `bqsr_args`.
void expect_nfcore_tables_match(const std::string& bqsr_args) {
  for (const std::string sample : {"test", "test2"}) {
    test::TempDir dir;
    const std::string d = "nfcore_chr22_40kb/";
    const auto md =
        run_command(gpp() + "markdup --device cpu --verbosity ERROR -I " +
                    shell_quote(test::data_path(d + sample + ".paired_end.sorted.bam")) + " -O " +
                    shell_quote(dir.file("md.bam")));
    ASSERT_EQ(md.exit_code, 0) << md.err;
    const auto bq = run_command(
        gpp() + "bqsr " + bqsr_args + " --verbosity ERROR -I " + shell_quote(dir.file("md.bam")) +
        " -R " + shell_quote(test::data_path(d + "genome.fasta")) + " --known-sites " +
        shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) + " --known-sites " +
        shell_quote(test::data_path(d + "mills_and_1000G.indels.vcf.gz")) + " -O " +
        shell_quote(dir.file("recal.table")));
    ASSERT_EQ(bq.exit_code, 0) << bq.err;
    const std::string expected =
        test::read_file(test::data_path(d + sample + ".baserecalibrator.table"));
    ASSERT_GT(expected.size(), 100000u);
    EXPECT_TRUE(test::read_file(dir.file("recal.table")) == expected)
        << sample << " (" << bqsr_args << "): table differs from GATK's";
  }
}

TEST(BqsrConformance, NfcoreTablesMatchGatk) { expect_nfcore_tables_match("--device cpu"); }

// bqsr streams its input: counts added batch by batch give the same tables.
TEST(BqsrConformance, NfcoreTablesMatchGatkInSmallBatches) {
  expect_nfcore_tables_match("--device cpu --records-per-batch 997");
  expect_nfcore_tables_match("--device cpu --records-per-batch 997 --counting-method sort-reduce");
}

// --use-original-qualities (-OQ): BaseRecalibrator counts the qualities of the OQ tag. The
// marked BAM recalibrated with GATK's table and --emit-original-quals keeps its old qualities in
// OQ: counted with -OQ it gives GATK's table again, counted as it is another one.
void expect_original_qualities_counted(const std::string& device) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string table = test::data_path(d + "test.baserecalibrator.table");
  ASSERT_EQ(run_command(gpp() + "markdup --device cpu --verbosity ERROR -I " +
                        shell_quote(test::data_path(d + "test.paired_end.sorted.bam")) + " -O " +
                        shell_quote(dir.file("md.bam")))
                .exit_code,
            0);
  ASSERT_EQ(run_command(gpp() + "applybqsr --verbosity ERROR --emit-original-quals -I " +
                        shell_quote(dir.file("md.bam")) + " --bqsr-recal-file " +
                        shell_quote(table) + " -O " + shell_quote(dir.file("oq.bam")))
                .exit_code,
            0);
  // Every record has an OQ.
  EXPECT_EQ(
      run_command("samtools view " + shell_quote(dir.file("oq.bam")) + " | grep -c 'OQ:Z:'").out,
      run_command("samtools view -c " + shell_quote(dir.file("oq.bam"))).out);
  const std::string sites =
      " --known-sites " + shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) +
      " --known-sites " + shell_quote(test::data_path(d + "mills_and_1000G.indels.vcf.gz"));
  for (const std::string option : {"--use-original-qualities", "-OQ"}) {
    const auto r = run_command(gpp() + "bqsr --device " + device + " --verbosity ERROR " + option +
                               " -I " + shell_quote(dir.file("oq.bam")) + " -R " +
                               shell_quote(test::data_path(d + "genome.fasta")) + sites + " -O " +
                               shell_quote(dir.file("from_oq.table")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::read_file(dir.file("from_oq.table")) == test::read_file(table)) << option;
  }
  ASSERT_EQ(run_command(gpp() + "bqsr --device " + device + " --verbosity ERROR -I " +
                        shell_quote(dir.file("oq.bam")) + " -R " +
                        shell_quote(test::data_path(d + "genome.fasta")) + sites + " -O " +
                        shell_quote(dir.file("as_stored.table")))
                .exit_code,
            0);
  EXPECT_FALSE(test::read_file(dir.file("as_stored.table")) == test::read_file(table));
}

TEST(BqsrConformance, OriginalQualitiesAreCountedWithOq) {
  expect_original_qualities_counted("cpu");
}

// An OQ that does not have one quality per base is bad input: a one-line error naming the read,
// and no table.
TEST(BqsrOptions, OriginalQualitiesOfAnotherLengthAreAnError) {
  test::TempDir dir;
  const std::string d = "nfcore_chr22_40kb/";
  const std::string sam = dir.file("oq.sam");
  const auto view = run_command("samtools view -h " +
                                shell_quote(test::data_path(d + "test.paired_end.sorted.bam")));
  ASSERT_EQ(view.exit_code, 0);
  std::istringstream lines(view.out);
  std::ofstream out(sam);
  int records = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != '@' && ++records == 200) {
      line = "short_oq" + line.substr(line.find('\t')) + "\tOQ:Z:IIII";
    }
    out << line << "\n";
  }
  out.close();
  const auto r = run_command(gpp() + "bqsr -OQ -I " + shell_quote(sam) + " -R " +
                             shell_quote(test::data_path(d + "genome.fasta")) + " --known-sites " +
                             shell_quote(test::data_path(d + "dbsnp_146.hg38.vcf.gz")) + " -O " +
                             shell_quote(dir.file("t.table")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("read short_oq has an OQ tag of 4 qualities for"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.table")));
}

using BqsrConformanceGpu = ::gpp::test::GpuTest;

TEST_F(BqsrConformanceGpu, OriginalQualitiesAreCountedWithOq) {
  expect_original_qualities_counted("gpu");
}

TEST_F(BqsrConformanceGpu, NfcoreTablesMatchGatk) {
  expect_nfcore_tables_match("--device gpu");
  expect_nfcore_tables_match("--device gpu --counting-method sort-reduce");
  expect_nfcore_tables_match("--device gpu --records-per-batch 997");
  expect_nfcore_tables_match("--device gpu --records-per-batch 997 --counting-method sort-reduce");
}

// GATK's BaseRecalibratorIntegrationTest golden: NA12878 chr17:69k-70k with -indels --enable-baq,
// one known-sites file and two; whole, and in batches of 50 records (BAQ's fractional errors are
// summed in read order across batches).
void expect_chr17_tables_match(const std::string& batches) {
  const std::string d = "gatk_golden/bqsr_chr17/";
  const std::string common =
      gpp() + "bqsr --device cpu --verbosity ERROR --compute-indel-bqsr-tables --enable-baq" +
      batches + " -I " + shell_quote(test::data_path(d + "NA12878.chr17_69k_70k.dictFix.bam")) +
      " -R " + shell_quote(test::data_path(d + "human_g1k_v37.chr17_1Mb.fasta")) +
      " --known-sites " +
      shell_quote(test::data_path(d + "dbsnp_132.b37.excluding_sites_after_129.chr17_69k_70k.vcf"));
  const std::pair<std::string, std::string> cases[] = {
      {"", "expected.NA12878.chr17_69k_70k.txt"},
      {" --known-sites " +
           shell_quote(test::data_path(d + "bqsr.fakeSitesForTesting.b37.chr17.vcf")),
       "expected.NA12878.chr17_69k_70k.2inputs.txt"}};
  for (const auto& [extra, expected_name] : cases) {
    test::TempDir dir;
    const auto r = run_command(common + extra + " -O " + shell_quote(dir.file("recal.table")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string expected = test::read_file(test::data_path(d + expected_name));
    ASSERT_GT(expected.size(), 400000u);
    EXPECT_TRUE(test::read_file(dir.file("recal.table")) == expected)
        << expected_name << batches << ": table differs from GATK's";
  }
}

TEST(BqsrConformance, Chr17IndelBaqTablesMatchGatk) { expect_chr17_tables_match(""); }

TEST(BqsrConformance, Chr17IndelBaqTablesMatchGatkInSmallBatches) {
  expect_chr17_tables_match(" --records-per-batch 50");
}

// Aux fields as text (tag:value), integers by value whatever their BAM width: htsjdk and HTSlib
// pick different integer types for the same SAM text, as `samtools view` shows.
std::string aux_text(std::span<const std::uint8_t> aux) {
  std::string out;
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = aux.data() + aux.size();
  while (p < end) {
    const std::size_t size = io::aux_field_size(p, end);
    if (size == 0) return out + "<malformed>";
    out += std::string(reinterpret_cast<const char*>(p), 2) + ":";
    std::int64_t v = 0;
    switch (p[2]) {
      case 'c':
        v = static_cast<std::int8_t>(p[3]);
        break;
      case 'C':
        v = p[3];
        break;
      case 's': {
        std::int16_t x;
        std::memcpy(&x, p + 3, 2);
        v = x;
        break;
      }
      case 'S': {
        std::uint16_t x;
        std::memcpy(&x, p + 3, 2);
        v = x;
        break;
      }
      case 'i': {
        std::int32_t x;
        std::memcpy(&x, p + 3, 4);
        v = x;
        break;
      }
      case 'I': {
        std::uint32_t x;
        std::memcpy(&x, p + 3, 4);
        v = x;
        break;
      }
      default:
        out += std::string(reinterpret_cast<const char*>(p + 2), size - 2) + "\t";
        p += size;
        continue;
    }
    out += "i:" + std::to_string(v) + "\t";
    p += size;
  }
  return out;
}

// Runs applybqsr on GATK's test BAM and compares every record's qualities and aux bytes.
void expect_apply_matches(const std::string& extra, const std::string& expected_name,
                          const std::string& device = "cpu") {
  const std::string d = "gatk_golden/applybqsr/";
  test::TempDir dir;
  const auto r = run_command(
      gpp() + "applybqsr --device " + device + " --verbosity ERROR -I " +
      shell_quote(test::data_path(d + "HiSeq.1mb.1RG.2k_lines.alternate.bam")) +
      " --bqsr-recal-file " + shell_quote(test::data_path(d + "HiSeq.20mb.1RG.table.gz")) + " -O " +
      shell_quote(dir.file("out.bam")) + extra);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  io::Header ours_header, expected_header;
  const io::ReadBatch ours = io::read_alignments(dir.file("out.bam"), {}, ours_header);
  const io::ReadBatch expected =
      io::read_alignments(test::data_path(d + expected_name), {}, expected_header);
  ASSERT_EQ(ours.size(), expected.size());
  ASSERT_EQ(ours.size(), 1674u);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    ASSERT_EQ(ours.read_name(i), expected.read_name(i));
    const auto a = ours.read_qual(i), b = expected.read_qual(i);
    const bool same = std::equal(a.begin(), a.end(), b.begin(), b.end()) &&
                      aux_text(ours.read_aux(i)) == aux_text(expected.read_aux(i));
    if (!same && differing++ < 3)
      ADD_FAILURE() << expected_name << ": record " << ours.read_name(i) << " differs";
  }
  EXPECT_EQ(differing, 0u) << expected_name;
}

constexpr const char* kStaticQuantized102030 =
    " --static-quantized-quals 10 --static-quantized-quals 20 --static-quantized-quals 30";

TEST(ApplyBqsrConformance, DefaultArguments) {
  expect_apply_matches("", "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.bam");
}

TEST(ApplyBqsrConformance, QuantizeQuals6) {
  expect_apply_matches(" --quantize-quals 6",
                       "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.qq6.bam");
}

TEST(ApplyBqsrConformance, StaticQuantizedQuals102030) {
  expect_apply_matches(kStaticQuantized102030,
                       "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.SQQ102030.bam");
}

// Streamed in batches of 100 records (17 batches, three in flight): the same records as GATK's,
// and as one batch gives.
TEST(ApplyBqsrConformance, SmallBatches) {
  expect_apply_matches(" --records-per-batch 100",
                       "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.bam");
  const std::string d = "gatk_golden/applybqsr/";
  test::TempDir dir;
  for (const char* batch : {"100", "1000000"}) {
    const auto r = run_command(
        gpp() + "applybqsr --device cpu --verbosity ERROR -I " +
        shell_quote(test::data_path(d + "HiSeq.1mb.1RG.2k_lines.alternate.bam")) +
        " --bqsr-recal-file " + shell_quote(test::data_path(d + "HiSeq.20mb.1RG.table.gz")) +
        " --records-per-batch " + batch + " -O " +
        shell_quote(dir.file(std::string(batch) + ".bam")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  io::Header small_header, whole_header;
  const io::ReadBatch small = io::read_alignments(dir.file("100.bam"), {}, small_header);
  const io::ReadBatch whole = io::read_alignments(dir.file("1000000.bam"), {}, whole_header);
  ASSERT_EQ(small.size(), 1674u);
  EXPECT_TRUE(small.name == whole.name && small.flag == whole.flag && small.pos == whole.pos &&
              small.cigar == whole.cigar && small.seq == whole.seq && small.qual == whole.qual &&
              small.aux == whole.aux && small.aux_offset == whole.aux_offset);
}

// The same goldens with the GPU kernel.

using ApplyBqsrConformanceGpu = ::gpp::test::GpuTest;

TEST_F(ApplyBqsrConformanceGpu, DefaultArguments) {
  expect_apply_matches("", "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.bam", "gpu");
}

TEST_F(ApplyBqsrConformanceGpu, SmallBatches) {
  expect_apply_matches(" --records-per-batch 100",
                       "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.bam", "gpu");
}

TEST_F(ApplyBqsrConformanceGpu, QuantizeQuals6) {
  expect_apply_matches(" --quantize-quals 6",
                       "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.qq6.bam", "gpu");
}

TEST_F(ApplyBqsrConformanceGpu, StaticQuantizedQuals102030) {
  expect_apply_matches(kStaticQuantized102030,
                       "expected.HiSeq.1mb.1RG.2k_lines.alternate.recalibrated.DIQ.SQQ102030.bam",
                       "gpu");
}

}  // namespace
}  // namespace gpp::stages::bqsr
