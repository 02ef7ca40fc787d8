// SharedInflater: many BAM readers through one block decoder give the records each reads with
// libdeflate alone — read round-robin on one thread (a reader's parts land for it while another
// is read: nobody waits on a reader nobody reads), side by side on threads, or one dropped
// half-way; and spilled runs merged through it give the merge's records. The decoder is our block
// decoder on the CPU (as the GPU session lends the GPU's), and the GPU's itself
// (SharedInflaterGpu).
#include "pipeline/shared_inflater.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"
#include "pipeline/spilled_runs.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "tests/io/record_lines.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

const char* const kBams[] = {
    "real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
    "gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam",
    "nfcore_chr22_40kb/test.paired_end.sorted.bam",
};

void append_text(const io::ReadBatch& batch, std::string& text) {
  text += test::record_lines(batch);
}

std::string plain_text(const std::string& path) {
  io::Header header;
  std::string text;
  append_text(io::read_alignments(path, {}, header), text);
  return text;
}

// A reader of `path` through `shared`: small steps, parts of three blocks, so that every file
// goes through many parts.
std::unique_ptr<io::AlignmentReader> shared_reader(const std::string& path,
                                                   const SharedInflater& shared) {
  return std::make_unique<io::AlignmentReader>(
      path, io::ReaderOptions{.read_ahead_bytes = 1 << 16, .inflate_offload = shared.client(3)});
}

// Reads the files round-robin, 500 records of each in turn, on this thread; `first_whole` is read
// to its end before the others start (their parts wait in the decoder meanwhile).
void expect_round_robin_reads_plain(kernels::Backend backend, std::size_t first_whole) {
  kernels::BlockInflater decoder(backend);
  bool returned = false;
  {
    const SharedInflater shared(decoder,
                                std::shared_ptr<void>(nullptr, [&](void*) { returned = true; }));
    std::vector<std::unique_ptr<io::AlignmentReader>> readers;
    std::vector<std::string> texts(std::size(kBams));
    for (const char* bam : kBams) readers.push_back(shared_reader(test::data_path(bam), shared));
    io::ReadBatch batch;
    const auto read_some = [&](std::size_t r, std::size_t records) {
      batch.clear();
      const std::size_t got = readers[r]->read_into(batch, records);
      append_text(batch, texts[r]);
      return got;
    };
    while (read_some(first_whole, 500) > 0) {
    }
    for (bool any = true; any;) {
      any = false;
      for (std::size_t r = 0; r < readers.size(); ++r) any = read_some(r, 500) > 0 || any;
    }
    for (std::size_t r = 0; r < std::size(kBams); ++r) {
      const std::string plain = plain_text(test::data_path(kBams[r]));
      ASSERT_GT(plain.size(), 10000u) << kBams[r];
      EXPECT_TRUE(texts[r] == plain) << kBams[r] << ", first read whole: " << first_whole;
    }
    EXPECT_FALSE(returned);  // the readers still hold their clients
  }
  EXPECT_TRUE(returned);
}

TEST(SharedInflater, ReadersReadRoundRobinGiveTheirRecords) {
  for (std::size_t first = 0; first < std::size(kBams); ++first) {
    expect_round_robin_reads_plain(kernels::Backend::kCpu, first);
  }
}

TEST(SharedInflater, ReadersOnThreadsGiveTheirRecords) {
  kernels::BlockInflater decoder(kernels::Backend::kCpu);
  const SharedInflater shared(decoder);
  std::vector<std::string> texts(2 * std::size(kBams));
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < texts.size(); ++r) {
    threads.emplace_back([&, r] {
      const auto reader = shared_reader(test::data_path(kBams[r % std::size(kBams)]), shared);
      io::ReadBatch batch;
      while (reader->read_into(batch, 700) > 0) {
        append_text(batch, texts[r]);
        batch.clear();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t r = 0; r < texts.size(); ++r) {
    EXPECT_TRUE(texts[r] == plain_text(test::data_path(kBams[r % std::size(kBams)])))
        << kBams[r % std::size(kBams)];
  }
}

// A reader dropped with parts in flight lands (and drops) them: the decoder serves a later
// reader exactly.
TEST(SharedInflater, AReaderDroppedHalfWayLeavesTheDecoderClean) {
  kernels::BlockInflater decoder(kernels::Backend::kCpu);
  const std::string path = test::data_path(kBams[0]);
  {
    const SharedInflater shared(decoder);
    const auto dropped = shared_reader(path, shared);
    io::ReadBatch batch;
    ASSERT_EQ(dropped->read_into(batch, 100), 100u);
  }
  const SharedInflater shared(decoder);
  const auto reader = shared_reader(path, shared);
  io::ReadBatch batch;
  reader->read_into(batch);
  std::string text;
  append_text(batch, text);
  EXPECT_TRUE(text == plain_text(path));
}

// Runs of the NA12878 slice (three chunks, each sorted) merged with their readers sharing the
// decoder hand on the records of the merge without it.
TEST(SharedInflater, SpilledRunsMergedThroughItGiveTheSameRecords) {
  const std::string path = test::data_path(kBams[0]);
  io::Header header;
  const io::ReadBatch all = io::read_alignments(path, {}, header);
  kernels::BlockInflater decoder(kernels::Backend::kCpu);
  std::string texts[2];
  std::size_t shared_made = 0;
  for (const bool through_decoder : {false, true}) {
    test::TempDir dir;
    SpilledRuns runs(dir.path().string(), header, SpilledRuns::Order::kCoordinate, {},
                     [&]() -> std::shared_ptr<SharedInflater> {
                       if (!through_decoder) return nullptr;
                       ++shared_made;
                       return std::make_shared<SharedInflater>(decoder);
                     });
    const std::size_t third = all.size() / 3 + 1;
    for (std::size_t first = 0; first < all.size(); first += third) {
      io::ReadBatch chunk;
      for (std::size_t i = first; i < std::min(all.size(), first + third); ++i)
        chunk.append_row(all, i);
      runs.add(chunk, stages::sort::coordinate_order(chunk, kernels::Backend::kCpu));
    }
    ASSERT_EQ(runs.count(), 3u);
    runs.merge(64 << 20, [&](MergedRows& merged) {
      io::ReadBatch batch;
      merged.gather_into(batch);
      append_text(batch, texts[through_decoder]);
    });
  }
  EXPECT_EQ(shared_made, 1u);
  ASSERT_GT(texts[0].size(), 10000u);
  EXPECT_TRUE(texts[1] == texts[0]);
}

using SharedInflaterGpu = test::GpuTest;

TEST_F(SharedInflaterGpu, ReadersReadRoundRobinGiveTheirRecords) {
  for (std::size_t first = 0; first < std::size(kBams); ++first) {
    expect_round_robin_reads_plain(kernels::Backend::kGpu, first);
  }
}

}  // namespace
}  // namespace gpp::pipeline
