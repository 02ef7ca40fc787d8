// Reading BAM with blocks inflated elsewhere (ReaderOptions::block_inflater, what --gpu-read
// gives): each read is shared between that inflater and libdeflate, and the records are those
// read without it, kept or in columns, in steps of any size; a corrupt block is reported with its
// place in the file whichever side inflated it. Here the "elsewhere" is our block decoder on the
// CPU (kernels::BlockInflater, handed over as the pipeline hands the GPU's); the GPU runs the same
// decoder (BgzfInflateGpu).
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>

#include "io/alignment_reader.hpp"
#include "kernels/bgzf_inflate.hpp"
#include "kernels/error.hpp"
#include "pipeline/alignment_io.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

// The CPU block decoder behind the interface (as the pipeline hands a GPU's to the reader),
// counting the blocks it was given.
struct CountingInflater {
  kernels::BlockInflater decoder{kernels::Backend::kCpu};
  BlockInflater inner = pipeline::reader_inflater(decoder);
  std::atomic<std::size_t> blocks{0};
  BlockInflater interface() {
    return {.inflate = [this](const BlockInflater::Job& job, const BlockInflater::Check& check) {
      blocks += job.count;
      return inner.inflate(job, check);
    }};
  }
};

std::string records_text(const ReadBatch& batch) {
  std::string text;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto q = batch.read_qual(i);
    const auto a = batch.read_aux(i);
    text += std::string(batch.read_name(i)) + ' ' + std::to_string(batch.flag[i]) + ' ' + std::to_string(batch.pos[i]) + ' ' +
            std::string(q.begin(), q.end()) + ' ' + std::string(a.begin(), a.end()) + '\n';
  }
  return text;
}

TEST(BlockInflaterReading, RecordsEqualThoseReadWithLibdeflateAlone) {
  for (const char* bam : {"real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
                          "gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam"}) {
    for (const bool keep : {false, true}) {
      for (const std::size_t step : {std::size_t{1} << 16, std::size_t{16} << 20}) {
        Header h1, h2;
        const ReadBatch plain = read_alignments(test::data_path(bam), {.read_ahead_bytes = step, .keep_bam_records = keep}, h1);
        CountingInflater inflater;
        const ReadBatch shared = read_alignments(
            test::data_path(bam),
            {.read_ahead_bytes = step, .keep_bam_records = keep, .block_inflater = inflater.interface()}, h2);
        ASSERT_GT(plain.size(), 1000u) << bam;
        EXPECT_TRUE(records_text(shared) == records_text(plain)) << bam << ", keep " << keep << ", step " << step;
        EXPECT_GT(inflater.blocks.load(), 0u) << bam << ": the inflater took no blocks";
      }
    }
  }
}

TEST(BlockInflaterReading, CorruptBlocksAreReportedWithTheirPlace) {
  test::TempDir dir;
  const std::string source = test::read_file(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  // Blocks at the start (the inflater's share) and near the end (libdeflate's) of one read.
  for (const double where : {0.05, 0.95}) {
    std::string bytes = source;
    // Find the block that holds the byte at `where` and flip a bit in the middle of its data.
    std::size_t at = 0, block = 0;
    while (true) {
      const std::size_t bsize = (static_cast<unsigned char>(bytes[at + 16]) | static_cast<unsigned char>(bytes[at + 17]) << 8) + 1u;
      if (at + bsize > where * static_cast<double>(bytes.size())) {
        block = at;
        bytes[at + bsize / 2] ^= 0x08;
        break;
      }
      at += bsize;
    }
    const std::string path = dir.file("corrupt.bam");
    std::ofstream(path, std::ios::binary) << bytes;
    CountingInflater inflater;
    Header header;
    try {
      read_alignments(path, {.keep_bam_records = true, .block_inflater = inflater.interface()}, header);
      ADD_FAILURE() << "no error for a corrupt block at byte " << block;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("corrupt BGZF block at byte " + std::to_string(block)), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gpp::io
