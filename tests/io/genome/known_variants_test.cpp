// KnownVariants: the records of a known-variants file by start position, from an indexed
// bgzipped VCF, a BCF, a plain VCF and a bgzipped one without index (the same records from each),
// and dbSNP's records checked against tabix's lines.
#include "io/genome/known_variants.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

using test::shell_quote;

constexpr const char* kHeader =
    "##fileformat=VCFv4.2\n"
    "##FILTER=<ID=LowQual,Description=\"Low quality\">\n"
    "##INFO=<ID=RS,Number=1,Type=Integer,Description=\"dbSNP ID\">\n"
    "##contig=<ID=c1,length=100000>\n##contig=<ID=c2,length=100000>\n"
    "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";

// A deletion from 95 to 104 (overlapping a window from 100, starting before it), two records at
// 200, a multi-allelic one, ALT '.', lower-case bases, a filtered record and one without FILTER.
constexpr const char* kRecords =
    "c1\t95\trsDel\tACGTACGTAC\tA\t.\tPASS\tRS=1\n"
    "c1\t101\trsFirst\tG\tT\t.\t.\t.\n"
    "c1\t200\trsA\tA\tC,G\t.\tPASS\tRS=2\n"
    "c1\t200\trsB\tA\tAT\t.\tPASS\t.\n"
    "c1\t300\t.\tc\tt\t.\tLowQual\t.\n"
    "c1\t400\trsNone\tT\t.\t.\tPASS\t.\n"
    "c2\t10\trsOther\tG\tA\t.\tPASS\t.\n";

class KnownVariantFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    plain = dir.file("known.vcf");
    std::ofstream(plain) << kHeader << kRecords;
    gz = dir.file("known.vcf.gz");
    bcf = dir.file("known.bcf");
    unindexed = dir.file("unindexed.vcf.gz");
    const auto r = test::run_command("bgzip -c " + shell_quote(plain) + " > " + shell_quote(gz) +
                                     " && tabix -p vcf " + shell_quote(gz) + " && cp " +
                                     shell_quote(gz) + " " + shell_quote(unindexed) +
                                     " && bcftools view -Ob -o " + shell_quote(bcf) + " " +
                                     shell_quote(gz) + " && bcftools index " + shell_quote(bcf));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  test::TempDir dir;
  std::string plain, gz, bcf, unindexed;
};

TEST_F(KnownVariantFiles, EveryKindOfFileGivesTheSameRecords) {
  const std::vector<KnownVariant> at_200 = {{199, "rsA", {"A", "C", "G"}, false},
                                            {199, "rsB", {"A", "AT"}, false}};
  for (const std::string& path : {gz, bcf, plain, unindexed}) {
    SCOPED_TRACE(path);
    const KnownVariants known(path);
    const KnownVariantWindow window = known.window("c1", 100, 1000);
    EXPECT_EQ(window.size(), 5u) << "the deletion from 95 starts before the window";
    EXPECT_TRUE(window.starting_at(94).empty());
    EXPECT_EQ(window.starting_at(100),
              (std::vector<KnownVariant>{{100, "rsFirst", {"G", "T"}, false}}));
    EXPECT_EQ(window.starting_at(199), at_200);
    EXPECT_EQ(window.starting_at(299), (std::vector<KnownVariant>{{299, ".", {"C", "T"}, true}}));
    EXPECT_EQ(window.starting_at(399), (std::vector<KnownVariant>{{399, "rsNone", {"T"}, false}}));
    EXPECT_TRUE(window.starting_at(150).empty());
    EXPECT_EQ(known.window("c1", 0, 100).starting_at(94),
              (std::vector<KnownVariant>{{94, "rsDel", {"ACGTACGTAC", "A"}, false}}));
    EXPECT_EQ(known.window("c2", 0, 100).size(), 1u);
    EXPECT_EQ(known.window("c3", 0, 100).size(), 0u);
    EXPECT_EQ(known.contigs(), (std::vector<std::string>{"c1", "c2"}));
  }
}

TEST_F(KnownVariantFiles, MalformedRecordsNameTheFile) {
  const std::string bad = dir.file("bad.vcf");
  std::ofstream(bad) << kHeader << "c1\tnot-a-position\trs1\tA\tC\t.\tPASS\t.\n";
  try {
    const KnownVariants known(bad);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ": malformed VCF record at line 7"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(KnownVariants(dir.file("missing.vcf.gz")), Error);
}

// nf-core's dbSNP excerpt: every record of every window as tabix prints its line.
TEST(KnownVariants, DbsnpRecordsAreTabixLines) {
  const std::string dbsnp = test::data_path("nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz");
  const auto r = test::run_command("tabix " + shell_quote(dbsnp) + " chr22 | cut -f2-7");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::int64_t, std::vector<KnownVariant>> expected;
  std::istringstream lines(r.out);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    std::istringstream fields(line);
    std::string pos, id, ref, alts, qual, filter;
    fields >> pos >> id >> ref >> alts >> qual >> filter;
    KnownVariant v{std::stoll(pos) - 1, id, {ref}, filter != "PASS" && filter != "."};
    std::istringstream alt_list(alts);
    for (std::string alt; std::getline(alt_list, alt, ',');) v.alleles.push_back(alt);
    expected[v.position].push_back(v);
  }
  ASSERT_GT(count, 2000u);
  const KnownVariants known(dbsnp);
  std::size_t seen = 0;
  for (std::int64_t start = 0; start < 50'000; start += 7'000) {
    const KnownVariantWindow window = known.window("chr22", start, start + 7'000);
    seen += window.size();
    for (std::int64_t p = start; p < start + 7'000; ++p) {
      const auto it = expected.find(p);
      ASSERT_EQ(window.starting_at(p),
                it == expected.end() ? std::vector<KnownVariant>{} : it->second)
          << "POS " << p + 1;
    }
  }
  EXPECT_EQ(seen, count);
}

}  // namespace
}  // namespace gpp::io
