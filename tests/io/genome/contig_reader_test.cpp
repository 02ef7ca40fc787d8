// ContigReader: a contig read in 1 Mb pieces on the oneTBB threads is the contig `samtools faidx`
// prints, on a bgzipped FASTA of two 10 Mb contigs and on a plain one shorter than a piece.
#include "io/genome/contig_reader.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

std::string samtools_faidx(const std::string& fasta, const std::string& contig) {
  const auto r = test::run_command("samtools faidx " + test::shell_quote(fasta) + " " + contig);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string bases;
  for (std::size_t i = r.out.find('\n') + 1; i < r.out.size(); ++i) {
    if (r.out[i] != '\n') bases += r.out[i];
  }
  return bases;
}

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
