// KnownSites: region queries on indexed VCF.gz and on plain VCF, checked against tabix.
#include "io/genome/known_sites.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

// Spans (0-based half-open from POS and len(REF)) of the records `tabix` returns for a region.
std::vector<VariantSpan> tabix_spans(const std::string& vcf_gz, const std::string& region) {
  const auto r = test::run_command("tabix " + test::shell_quote(vcf_gz) + " " + region);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<VariantSpan> spans;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string chrom, pos, id, ref;
    fields >> chrom >> pos >> id >> ref;
    const std::int64_t start = std::stoll(pos) - 1;
    spans.push_back({start, start + static_cast<std::int64_t>(ref.size())});
  }
  return spans;
}

TEST(KnownSites, IndexedQueriesMatchTabix) {
  const std::string vcf = test::data_path("nfcore_chr22_40kb/mills_and_1000G.indels.vcf.gz");
  KnownSites sites(vcf);
  EXPECT_TRUE(sites.indexed());
  EXPECT_EQ(sites.contig_sites("chr22"), tabix_spans(vcf, "chr22"));
  EXPECT_EQ(sites.query("chr22", 10'000, 30'000), tabix_spans(vcf, "chr22:10001-30000"));
  EXPECT_TRUE(sites.query("chr1", 0, 1000).empty());
  const std::string dbsnp = test::data_path("nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz");
  KnownSites db(dbsnp);
  EXPECT_EQ(db.query("chr22", 5'000, 6'000), tabix_spans(dbsnp, "chr22:5001-6000"));
  EXPECT_GT(db.contig_sites("chr22").size(), 100u);
}

TEST(KnownSites, PlainVcfEqualsItsIndexedCopy) {
  const std::string plain = test::data_path(
      "gatk_golden/bqsr_chr17/dbsnp_132.b37.excluding_sites_after_129.chr17_69k_70k.vcf");
  test::TempDir dir;
  const std::string gz = dir.file("dbsnp.vcf.gz");
  ASSERT_EQ(test::run_command("bgzip -c " + test::shell_quote(plain) + " > " +
                              test::shell_quote(gz) + " && tabix -p vcf " + test::shell_quote(gz))
                .exit_code,
            0);
  KnownSites unindexed(plain);
  EXPECT_FALSE(unindexed.indexed());
  const auto all = unindexed.contig_sites("17");
  EXPECT_EQ(all, tabix_spans(gz, "17"));
  EXPECT_GT(all.size(), 10u);
  EXPECT_EQ(unindexed.query("17", 69'500, 69'800), tabix_spans(gz, "17:69501-69800"));
}

// The contigs holding records, as `tabix -l` / `bcftools index -s` list them, for each kind.
TEST(KnownSites, ContigsWithSitesOfEveryKindOfFile) {
  test::TempDir dir;
  const std::string vcf = dir.file("sites.vcf");
  std::ofstream(vcf) << "##fileformat=VCFv4.2\n##contig=<ID=chr1,length=1000>\n"
                        "##contig=<ID=chr2,length=1000>\n##contig=<ID=chrZ,length=1000>\n"
                        "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                        "chr1\t10\t.\tA\tG\t.\t.\t.\nchrZ\t20\t.\tC\tT\t.\t.\t.\n";
  const std::string gz = dir.file("sites.vcf.gz"), bcf = dir.file("sites.bcf");
  ASSERT_EQ(
      test::run_command("bgzip -c " + test::shell_quote(vcf) + " > " + test::shell_quote(gz) +
                        " && tabix -p vcf " + test::shell_quote(gz) + " && bcftools view -Ob -o " +
                        test::shell_quote(bcf) + " " + test::shell_quote(gz) +
                        " && bcftools index " + test::shell_quote(bcf))
          .exit_code,
      0);
  const std::vector<std::string> expected = {"chr1", "chrZ"};  // chr2: declared, no record
  for (const std::string& path : {vcf, gz, bcf}) {
    KnownSites sites(path);
    EXPECT_EQ(sites.contigs_with_sites(), expected) << path;
  }
  const auto listed = test::run_command("tabix -l " + test::shell_quote(gz));
  EXPECT_EQ(listed.out, "chr1\nchrZ\n");
}

TEST(KnownSites, BadFilesAreErrors) {
  EXPECT_THROW(KnownSites("/nonexistent.vcf.gz"), Error);
  EXPECT_THROW(KnownSites(test::data_path("nfcore_chr22_40kb/genome.fasta")), Error);
}

}  // namespace
}  // namespace gpp::io
