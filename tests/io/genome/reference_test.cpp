// Reference: faidx access to plain and bgzipped FASTA, and ContigReader's contigs read in
// parallel pieces, checked against `samtools faidx`.
#include "io/genome/reference.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/genome/contig_reader.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

// Sequence of `samtools faidx` for a 1-based region, newlines removed.
std::string samtools_faidx(const std::string& fasta, const std::string& region) {
  const auto r = test::run_command("samtools faidx " + test::shell_quote(fasta) + " " + region);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string seq;
  const auto first_newline = r.out.find('\n');
  for (std::size_t i = first_newline + 1; i < r.out.size(); ++i) {
    if (r.out[i] != '\n') seq += r.out[i];
  }
  return seq;
}

TEST(Reference, PlainFastaMatchesSamtools) {
  const std::string fasta = test::data_path("nfcore_chr22_40kb/genome.fasta");
  Reference ref(fasta);
  ASSERT_EQ(ref.contigs().size(), 1u);
  EXPECT_EQ(ref.contigs()[0].name, "chr22");
  EXPECT_EQ(ref.contigs()[0].length, 40001);
  EXPECT_EQ(ref.fetch("chr22", 999, 1100), samtools_faidx(fasta, "chr22:1000-1100"));
  EXPECT_EQ(ref.fetch("chr22", 39990, 50000), samtools_faidx(fasta, "chr22:39991-40001"));
  EXPECT_EQ(ref.fetch("chr22", 10, 10), "");
  EXPECT_THROW(ref.fetch("chr1", 0, 10), Error);
}

TEST(Reference, BgzippedFastaMatchesSamtools) {
  const std::string fasta =
      test::data_path("real_na12878_chr20_hg19/ucsc.hg19.chr20.unittest.fasta.gz");
  Reference ref(fasta);
  EXPECT_EQ(ref.contig_length("chr20"), 63025520);
  EXPECT_EQ(ref.fetch("chr20", 10'000'000, 10'000'300),
            samtools_faidx(fasta, "chr20:10000001-10000300"));
}

TEST(Reference, ChecksTheAlignmentHeader) {
  Reference ref(test::data_path("nfcore_chr22_40kb/genome.fasta"));
  AlignmentReader matching(test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam"), {});
  EXPECT_NO_THROW(ref.check_matches(matching.header(), "test.bam"));
  AlignmentReader other(test::data_path("edge_cases/edge_cases.sam"), {});
  try {
    ref.check_matches(other.header(), "edge_cases.sam");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no contig 'chrA'"), std::string::npos) << e.what();
  }
}

TEST(Reference, MissingFileIsAnError) { EXPECT_THROW(Reference("/nonexistent/ref.fa"), Error); }

// ContigReader: a contig read in 1 Mb pieces on the oneTBB threads is the contig `samtools faidx`
// prints, on a bgzipped FASTA of two 10 Mb contigs and on a plain one shorter than a piece.
TEST(ContigReader, PiecesReadInParallelMakeTheContig) {
  const std::string gz = test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz");
  const std::string plain = test::data_path("nfcore_chr22_40kb/genome.fasta");
  ContigReader reader(gz);
  for (const std::string contig : {"chr20", "chr21"}) {
    const std::string expected = samtools_faidx(gz, contig);
    ASSERT_EQ(expected.size(), 10000000u);
    EXPECT_TRUE(reader.read(contig, 10000000) == expected) << contig;
    // A length short of the contig's end gives that much, in pieces not of 1 Mb.
    EXPECT_TRUE(reader.read(contig, 2500001) == expected.substr(0, 2500001)) << contig;
  }
  ContigReader short_contig(plain);
  EXPECT_EQ(short_contig.read("chr22", 40001), samtools_faidx(plain, "chr22"));
  EXPECT_EQ(short_contig.read("chr22", 0), "");
  EXPECT_THROW(short_contig.read("chr1", 10), Error);  // no such contig: faidx's error
}

}  // namespace
}  // namespace gpp::io
