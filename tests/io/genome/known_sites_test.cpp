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

// A contig longer than one piece of contig_sites: read side by side in pieces of 4 Mb, the records
// are those one query of the whole contig gives (tabix's), in file order, each once: deletions
// across the pieces' edges, equal starts, and a record past the contig's end included.
TEST(KnownSites, ContigReadInPiecesEqualsTheWholeContigQuery) {
  test::TempDir dir;
  const std::string vcf = dir.file("sites.vcf");
  const std::int64_t length = 20'000'000;
  {
    std::ofstream out(vcf);
    out << "##fileformat=VCFv4.2\n##contig=<ID=c1,length=" << length
        << ">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
    const auto record = [&](std::int64_t pos, std::size_t ref_length) {
      out << "c1\t" << pos << "\t.\t" << std::string(ref_length, 'A') << "\tA\t.\t.\t.\n";
    };
    const std::int64_t edge = std::int64_t{8} << 20;  // the third piece's first base, 0-based
    for (std::int64_t pos = 1; pos <= length; pos += 997) {
      if (pos > edge - 3000 && pos < edge + 3000) {  // around the first edge, in order
        record(edge - 10, 20);                       // across it
        record(edge - 10, 1);                        // the same start
        record(edge, 1);                             // the edge's own base (1-based edge + 1)
        record(edge + 1, 5);
        pos = edge + 3000;
      }
      record(pos, pos % 7 == 0 ? 40 : 1);
    }
    record(length + 5, 1);  // past the contig's end
  }
  ASSERT_EQ(test::run_command("bgzip " + test::shell_quote(vcf) + " && tabix -p vcf " +
                              test::shell_quote(vcf + ".gz"))
                .exit_code,
            0);
  KnownSites sites(vcf + ".gz");
  const std::vector<VariantSpan> whole = tabix_spans(vcf + ".gz", "c1");
  ASSERT_GT(whole.size(), 20'000u);
  EXPECT_EQ(sites.contig_sites("c1", length), whole);
  EXPECT_EQ(sites.contig_sites("c1"), whole);
  EXPECT_TRUE(sites.contig_sites("c2", length).empty());
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
