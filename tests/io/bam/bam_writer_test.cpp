// The BAM writer against samtools: the same bytes as `samtools view --no-PG -b`, the same index
// as `samtools index`, CSI for long contigs, CG tags for CIGARs over 65535 operations; rows of
// several batches write what the same rows of one batch write.
#include <gtest/gtest.h>

#include <deque>
#include <fstream>
#include <memory>
#include <sstream>

#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "kernels/bgzf/bgzf_deflate.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

using test::run_command;
using test::shell_quote;

void must_run(const std::string& command) {
  const auto r = run_command(command);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.err;
}

TEST(BamWriter, BytesEqualSamtoolsForEveryBamInTestData) {
  test::TempDir dir;
  for (const std::string& bam : test::data_files_with_suffix(".bam")) {
    Header header;
    const ReadBatch batch = read_alignments(bam, {}, header);
    write_alignments(dir.file("ours.bam"), header, batch, {.threads = 2});
    must_run("samtools view --no-PG -b -o " + shell_quote(dir.file("peer.bam")) + " " +
             shell_quote(bam));
    EXPECT_TRUE(test::read_file(dir.file("ours.bam")) == test::read_file(dir.file("peer.bam")))
        << bam;
  }
}

TEST(BamWriter, OnTheFlyIndexEqualsSamtoolsIndex) {
  test::TempDir dir;
  for (const char* input :
       {"real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
        "real_na12878_chr20_hg19/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam",
        "nfcore_chr22_40kb/NA12878.chr22.bam"}) {
    Header header;
    const ReadBatch batch = read_alignments(test::data_path(input), {}, header);
    const auto order = stages::sort::coordinate_order(batch, kernels::Backend::kCpu);
    const std::string ours = dir.file("sorted.bam");
    write_alignments(ours, header, batch, order, {.write_index = true});
    must_run("cp " + shell_quote(ours) + " " + shell_quote(dir.file("copy.bam")) +
             " && samtools index " + shell_quote(dir.file("copy.bam")));
    EXPECT_TRUE(test::read_file(ours + ".bai") == test::read_file(dir.file("copy.bam.bai")))
        << input;
  }
}

// A contig longer than BAI allows (2^29 - 1) gets a CSI index, equal to `samtools index -c`.
TEST(BamWriter, BlockDeflaterInGroupsKeepsRecordsAndIndex) {
  // The block encoder (the CPU twin of the GPU one) in jobs of 7 blocks, three in flight, each
  // compressed only when the writer waits for it (as a GPU finishes later): the writer must leave
  // a job's buffers alone until then. Records and index must come out as samtools reads them.
  test::TempDir dir;
  Header header;
  const std::string input =
      test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam");
  const ReadBatch batch = read_alignments(input, {}, header);
  struct Deferred {
    kernels::BlockDeflater encoder{kernels::Backend::kCpu};
    std::deque<DeflateOffload::Job> jobs;
    std::size_t most_in_flight = 0;
  };
  auto deferred = std::make_shared<Deferred>();
  WriterOptions options{.threads = 2, .write_index = true};
  options.deflate_offload = {
      .submit =
          [deferred](const DeflateOffload::Job& job) {
            deferred->jobs.push_back(job);
            deferred->most_in_flight = std::max(deferred->most_in_flight, deferred->jobs.size());
          },
      .wait_oldest =
          [deferred] {
            const DeflateOffload::Job job = deferred->jobs.front();
            deferred->jobs.pop_front();
            deferred->encoder.deflate({.data = job.data,
                                       .stride = job.stride,
                                       .sizes = job.sizes,
                                       .count = job.count,
                                       .out = job.out,
                                       .out_stride = job.out_stride,
                                       .out_capacity = job.capacity,
                                       .out_sizes = job.out_sizes});
          },
      .allocate =
          [](std::size_t bytes) { return std::make_shared_for_overwrite<std::uint8_t[]>(bytes); },
      .max_blocks = 7,
      .in_flight = 3};
  write_alignments(dir.file("block.bam"), header, batch, options);
  write_alignments(dir.file("default.bam"), header, batch, WriterOptions{.threads = 2});
  const auto ours = run_command("samtools view " + shell_quote(dir.file("block.bam")));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_TRUE(ours.out == run_command("samtools view " + shell_quote(dir.file("default.bam"))).out);
  EXPECT_GT(ours.out.size(), 1000000u);
  must_run("samtools index -o " + shell_quote(dir.file("samtools.bai")) + " " +
           shell_quote(dir.file("block.bam")));
  EXPECT_TRUE(test::read_file(dir.file("block.bam.bai")) ==
              test::read_file(dir.file("samtools.bai")));
  EXPECT_EQ(deferred->most_in_flight, 3u);
  EXPECT_TRUE(deferred->jobs.empty());
}

TEST(BamWriter, LongContigGetsCsiIndex) {
  test::TempDir dir;
  std::ofstream sam(dir.file("long.sam"));
  sam << "@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:big\tLN:900000000\n@SQ\tSN:small\tLN:1000\n";
  for (long pos : {5L, 100'000'000L, 600'000'000L, 899'999'000L}) {
    sam << "r" << pos << "\t0\tbig\t" << pos << "\t60\t4M\t*\t0\t0\tACGT\tIIII\n";
  }
  sam << "s1\t16\tsmall\t10\t60\t4M\t*\t0\t0\tACGT\tIIII\n";
  sam.close();
  Header header;
  const ReadBatch batch = read_alignments(dir.file("long.sam"), {}, header);
  write_alignments(dir.file("long.bam"), header, batch, {.write_index = true});
  EXPECT_EQ(index_path_for(dir.file("long.bam"), header), dir.file("long.bam.csi"));
  must_run("cp " + shell_quote(dir.file("long.bam")) + " " + shell_quote(dir.file("copy.bam")) +
           " && samtools index -c " + shell_quote(dir.file("copy.bam")));
  EXPECT_TRUE(test::read_file(dir.file("long.bam.csi")) ==
              test::read_file(dir.file("copy.bam.csi")));
  EXPECT_EQ(run_command("samtools view -c " + shell_quote(dir.file("long.bam")) +
                        " big:599999000-600000010")
                .out,
            "1\n");
}

// Over 65535 CIGAR operations: stored as kSmN plus a CG tag, read back whole, like samtools.
TEST(BamWriter, CigarsOverSixtyFiveThousandOperationsUseTheCgTag) {
  test::TempDir dir;
  std::ofstream sam(dir.file("cg.sam"));
  sam << "@HD\tVN:1.6\n@SQ\tSN:c\tLN:1000000\n";
  std::string cigar;
  std::string seq;
  for (int k = 0; k < 35'000; ++k) {
    cigar += "1M1I";
    seq += "AC";
  }
  sam << "long\t0\tc\t100\t60\t" << cigar << "\t*\t0\t0\t" << seq << "\t*\tNM:i:1\n";
  sam.close();
  must_run("samtools view --no-PG -b -o " + shell_quote(dir.file("peer.bam")) + " " +
           shell_quote(dir.file("cg.sam")));
  Header header;
  const ReadBatch batch = read_alignments(dir.file("peer.bam"), {}, header);
  ASSERT_EQ(batch.read_cigar(0).size(), 70'000u);
  write_alignments(dir.file("ours.bam"), header, batch, {});
  EXPECT_TRUE(test::read_file(dir.file("ours.bam")) == test::read_file(dir.file("peer.bam")));
  Header again;
  EXPECT_EQ(read_alignments(dir.file("ours.bam"), {}, again).read_cigar(0).size(), 70'000u);
}

TEST(BamWriter, StreamsBatchesAndLeavesNothingWhenNotFinished) {
  test::TempDir dir;
  Header header;
  const ReadBatch batch =
      read_alignments(test::data_path("nfcore_chr22_40kb/test2.paired_end.sorted.bam"), {}, header);
  {
    AlignmentWriter writer(dir.file("abandoned.bam"), header, {.write_index = true});
    writer.write(batch);
  }
  EXPECT_TRUE(dir.entries().empty());
  // Written in three batches, the bytes equal one whole write.
  AlignmentWriter writer(dir.file("parts.bam"), header, {});
  std::vector<std::uint32_t> part;
  for (std::uint32_t i = 0; i < batch.size(); ++i) {
    part.push_back(i);
    if (part.size() == 2000 || i + 1 == batch.size()) {
      writer.write(batch, part);
      part.clear();
    }
  }
  writer.finish();
  write_alignments(dir.file("whole.bam"), header, batch, {});
  EXPECT_EQ(writer.records_written(), batch.size());
  EXPECT_TRUE(test::read_file(dir.file("parts.bam")) == test::read_file(dir.file("whole.bam")));
}

// Rows taken from several batches (a merge's records where its runs were read) write the bytes
// and index of the same records in the same order from one batch, for BAM and for SAM.
TEST(BamWriter, RowsAcrossBatchesWriteWhatOneBatchWrites) {
  test::TempDir dir;
  Header header;
  const ReadBatch batch = read_alignments(
      test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"), {}, header);
  const auto order = stages::sort::coordinate_order(batch, kernels::Backend::kCpu);
  // Record i goes to source i % 3; the order names each where it went.
  ReadBatch sources[3];
  std::vector<ReadBatch::RowRef> place(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    ReadBatch& source = sources[i % 3];
    place[i] = {static_cast<std::uint32_t>(i % 3), static_cast<std::uint32_t>(source.size())};
    source.append_row(batch, i);
  }
  std::vector<ReadBatch::RowRef> rows;
  for (const std::uint32_t i : order) rows.push_back(place[i]);
  const ReadBatch* pointers[] = {&sources[0], &sources[1], &sources[2]};
  for (const char* extension : {".bam", ".sam"}) {
    const std::string across = dir.file(std::string("across") + extension);
    const std::string one = dir.file(std::string("one") + extension);
    AlignmentWriter writer(across, header, {.write_index = true});
    const std::size_t half = rows.size() / 2;
    writer.write(RowsAcross(pointers, std::span(rows).first(half)));
    writer.write(RowsAcross(pointers, std::span(rows).subspan(half)));
    writer.finish();
    write_alignments(one, header, batch, order, {.write_index = true});
    EXPECT_EQ(writer.records_written(), batch.size());
    EXPECT_TRUE(test::read_file(across) == test::read_file(one)) << extension;
  }
  EXPECT_TRUE(test::read_file(dir.file("across.bam.bai")) ==
              test::read_file(dir.file("one.bam.bai")));
}

}  // namespace
}  // namespace gpp::io
