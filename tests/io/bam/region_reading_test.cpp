// AlignmentReader::restrict_to: the records of an indexed BAM or CRAM that overlap a set of ranges
// are those `samtools view -M` (HTSlib's multi-region iterator) prints, each once, in file order;
// without an index, for SAM, or once reading has begun, nothing changes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

using test::run_command;
using test::shell_quote;

std::string na12878_bam() {
  return test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam");
}

// "name position" of every record of `batch`.
std::vector<std::string> names_and_positions(const ReadBatch& batch) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    out.push_back(std::string(batch.read_name(i)) + " " + std::to_string(batch.pos[i] + 1));
  }
  return out;
}

std::vector<std::string> samtools_lines(const std::string& command) {
  const auto r = run_command(command);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(RegionReading, RecordsAreThoseOfTheMultiRegionIteratorEachOnce) {
  test::TempDir dir;
  const std::string reference =
      test::data_path("real_na12878_chr20_hg19/ucsc.hg19.chr20.unittest.fasta.gz");
  // BAM with a BAI, BAM with a CSI, CRAM with a CRAI.
  const std::string bai = dir.file("bai.bam");
  const std::string csi = dir.file("csi.bam");
  const std::string cram = dir.file("in.cram");
  ASSERT_EQ(
      run_command("cp " + shell_quote(na12878_bam()) + " " + shell_quote(bai) +
                  " && samtools index " + shell_quote(bai) + " && cp " +
                  shell_quote(na12878_bam()) + " " + shell_quote(csi) + " && samtools index -c " +
                  shell_quote(csi) + " && samtools view -C -T " + shell_quote(reference) + " -o " +
                  shell_quote(cram) + " " + shell_quote(na12878_bam()) +
                  " 2>/dev/null && samtools index " + shell_quote(cram))
          .exit_code,
      0);
  const std::vector<std::string> expected = samtools_lines(
      "samtools view -M " + shell_quote(bai) +
      " chr20:10000101-10000400 chr20:10000351-10000900 chr20:10050001-10050010 | cut -f1,4 | tr "
      "'\\t' ' '");
  ASSERT_GT(expected.size(), 100u);
  for (const std::string& input : {bai, csi, cram}) {
    AlignmentReader reader(input, {.threads = 2, .reference = reference});
    const std::int32_t chr20 = reader.header().contig_index("chr20");
    // The first two overlap (a record in both comes once); the third holds a few records.
    const std::vector<ContigRange> ranges{{chr20, 10'000'100, 10'000'400},
                                          {chr20, 10'000'350, 10'000'900},
                                          {chr20, 10'050'000, 10'050'010}};
    ASSERT_TRUE(reader.restrict_to(ranges)) << input;
    ReadBatch batch;
    while (reader.read_into(batch, 100) > 0) {
    }
    EXPECT_EQ(names_and_positions(batch), expected) << input;
    // Once restricted, it stays so.
    EXPECT_FALSE(reader.restrict_to(ranges));
  }
}

TEST(RegionReading, NoIndexSamOrRecordsReadLeaveTheReaderAsItWas) {
  test::TempDir dir;
  const std::string bam = dir.file("unindexed.bam");
  ASSERT_EQ(run_command("cp " + shell_quote(na12878_bam()) + " " + shell_quote(bam)).exit_code, 0);
  const std::size_t all = std::stoul(run_command("samtools view -c " + shell_quote(bam)).out);
  {
    AlignmentReader reader(bam, {});
    const std::int32_t chr20 = reader.header().contig_index("chr20");
    EXPECT_FALSE(reader.restrict_to(std::vector<ContigRange>{{chr20, 10'000'000, 10'000'100}}));
    ReadBatch batch;
    reader.read_into(batch);
    EXPECT_EQ(batch.size(), all);
  }
  ASSERT_EQ(run_command("samtools index " + shell_quote(bam)).exit_code, 0);
  {
    AlignmentReader reader(bam, {});
    const std::int32_t chr20 = reader.header().contig_index("chr20");
    ReadBatch batch;
    ASSERT_EQ(reader.read_into(batch, 1), 1u);
    EXPECT_FALSE(reader.restrict_to(std::vector<ContigRange>{{chr20, 10'000'000, 10'000'100}}));
    reader.read_into(batch);
    EXPECT_EQ(batch.size(), all);
  }
  const std::string sam = dir.file("in.sam");
  ASSERT_EQ(
      run_command("samtools view -h -o " + shell_quote(sam) + " " + shell_quote(bam)).exit_code, 0);
  AlignmentReader reader(sam, {});
  EXPECT_FALSE(reader.restrict_to(
      std::vector<ContigRange>{{reader.header().contig_index("chr20"), 10'000'000, 10'000'100}}));
}

}  // namespace
}  // namespace gpp::io
