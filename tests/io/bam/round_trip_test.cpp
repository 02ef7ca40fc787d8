// Lossless round trip: `samtools view` of an input and of its read-then-written copy are
// identical (header and every record: all fields, aux tags, unmapped, secondary, supplementary,
// '*' SEQ/QUAL), for every BAM in tests/data, for SAM input, and through CRAM.
#include <gtest/gtest.h>

#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

using test::run_command;
using test::shell_quote;

std::string samtools_view(const std::string& path, const std::string& reference = "") {
  const std::string ref = reference.empty() ? "" : " -T " + shell_quote(reference);
  const auto result = run_command("samtools view --no-PG -h" + ref + " " + shell_quote(path));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

// Reads `input` into columns and writes them back to `output` unchanged.
std::size_t copy_through_columns(const std::string& input, const std::string& output,
                                 const std::string& reference = "") {
  AlignmentReader reader(input, {.threads = 2, .reference = reference});
  ReadBatch batch;
  reader.read_into(batch);
  write_alignments(output, reader.header(), batch, {.threads = 2, .reference = reference});
  return batch.size();
}

TEST(RoundTrip, EveryBamInTestDataIsLossless) {
  const auto bams = test::data_files_with_suffix(".bam");
  ASSERT_GE(bams.size(), 10u);
  test::TempDir dir;
  for (const std::string& bam : bams) {
    const std::string out = dir.file("copy.bam");
    const std::size_t n = copy_through_columns(bam, out);
    EXPECT_GT(n, 0u) << bam;
    const std::string expected = samtools_view(bam);
    const std::string actual = samtools_view(out);
    EXPECT_TRUE(actual == expected) << bam << ": samtools view differs after the round trip";
  }
}

TEST(RoundTrip, EdgeCasesFromSamThroughBamAndSam) {
  test::TempDir dir;
  const std::string sam = test::data_path("edge_cases/edge_cases.sam");
  const std::string bam = dir.file("edge.bam");
  ASSERT_EQ(run_command("samtools view --no-PG -b -o " + shell_quote(bam) + " " + shell_quote(sam))
                .exit_code,
            0);
  const std::string expected = samtools_view(bam);

  EXPECT_EQ(copy_through_columns(bam, dir.file("from_bam.bam")), 14u);
  EXPECT_EQ(samtools_view(dir.file("from_bam.bam")), expected);

  copy_through_columns(sam, dir.file("from_sam.bam"));
  EXPECT_EQ(samtools_view(dir.file("from_sam.bam")), expected);

  copy_through_columns(bam, dir.file("to.sam"));
  EXPECT_EQ(samtools_view(dir.file("to.sam")), expected);
}

TEST(RoundTrip, ColumnsHoldTheDecodedFields) {
  Header header;
  const ReadBatch batch = read_alignments(test::data_path("edge_cases/edge_cases.sam"), {}, header);
  ASSERT_EQ(batch.size(), 14u);
  // pairA/1: 3S7M at 100 (1-based) -> pos 99, end 106.
  EXPECT_EQ(batch.read_name(0), "pairA");
  EXPECT_EQ(batch.pos[0], 99);
  EXPECT_EQ(batch.end[0], 106);
  EXPECT_EQ(batch.flag[0], 99);
  EXPECT_EQ(batch.read_seq(0), "ACGTACGTAC");
  EXPECT_EQ(batch.read_qual(0)[0], 'I' - 33);
  ASSERT_EQ(batch.read_cigar(0).size(), 2u);
  EXPECT_EQ(batch.read_cigar(0)[0], (3u << 4) | 4u);  // 3S
  EXPECT_EQ(batch.read_group[0], 0);
  EXPECT_EQ(batch.library[0], 0);
  EXPECT_EQ(batch.read_group[2], 1);  // pairB: rg2 -> libB
  EXPECT_EQ(batch.library[2], 1);
  EXPECT_EQ(batch.read_seq(3), "RYKMSWBN");  // IUPAC codes kept
  // Unmapped, unplaced, QUAL '*' stored as 0xFF.
  EXPECT_EQ(batch.tid[6], -1);
  EXPECT_EQ(batch.pos[6], -1);
  EXPECT_EQ(batch.read_qual(6)[0], 0xFF);
  // SEQ '*': no bases.
  EXPECT_EQ(batch.seq_length(10), 0u);
  EXPECT_EQ(batch.read_group[12], -1);  // RG not in the header
  EXPECT_EQ(batch.read_group[11], -1);  // no RG tag
  EXPECT_EQ(header.libraries(), (std::vector<std::string>{"libA", "libB"}));
}

TEST(RoundTrip, ThroughCramWithReference) {
  test::TempDir dir;
  const std::string bam = test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam");
  const std::string ref = test::data_path("nfcore_chr22_40kb/genome.fasta");
  const std::string cram = dir.file("copy.cram");
  copy_through_columns(bam, cram, ref);
  EXPECT_EQ(run_command("samtools quickcheck " + shell_quote(cram)).exit_code, 0);
  copy_through_columns(cram, dir.file("back.bam"), ref);
  // CRAM itself is not byte-lossless (MD/NM are regenerated and move to the end of the aux
  // fields), so the peer is samtools' own CRAM conversion of the same BAM.
  const std::string peer_cram = dir.file("peer.cram");
  ASSERT_EQ(run_command("samtools view -C -T " + shell_quote(ref) + " -o " +
                        shell_quote(peer_cram) + " " + shell_quote(bam))
                .exit_code,
            0);
  const auto body = [&](const std::string& path) {
    return run_command("samtools view -T " + shell_quote(ref) + " " + shell_quote(path)).out;
  };
  const std::string expected = body(peer_cram);
  EXPECT_GT(expected.size(), 100000u);
  EXPECT_TRUE(body(cram) == expected);
  EXPECT_TRUE(body(dir.file("back.bam")) == expected);
}

TEST(RoundTrip, ReadsInChunks) {
  const std::string bam = test::data_path("nfcore_chr22_40kb/test2.paired_end.sorted.bam");
  AlignmentReader reader(bam, {});
  ReadBatch batch;
  std::size_t chunks = 0;
  while (reader.read_into(batch, 1000) > 0) ++chunks;
  EXPECT_EQ(batch.size(), 5436u);
  EXPECT_EQ(chunks, 6u);
}

}  // namespace
}  // namespace gpp::io
