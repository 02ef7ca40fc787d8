// Reading BAM with blocks inflated elsewhere (ReaderOptions::inflate_offload, what --gpu-read
// gives): the file streams through that inflater ahead of the reads, and the records are those
// read with libdeflate, kept or in columns, in steps of any size; a corrupt or cut block is
// reported with its place in the file. Here the "elsewhere" is our block decoder on the CPU
// (kernels::BlockInflater, handed over as the pipeline hands the GPU's); the GPU runs the same
// decoder (BgzfInflateGpu).
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"
#include "pipeline/gpu_session.hpp"
#include "tests/io/record_lines.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

// The CPU block decoder behind the interface (as the pipeline hands a GPU's to the reader),
// counting the blocks it was given; parts of `part_blocks` blocks at most (fewer than the decoder
// takes, so that small files stream through several parts).
struct CountingInflater {
  kernels::BlockInflater decoder{kernels::Backend::kCpu};
  InflateOffload inner = pipeline::reader_inflater(decoder);
  std::atomic<std::size_t> blocks{0};
  std::atomic<std::size_t> parts{0};
  std::size_t part_blocks = kernels::BlockInflater::kPartBlocks;
  InflateOffload interface() {
    InflateOffload counted = inner;
    counted.max_blocks = part_blocks;
    counted.submit = [this](const InflateOffload::Part& part) {
      blocks += part.count;
      ++parts;
      inner.submit(part);
    };
    return counted;
  }
};

std::string records_text(const ReadBatch& batch) { return test::record_lines(batch); }

TEST(InflateOffloadReading, RecordsEqualThoseReadWithLibdeflateAlone) {
  for (const char* bam : {"real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
                          "gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam"}) {
    for (const bool keep : {false, true}) {
      for (const std::size_t step : {std::size_t{1} << 16, std::size_t{16} << 20}) {
        for (const std::size_t part_blocks :
             {std::size_t{5}, kernels::BlockInflater::kPartBlocks}) {
          Header h1, h2;
          const ReadBatch plain = read_alignments(
              test::data_path(bam), {.read_ahead_bytes = step, .keep_bam_records = keep}, h1);
          CountingInflater inflater;
          inflater.part_blocks = part_blocks;
          const ReadBatch streamed = read_alignments(test::data_path(bam),
                                                     {.read_ahead_bytes = step,
                                                      .keep_bam_records = keep,
                                                      .inflate_offload = inflater.interface()},
                                                     h2);
          ASSERT_GT(plain.size(), 1000u) << bam;
          EXPECT_TRUE(records_text(streamed) == records_text(plain))
              << bam << ", keep " << keep << ", step " << step << ", parts of " << part_blocks;
          EXPECT_GT(inflater.blocks.load(), 0u) << bam << ": the inflater took no blocks";
          EXPECT_EQ(inflater.parts.load(), (inflater.blocks.load() + part_blocks - 1) / part_blocks)
              << bam;
        }
      }
    }
  }
}

TEST(InflateOffloadReading, StepsBeforeTheInflaterIsReadyAreInflatedOnTheCpu) {
  // As while a GPU starts: ready() says no for the first `not_ready` asks (forever with -1), and
  // the reader inflates those steps itself, then streams the rest of the file through the inflater.
  const std::string bam = test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam");
  for (const bool keep : {false, true}) {
    Header h0;
    const ReadBatch plain =
        read_alignments(bam, {.read_ahead_bytes = 1 << 16, .keep_bam_records = keep}, h0);
    std::size_t all_blocks = 0;
    for (const int not_ready : {0, 3, -1}) {
      CountingInflater inflater;
      inflater.part_blocks = 5;
      InflateOffload interface = inflater.interface();
      int asked = 0;
      interface.ready = [&] { return not_ready >= 0 && ++asked > not_ready; };
      Header h;
      const ReadBatch read = read_alignments(
          bam,
          {.read_ahead_bytes = 1 << 16, .keep_bam_records = keep, .inflate_offload = interface}, h);
      EXPECT_TRUE(records_text(read) == records_text(plain))
          << "keep " << keep << ", not ready " << not_ready;
      if (not_ready == 0) {
        all_blocks = inflater.blocks.load();
        EXPECT_GT(all_blocks, 20u);
      } else if (not_ready > 0) {
        EXPECT_GT(inflater.blocks.load(), 0u)
            << "keep " << keep << ": the inflater never took over";
        EXPECT_LT(inflater.blocks.load(), all_blocks)
            << "keep " << keep << ": the first steps went to the inflater";
        EXPECT_GE(asked, not_ready + 1);
      } else {
        EXPECT_EQ(inflater.blocks.load(), 0u)
            << "keep " << keep << ": parts went to an inflater never ready";
      }
    }
  }
}

TEST(InflateOffloadReading, AnInflaterReadyOnlyAtTimesStillGivesEveryRecord) {
  // ready() goes back to false while parts are in flight (a GPU making one part's buffers at a
  // time): the reader submits fewer parts ahead, lands those it has, and inflates on the CPU when
  // none is left; records as with libdeflate alone.
  const std::string bam = test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam");
  Header h0, h;
  const ReadBatch plain =
      read_alignments(bam, {.read_ahead_bytes = 1 << 16, .keep_bam_records = true}, h0);
  CountingInflater inflater;
  inflater.part_blocks = 3;
  InflateOffload interface = inflater.interface();
  int asked = 0;
  interface.ready = [&] { return ++asked % 7 < 3; };
  const ReadBatch read = read_alignments(
      bam, {.read_ahead_bytes = 1 << 16, .keep_bam_records = true, .inflate_offload = interface},
      h);
  EXPECT_TRUE(records_text(read) == records_text(plain));
  EXPECT_GT(inflater.parts.load(), 1u);
  EXPECT_GT(asked, 10);
}

TEST(InflateOffloadReading, AnInflaterThatFailsToStartStopsTheReadingWithItsError) {
  CountingInflater inflater;
  InflateOffload interface = inflater.interface();
  int asked = 0;
  interface.ready = [&]() -> bool {
    if (++asked > 2) throw Error("--device gpu: no usable GPU (test)");
    return false;
  };
  Header h;
  try {
    read_alignments(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"),
                    {.read_ahead_bytes = 1 << 16, .inflate_offload = interface}, h);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--device gpu: no usable GPU (test)");
  }
  EXPECT_EQ(inflater.blocks.load(), 0u);
}

TEST(InflateOffloadReading, AReaderStoppedEarlyLeavesTheInflaterReady) {
  // Stopped with parts in flight: the next reader of the same decoder gets its own blocks.
  const std::string bam = test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam");
  Header header;
  const ReadBatch plain = read_alignments(bam, {.keep_bam_records = true}, header);
  CountingInflater inflater;
  inflater.part_blocks = 5;
  for (int round = 0; round < 2; ++round) {
    AlignmentReader reader(bam,
                           {.read_ahead_bytes = 1 << 16, .inflate_offload = inflater.interface()});
    ReadBatch some;
    EXPECT_EQ(reader.read_into(some, 100), 100u);
    EXPECT_EQ(std::string(some.read_name(99)), std::string(plain.read_name(99)));
  }
  const ReadBatch again = read_alignments(bam, {.inflate_offload = inflater.interface()}, header);
  ASSERT_EQ(again.size(), plain.size());
  EXPECT_EQ(std::string(again.read_name(again.size() - 1)),
            std::string(plain.read_name(plain.size() - 1)));
}

void expect_read_error(const std::string& path, const InflateOffload& inflater,
                       const std::string& message) {
  Header header;
  try {
    read_alignments(
        path, {.read_ahead_bytes = 1 << 16, .keep_bam_records = true, .inflate_offload = inflater},
        header);
    ADD_FAILURE() << "no error, expected: " << message << (inflater ? " (streamed)" : "");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
        << e.what() << (inflater ? " (streamed)" : "");
  }
}

TEST(InflateOffloadReading, CorruptBlocksAreReportedWithTheirPlace) {
  test::TempDir dir;
  const std::string source =
      test::read_file(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  // Blocks near the start and near the end of the file.
  for (const double where : {0.05, 0.95}) {
    std::string bytes = source;
    // Find the block that holds the byte at `where` and flip a bit in the middle of its data.
    std::size_t at = 0, block = 0;
    while (true) {
      const std::size_t bsize = (static_cast<unsigned char>(bytes[at + 16]) |
                                 static_cast<unsigned char>(bytes[at + 17]) << 8) +
                                1u;
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
    inflater.part_blocks = 5;
    expect_read_error(path, inflater.interface(),
                      "corrupt BGZF block at byte " + std::to_string(block));
  }
}

TEST(InflateOffloadReading, BlockWithAnotherCrcIsReportedWithItsPlace) {
  // The contents inflate, but their footer's CRC-32 is not theirs: the inflater's check finds it.
  test::TempDir dir;
  std::string bytes =
      test::read_file(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  std::size_t at = 0;
  for (int k = 0; k < 120; ++k) {
    at += (static_cast<unsigned char>(bytes[at + 16]) | static_cast<unsigned char>(bytes[at + 17])
                                                            << 8) +
          1u;
  }
  const std::size_t next = at +
                           (static_cast<unsigned char>(bytes[at + 16]) |
                            static_cast<unsigned char>(bytes[at + 17]) << 8) +
                           1u;
  ASSERT_LT(next, bytes.size());
  bytes[next - 8] ^= 0x01;  // the CRC-32, first of the footer's two fields
  const std::string path = dir.file("crc.bam");
  std::ofstream(path, std::ios::binary) << bytes;
  CountingInflater inflater;
  inflater.part_blocks = 7;
  expect_read_error(path, inflater.interface(), "corrupt BGZF block at byte " + std::to_string(at));
  expect_read_error(path, InflateOffload{}, "corrupt BGZF block at byte " + std::to_string(at));
}

TEST(InflateOffloadReading, DamagedHeadersAndCutBlocksAreReportedWhereTheyAre) {
  // Found while parsing ahead of the reads: reported when the reading reaches them, with their
  // place, as without the inflater.
  test::TempDir dir;
  const std::string source =
      test::read_file(test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"));
  std::vector<std::size_t> blocks;
  for (std::size_t at = 0; at < source.size();) {
    blocks.push_back(at);
    at += (static_cast<unsigned char>(source[at + 16]) | static_cast<unsigned char>(source[at + 17])
                                                             << 8) +
          1u;
  }
  ASSERT_GT(blocks.size(), 200u);
  const std::size_t damaged = blocks[150];
  std::string bad_magic = source;
  bad_magic[damaged + 1] = 0x00;
  std::string too_large = source;  // ISIZE of 70000
  const std::size_t footer = blocks[151] - 4;
  too_large[footer] = static_cast<char>(0x70);
  too_large[footer + 1] = static_cast<char>(0x11);
  too_large[footer + 2] = 0x01;
  // Cut in the middle of block 150, the EOF marker appended.
  std::string cut = source.substr(0, damaged + 100) + source.substr(source.size() - 28);
  const std::pair<std::string, std::string> cases[] = {
      {bad_magic, "corrupt BGZF block at byte " + std::to_string(damaged)},
      {too_large, "corrupt BGZF block at byte " + std::to_string(damaged)},
      {cut, "truncated BGZF block at byte " + std::to_string(damaged)}};
  for (const auto& [bytes, message] : cases) {
    const std::string path = dir.file("damaged.bam");
    std::ofstream(path, std::ios::binary) << bytes;
    expect_read_error(path, {}, message);
    CountingInflater inflater;
    inflater.part_blocks = 5;
    expect_read_error(path, inflater.interface(), message);
  }
}

}  // namespace
}  // namespace gpp::io
