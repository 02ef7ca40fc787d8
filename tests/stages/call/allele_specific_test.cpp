// The allele-specific raw annotations of a gVCF (AS_StandardAnnotation): the histogram text of
// GATK's Histogram, the per-allele sums and tables of a hand-made site, and GATK's own gVCF with
// these annotations (gatk_golden/hc_na12878_chr20/expected.testGVCFMode.gatk4.alleleSpecific.g.vcf)
// against its own non-allele-specific fields.
#include "stages/call/annotations/allele_specific.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "stages/call/annotations/mann_whitney_u.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::call {
namespace {

TEST(AlleleSpecific, HistogramTextBinsDownByATenth) {
  // Bins are floor((z + 0.001) / 0.1): GATK's gVCF writes BaseQRankSum 1.867 as 1.8, -5.114 as
  // -5.2.
  EXPECT_EQ(allele_specific_histogram_text(2.136), "2.1,1");
  EXPECT_EQ(allele_specific_histogram_text(1.867), "1.8,1");
  EXPECT_EQ(allele_specific_histogram_text(-0.223), "-0.3,1");
  EXPECT_EQ(allele_specific_histogram_text(-5.114), "-5.2,1");
  EXPECT_EQ(allele_specific_histogram_text(0.1), "0.1,1");
  EXPECT_EQ(allele_specific_histogram_text(-0.1), "-0.1,1");
  EXPECT_EQ(allele_specific_histogram_text(-0.0005), "0.0,1");  // the epsilon keeps it in bin 0
  EXPECT_EQ(allele_specific_histogram_text(std::nan("")), "NaN");
}

AnnotationRead read(bool reverse, std::uint8_t mq, std::optional<double> base_quality,
                    std::optional<double> read_position) {
  AnnotationRead r;
  r.reverse_strand = reverse;
  r.mapping_quality = mq;
  r.base_quality = base_quality;
  r.read_position = read_position;
  return r;
}

std::map<std::string, std::string> as_map(const std::vector<InfoField>& info) {
  std::map<std::string, std::string> fields;
  for (const InfoField& field : info) fields[field.key] = field.value;
  return fields;
}

// REF, T, <NON_REF>; one sample: two REF reads, two T reads (one of MQ 0: in the sums and the
// strand table, not in the rank sums).
TEST(AlleleSpecific, PerAlleleRawData) {
  AlleleSpecificData data(3, 1);
  data.add_read(0, 0, read(false, 60, 30.0, 5.0));
  data.add_read(0, 0, read(true, 50, 35.0, 9.7));
  data.add_read(0, 1, read(true, 60, 20.9, 0.0));
  data.add_read(0, 1, read(true, 0, 25.0, 3.0));
  data.end_sample(0);
  std::vector<InfoField> info;
  AnnotationArguments arguments;
  arguments.groups = {"AS_StandardAnnotation"};
  std::vector<std::string> warnings;
  data.append_fields(resolve_annotations(arguments, warnings), info);
  const auto fields = as_map(info);
  EXPECT_EQ(fields.size(), 5u);  // AS_QD and AS_InbreedingCoeff have no raw data
  EXPECT_EQ(fields.at("AS_RAW_MQ"), "6100.00|3600.00|0.00");
  EXPECT_EQ(fields.at("AS_SB_TABLE"), "1,1|0,2|0,0");
  // The values as integers: base qualities 30, 35 against 20; positions 5, 9 against 0.
  const auto z = [](std::vector<double> alt, std::vector<double> ref) {
    return allele_specific_histogram_text(
        mann_whitney_u_test(alt, ref, MannWhitneyTestType::kFirstDominates).z);
  };
  EXPECT_EQ(fields.at("AS_RAW_BaseQRankSum"), "|" + z({20}, {30, 35}) + "|NaN");
  EXPECT_EQ(fields.at("AS_RAW_MQRankSum"), "|" + z({60}, {60, 50}) + "|NaN");
  EXPECT_EQ(fields.at("AS_RAW_ReadPosRankSum"), "|" + z({0}, {5, 9}) + "|NaN");
  EXPECT_NE(fields.at("AS_RAW_BaseQRankSum"), "|NaN|NaN");
}

// No REF read: nothing after the '|'s. Two reads in the sample: its strand counts are left out
// (StrandBiasUtils.MIN_COUNT).
TEST(AlleleSpecific, NoRefReadsAndFewReads) {
  AlleleSpecificData data(3, 1);
  data.add_read(0, 1, read(false, 60, 30.0, 5.0));
  data.add_read(0, 1, read(true, 60, 31.0, 6.0));
  data.end_sample(0);
  std::vector<InfoField> info;
  AnnotationSet set;
  set.add(Annotation::kAsBaseQualityRankSumTest);
  set.add(Annotation::kAsStrandOddsRatio);
  data.append_fields(set, info);
  const auto fields = as_map(info);
  EXPECT_EQ(fields.at("AS_RAW_BaseQRankSum"), "||");
  EXPECT_EQ(fields.at("AS_SB_TABLE"), "0,0|0,0|0,0");
  EXPECT_EQ(fields.count("AS_RAW_MQ"), 0u);
}

std::map<std::string, std::string> info_of(const std::string& text) {
  std::map<std::string, std::string> fields;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ';');) {
    const auto eq = item.find('=');
    fields[item.substr(0, eq)] = eq == std::string::npos ? "" : item.substr(eq + 1);
  }
  return fields;
}

struct Checked {
  int calls = 0;
  int rank_sums = 0;
};

// An allele-specific gVCF against its own other fields: AS_SB_TABLE is the sample's SB (one
// sample, more than 2 reads); at a biallelic site the ALT's rank-sum histogram is the bin of the
// site's rank sum (the same reads; values that are integers already), <NON_REF> has none; the
// squared MQs add up to no more than RAW_MQandDP's.
Checked check_against_other_fields(const std::string& gvcf) {
  std::istringstream lines(gvcf);
  Checked checked;
  int& calls = checked.calls;
  int& rank_sums = checked.rank_sums;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with('#')) continue;
    std::vector<std::string> columns;
    std::istringstream in(line);
    for (std::string column; std::getline(in, column, '\t');) columns.push_back(column);
    EXPECT_EQ(columns.size(), 10u);
    if (columns.size() != 10) continue;
    if (columns[7].starts_with("END=")) continue;
    ++calls;
    SCOPED_TRACE(columns[1]);
    const auto info = info_of(columns[7]);
    // FORMAT SB (the last field): REF forward, reverse, then every other allele's summed.
    const std::string sb = columns[9].substr(columns[9].rfind(':') + 1);
    std::string table = info.at("AS_SB_TABLE");
    for (char& c : table) c = c == '|' ? ',' : c;
    std::istringstream counts(table);
    std::vector<int> values;
    for (std::string v; std::getline(counts, v, ',');) values.push_back(std::stoi(v));
    std::array<int, 4> summed{values[0], values[1], 0, 0};
    for (std::size_t i = 2; i < values.size(); ++i) summed[2 + i % 2] += values[i];
    const std::string expected = std::to_string(summed[0]) + ',' + std::to_string(summed[1]) + ',' +
                                 std::to_string(summed[2]) + ',' + std::to_string(summed[3]);
    if (summed[0] + summed[1] + summed[2] + summed[3] > 2) {
      EXPECT_EQ(expected, sb);
    } else {
      EXPECT_EQ(expected, "0,0,0,0");  // a sample of 2 reads or fewer is left out
    }
    const bool biallelic = columns[4].find(',') == columns[4].rfind(',');
    for (const auto& [key, raw] :
         std::map<std::string, std::string>{{"BaseQRankSum", "AS_RAW_BaseQRankSum"},
                                            {"MQRankSum", "AS_RAW_MQRankSum"},
                                            {"ReadPosRankSum", "AS_RAW_ReadPosRankSum"}}) {
      if (!biallelic || !info.count(key)) continue;
      const double z = std::stod(info.at(key));
      // Written to 3 decimals: skip values within rounding of a bin boundary.
      if (std::abs(z * 10 - std::round(z * 10)) < 0.02) continue;
      EXPECT_EQ(info.at(raw), "|" + allele_specific_histogram_text(z) + "|NaN") << key;
      ++rank_sums;
    }
    double squared = 0;
    std::istringstream mq(info.at("AS_RAW_MQ"));
    for (std::string v; std::getline(mq, v, '|');) squared += std::stod(v);
    EXPECT_LE(squared,
              std::stod(info.at("RAW_MQandDP").substr(0, info.at("RAW_MQandDP").find(','))));
  }
  return checked;
}

// GATK's own allele-specific gVCF: the rules above hold (which checks the histogram and table
// formats against GATK's).
TEST(AlleleSpecific, GatkGvcfAgreesWithItsOtherFields) {
  const Checked checked = check_against_other_fields(test::read_file(test::data_path(
      "gatk_golden/hc_na12878_chr20/expected.testGVCFMode.gatk4.alleleSpecific.g.vcf")));
  EXPECT_GT(checked.calls, 200);
  EXPECT_GT(checked.rank_sums, 300);
}

// `call --gvcf -G AS_StandardAnnotation` on NA12878: the same rules; without the allele-specific
// fields the records are those of the plain gVCF; without a gVCF the group is refused.
TEST(AlleleSpecific, CallWritesThemToAGvcf) {
  test::TempDir dir;
  const std::string d = "real_na12878_chr20_hg19/";
  const std::string args =
      test::shell_quote(test::binary_path()) + " call -I " +
      test::shell_quote(test::data_path(d + "NA12878_S1.chr20.10_10p1mb.bam")) + " -R " +
      test::shell_quote(test::data_path(d + "ucsc.hg19.chr20.unittest.fasta.gz")) +
      " --device cpu --verbosity ERROR -L chr20:10000000-10060000 -O ";
  const std::string as = " -G StandardAnnotation -G AS_StandardAnnotation";
  const auto r = test::run_command(args + test::shell_quote(dir.file("as.g.vcf")) + " --gvcf" + as);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(
      test::run_command(args + test::shell_quote(dir.file("plain.g.vcf")) + " --gvcf").exit_code,
      0);
  const Checked checked = check_against_other_fields(test::read_file(dir.file("as.g.vcf")));
  EXPECT_GT(checked.calls, 100);
  EXPECT_GT(checked.rank_sums, 100);
  const auto records = [&](const std::string& vcf) {
    return test::run_command(
               "bcftools annotate -x INFO/AS_RAW_BaseQRankSum,INFO/AS_RAW_MQ,INFO/AS_RAW_MQRankSum,"
               "INFO/AS_RAW_ReadPosRankSum,INFO/AS_SB_TABLE " +
               test::shell_quote(dir.file(vcf)) + " 2>/dev/null | bcftools view -H")
        .out;
  };
  const std::string plain = records("plain.g.vcf");
  EXPECT_GT(plain.size(), 10000u);
  EXPECT_TRUE(records("as.g.vcf") == plain);
  const auto vcf = test::run_command(args + test::shell_quote(dir.file("as.vcf")) + as);
  EXPECT_EQ(vcf.exit_code, 1);
  EXPECT_NE(vcf.err.find("allele-specific annotations (AS_*) are written to a gVCF"),
            std::string::npos)
      << vcf.err;
}

}  // namespace
}  // namespace gpp::stages::call
