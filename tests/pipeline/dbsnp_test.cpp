// `call --dbsnp` end to end on NA12878 (chr20:10.0-10.1 Mb): a known-variants file made of the
// GIAB truth (each record named t<POS>) and records placed at the multi-allelic calls. The IDs
// are checked against the file's own lines (biallelic calls: a record with the same REF and ALT;
// the multi-allelic calls by GATK's split-and-trim rule, worked out by hand below), the flag DB
// against the IDs, and every other field against the calls made without --dbsnp.
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

// Records at the calls with several ALT alleles (NA12878: G>GTT,GTTT at 10002458;
// CACACACACACA>C,CCACACACACA at 10008952; A>G,AGGGAGG at 10009875; TTTTC>*,T at 10097437), and
// the IDs GATK's VariantOverlapAnnotator gives each call:
//   10002458 G>GTT matches the event G>GTT (REF of one base: not trimmed)            -> rsIns2
//   10008952 CA>C matches CACACACACACA>CCACACACACA trimmed; CACACACACACA>C,CACA
//            shares the untrimmed event CACACACACACA>C; in file order                ->
//            rsRepeat;rsLong
//   10009875 a filtered A>G and an A>T                                               -> none
//   10097437 TTTTC>T matches the event TTTTC>T                                       -> rsSpan
constexpr const char* kExtraRecords =
    "chr20\t10002458\trsIns2\tG\tGTT\t.\tPASS\t.\n"
    "chr20\t10008952\trsRepeat\tCA\tC\t.\tPASS\t.\n"
    "chr20\t10008952\trsLong\tCACACACACACA\tC,CACA\t.\tPASS\t.\n"
    "chr20\t10009875\trsFiltered\tA\tG\t.\tLowQual\t.\n"
    "chr20\t10009875\trsWrongAlt\tA\tT\t.\tPASS\t.\n"
    "chr20\t10097437\trsSpan\tTTTTC\tT\t.\tPASS\t.\n";
const std::map<std::string, std::string> kMultiAllelicIds = {{"10002458", "rsIns2"},
                                                             {"10008952", "rsRepeat;rsLong"},
                                                             {"10009875", "."},
                                                             {"10097437", "rsSpan"}};

// A biallelic call GATK compares in another form: at 10087820 the caller genotypes
// CAG > CAGAG,C, drops the deletion and writes C > CAG (the shared AG trimmed after annotating);
// GATK compares CAG > CAGAG, which the truth's C > CAG does not match.
const std::map<std::string, std::string> kComparedUntrimmed = {{"10087820", "."}};

struct Record {
  std::string pos, id, ref, alt, info, rest;
};

std::vector<Record> records_of(const std::string& vcf) {
  const auto r = run_command("bgzip -dc " + shell_quote(vcf) + " | grep -v '^#'");
  std::vector<Record> records;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    Record rec;
    std::string chrom, qual, filter;
    fields >> chrom >> rec.pos >> rec.id >> rec.ref >> rec.alt >> qual >> filter >> rec.info;
    std::getline(fields, rec.rest);
    records.push_back(rec);
  }
  return records;
}

class DbsnpCall : public ::testing::Test {
 protected:
  void SetUp() override {
    dbsnp = dir.file("known.vcf.gz");
    const std::string truth = test::data_path(kDir + "test_nist.b37_chr20_100kbp_at_10mb.vcf.gz");
    const std::string extra = dir.file("extra.txt");
    std::ofstream(extra) << kExtraRecords;
    const auto r = run_command(
        "(echo '##fileformat=VCFv4.2'; bgzip -dc " + shell_quote(truth) +
        " | grep '^##contig'; printf '" +
        "#CHROM\\tPOS\\tID\\tREF\\tALT\\tQUAL\\tFILTER\\tINFO\\n'; (bgzip -dc " +
        shell_quote(truth) + " | grep -v '^#' | awk 'BEGIN{OFS=\"\\t\"} {$3=\"t\"$2; print}' " +
        "| cut -f1-8; cat " + shell_quote(extra) + ") | sort -s -k2,2n) | bgzip > " +
        shell_quote(dbsnp) + " && tabix -p vcf " + shell_quote(dbsnp));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // POS -> the file's records there, in file order.
    const auto lines = run_command("bgzip -dc " + shell_quote(dbsnp) + " | grep -v '^#'");
    std::istringstream in(lines.out);
    for (std::string line; std::getline(in, line);) {
      const std::vector<std::string> f = split(line, '\t');
      known[f[1]].push_back(f);
    }
  }

  test::CommandResult call(const std::string& out, const std::string& args) {
    return run_command(
        shell_quote(test::binary_path()) + " call -I " +
        shell_quote(test::data_path(kDir + "NA12878_S1.chr20.10_10p1mb.bam")) + " -R " +
        shell_quote(test::data_path(kDir + "ucsc.hg19.chr20.unittest.fasta.gz")) + " -O " +
        shell_quote(dir.file(out)) + " --device cpu --verbosity ERROR" + args);
  }

  /// The IDs of the unfiltered records at `pos` with the biallelic event REF > ALT, as a record's
  /// events are when its REF has one base or it has one ALT (no trimming then).
  std::string expected_id(const std::string& pos, const std::string& ref, const std::string& alt) {
    std::string ids;
    for (const std::vector<std::string>& f : known[pos]) {
      if (f[6] != "PASS" && f[6] != ".") continue;
      const std::vector<std::string> alts = split(f[4], ',');
      EXPECT_TRUE(alts.size() == 1 || f[3].size() == 1) << "a record the rule here does not trim";
      if (f[3] != ref || std::find(alts.begin(), alts.end(), alt) == alts.end()) continue;
      ids += (ids.empty() ? "" : ";") + f[2];
    }
    return ids.empty() ? "." : ids;
  }

  test::TempDir dir;
  std::string dbsnp;
  std::map<std::string, std::vector<std::vector<std::string>>> known;
};

std::string without_flag(std::string info) {
  for (const std::string flag : {"DB;", ";DB"}) {
    const std::size_t at = info.find(flag);
    if (at != std::string::npos) info.erase(at, flag.size());
  }
  return info;
}

TEST_F(DbsnpCall, CallsGetTheIdsOfTheKnownVariantsTheyMatch) {
  ASSERT_EQ(call("plain.vcf.gz", "").exit_code, 0);
  const auto r = call("annotated.vcf.gz", " --dbsnp " + shell_quote(dbsnp));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<Record> plain = records_of(dir.file("plain.vcf.gz"));
  const std::vector<Record> annotated = records_of(dir.file("annotated.vcf.gz"));
  ASSERT_EQ(annotated.size(), plain.size());
  ASSERT_GT(annotated.size(), 200u);
  int with_id = 0;
  int multi_allelic = 0;
  for (std::size_t i = 0; i < annotated.size(); ++i) {
    const Record& a = annotated[i];
    SCOPED_TRACE("POS " + a.pos);
    // Nothing but the ID and the flag changes.
    EXPECT_EQ(plain[i].id, ".");
    EXPECT_EQ(a.pos + a.ref + a.alt + without_flag(a.info) + a.rest,
              plain[i].pos + plain[i].ref + plain[i].alt + plain[i].info + plain[i].rest);
    const bool flagged = a.info.starts_with("DB;") || a.info.find(";DB;") != std::string::npos;
    EXPECT_EQ(flagged, a.id != ".");
    if (kComparedUntrimmed.contains(a.pos)) {
      EXPECT_EQ(a.id, kComparedUntrimmed.at(a.pos));
      EXPECT_NE(expected_id(a.pos, a.ref, a.alt), ".") << "the truth has the trimmed call";
    } else if (a.alt.find(',') == std::string::npos) {
      EXPECT_EQ(a.id, expected_id(a.pos, a.ref, a.alt));
    } else {
      ++multi_allelic;
      const auto it = kMultiAllelicIds.find(a.pos);
      ASSERT_NE(it, kMultiAllelicIds.end()) << "a multi-allelic call not worked out here";
      EXPECT_EQ(a.id, it->second);
    }
    with_id += a.id != ".";
  }
  EXPECT_EQ(multi_allelic, 4);
  EXPECT_GT(with_id, 200);
  const auto header = run_command("bgzip -dc " + shell_quote(dir.file("annotated.vcf.gz")) +
                                  " | grep '^##INFO=<ID=D[BP],'");
  EXPECT_EQ(header.out,
            "##INFO=<ID=DB,Number=0,Type=Flag,Description=\"dbSNP Membership\">\n"
            "##INFO=<ID=DP,Number=1,Type=Integer,Description=\"Approximate read depth; some reads "
            "may have been filtered\">\n");
}

// In a gVCF the calls get the IDs a VCF's calls get for the same alleles; blocks get none.
TEST_F(DbsnpCall, GvcfCallsGetIdsAndBlocksNone) {
  const std::string region = " -L chr20:10000000-10100000";
  ASSERT_EQ(call("annotated.vcf.gz", " -D " + shell_quote(dbsnp) + region).exit_code, 0);
  const auto r = call("annotated.g.vcf.gz", " -D " + shell_quote(dbsnp) + region + " -ERC GVCF");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> vcf_ids;
  for (const Record& rec : records_of(dir.file("annotated.vcf.gz"))) {
    vcf_ids[rec.pos + rec.ref + rec.alt + ",<NON_REF>"] = rec.id;
  }
  int compared = 0;
  int blocks = 0;
  for (const Record& rec : records_of(dir.file("annotated.g.vcf.gz"))) {
    SCOPED_TRACE("POS " + rec.pos);
    if (rec.alt == "<NON_REF>") {
      ++blocks;
      EXPECT_EQ(rec.id, ".");
      continue;
    }
    const auto it = vcf_ids.find(rec.pos + rec.ref + rec.alt);
    if (it == vcf_ids.end()) continue;
    ++compared;
    EXPECT_EQ(rec.id, it->second);
    EXPECT_EQ(rec.info.starts_with("DB;") || rec.info.find(";DB;") != std::string::npos,
              rec.id != ".");
  }
  EXPECT_GT(compared, 200);
  EXPECT_GT(blocks, 100);
}

// GATK refuses a dbSNP with no contig of the reads' ("20" against "chr20"): no output then.
TEST_F(DbsnpCall, KnownVariantsOnOtherContigNamesAreAnError) {
  const std::string renamed = dir.file("renamed.vcf.gz");
  ASSERT_EQ(run_command("bgzip -dc " + shell_quote(dbsnp) +
                        " | sed -e 's/^chr20/20/' -e 's/ID=chr/ID=/' | bgzip > " +
                        shell_quote(renamed) + " && tabix -p vcf " + shell_quote(renamed))
                .exit_code,
            0);
  const auto r = call("renamed_out.vcf.gz", " --dbsnp " + shell_quote(renamed));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(renamed + ": no contig in common with the header of"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("renamed_out.vcf.gz")));
}

}  // namespace
}  // namespace gpp::pipeline
