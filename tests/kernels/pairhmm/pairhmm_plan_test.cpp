// Host side of the CUDA PairHMM engine: chunks cover the batch, a packed chunk holds every read
// once, binned by length, with result indices that cover every pair once in the documented layout.
#include "kernels/pairhmm/detail/pairhmm_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "tests/kernels/pairhmm/pairhmm_test_support.hpp"

namespace gpp::kernels::pairhmm_plan {
namespace {

PairHmmBatch test_batch() {
  test::RandomBatchOptions o;
  o.groups = 60;
  o.max_reads = 15;
  o.max_read_length = 400;
  o.seed = 41;
  return test::random_pairhmm_batch(o);
}

TEST(PairHmmPlan, OrderedBatches) {
  const auto batch = test_batch();
  EXPECT_TRUE(is_ordered(batch.view()));
  auto view = batch.view();
  std::vector<PairHmmGroup> swapped(view.groups.begin(), view.groups.end());
  std::swap(swapped[0], swapped[1]);
  view.groups = swapped;
  EXPECT_FALSE(is_ordered(view));
}

TEST(PairHmmPlan, ChunksCoverTheBatchInOrder) {
  const auto batch = test_batch();
  const auto view = batch.view();
  const std::uint64_t target = view.cell_count() / 10;
  const auto chunks = plan_chunks(view, target);
  ASSERT_GT(chunks.size(), 5u);
  std::size_t group = 0;
  std::uint64_t pair = 0;
  for (const auto& c : chunks) {
    EXPECT_EQ(c.group_begin, group);
    EXPECT_GT(c.group_end, c.group_begin);
    EXPECT_EQ(c.read_begin, view.groups[c.group_begin].first_read);
    EXPECT_EQ(c.hap_begin, view.groups[c.group_begin].first_haplotype);
    const auto& last = view.groups[c.group_end - 1];
    EXPECT_EQ(c.read_end, last.first_read + last.read_count);
    EXPECT_EQ(c.hap_end, last.first_haplotype + last.haplotype_count);
    EXPECT_EQ(c.pair_begin, pair);
    PairHmmBatchView part = view;
    part.groups = view.groups.subspan(c.group_begin, c.group_end - c.group_begin);
    EXPECT_EQ(c.pair_count, part.pair_count());
    if (c.group_end - c.group_begin > 1) {
      EXPECT_LE(part.cell_count(), target);
    }
    group = c.group_end;
    pair += c.pair_count;
  }
  EXPECT_EQ(group, view.groups.size());
  EXPECT_EQ(pair, view.pair_count());
}

TEST(PairHmmPlan, FirstChunkTargetAndMinimumReads) {
  const auto batch = test_batch();
  const auto view = batch.view();
  const std::uint64_t target = view.cell_count() / 4, first = view.cell_count() / 20;
  const auto chunks = plan_chunks(view, target, 0, first);
  ASSERT_GT(chunks.size(), 3u);
  auto cells = [&](const Chunk& c) {
    PairHmmBatchView part = view;
    part.groups = view.groups.subspan(c.group_begin, c.group_end - c.group_begin);
    return part.cell_count();
  };
  // Chunk k aims at first * 2^k, up to target: it stays below that unless it is one region.
  std::uint64_t aim = first, largest = 0;
  for (const auto& c : chunks) {
    if (c.group_end - c.group_begin > 1) {
      EXPECT_LE(cells(c), aim);
    }
    largest = std::max(largest, cells(c));
    aim = std::min(target, 2 * aim);
  }
  EXPECT_GT(largest, 2 * first);  // later chunks aim at the larger targets
  // A minimum read count merges regions past the cell target (all of them here).
  const std::uint32_t reads = view.groups.back().first_read + view.groups.back().read_count;
  EXPECT_EQ(plan_chunks(view, target, reads).size(), 1u);
  EXPECT_EQ(plan_chunks(view, target, reads / 2).size(), 2u);
}

TEST(PairHmmPlan, PackedChunkHoldsEveryReadOnceBinnedByLength) {
  const auto batch = test_batch();
  const auto view = batch.view();
  const std::vector<int> bins = {16, 32, 64, 128, 256};
  for (const auto& c : plan_chunks(view, view.cell_count() / 4)) {
    std::vector<unsigned char> buffer(input_layout(view, c).total);
    const PackedChunk p = pack_chunk(view, c, bins, buffer.data(), true);
    const InputLayout& l = p.layout;
    const std::uint32_t base0 = view.reads.offsets[c.read_begin];
    ASSERT_EQ(p.reads, c.read_end - c.read_begin);
    EXPECT_EQ(std::memcmp(buffer.data() + l.bases, view.reads.bases.data() + base0, p.read_bases),
              0);
    EXPECT_EQ(std::memcmp(buffer.data() + l.gcp_quals,
                          view.reads.gap_continuation_quals.data() + base0, p.read_bases),
              0);
    const auto* offsets = reinterpret_cast<const std::uint32_t*>(buffer.data() + l.read_offsets);
    const auto* starts = reinterpret_cast<const std::uint32_t*>(buffer.data() + l.hap_starts);
    const auto* hap_lengths = reinterpret_cast<const std::uint32_t*>(buffer.data() + l.hap_lengths);
    for (std::uint32_t h = 0; h < p.haps; ++h) {
      const std::uint32_t begin =
          view.haplotypes.offsets[c.hap_begin + h] - view.haplotypes.offsets[c.hap_begin];
      EXPECT_EQ(starts[h], begin + (h + 1) * kHapPad);
      EXPECT_EQ(hap_lengths[h], view.haplotypes.offsets[c.hap_begin + h + 1] -
                                    view.haplotypes.offsets[c.hap_begin + h]);
    }
    EXPECT_EQ(p.padded_haps, p.hap_bases + (p.haps + 1) * kHapPad);

    const auto* items = reinterpret_cast<const WorkItem*>(buffer.data() + l.items);
    const auto hap_bases = [&](std::uint32_t first, std::uint32_t count) {
      std::uint32_t bases = 0;
      for (std::uint32_t h = first; h < first + count; ++h) bases += hap_lengths[h];
      return bases;
    };
    ASSERT_EQ(p.bin_start.back(), p.reads);
    std::vector<int> seen_read(p.reads, 0), seen_pair(c.pair_count, 0);
    // Expected result index of each read: its group's pairs before it, read-major.
    std::vector<std::uint64_t> expected_result(p.reads);
    std::uint64_t at = 0;
    for (std::size_t g = c.group_begin; g < c.group_end; ++g) {
      for (std::uint32_t k = 0; k < view.groups[g].read_count; ++k) {
        expected_result[view.groups[g].first_read + k - c.read_begin] = at;
        at += view.groups[g].haplotype_count;
      }
    }
    for (std::size_t b = 0; b + 1 < p.bin_start.size(); ++b) {
      for (std::uint32_t i = p.bin_start[b]; i < p.bin_start[b + 1]; ++i) {
        const WorkItem& item = items[i];
        ASSERT_LT(item.read, p.reads);
        ++seen_read[item.read];
        const int length = static_cast<int>(offsets[item.read + 1] - offsets[item.read]);
        if (b < bins.size()) {
          EXPECT_LE(length, bins[b]);
        }
        if (b > 0) {
          EXPECT_GT(length, bins[b - 1]);
        }
        if (i > p.bin_start[b] && b < bins.size()) {
          // Single-tile bins: ordered by (haplotypes, bases), equal keys by read.
          const WorkItem& before = items[i - 1];
          const auto key = [&](const WorkItem& w) {
            return std::pair(w.hap_count, hap_bases(w.first_hap, w.hap_count));
          };
          EXPECT_LE(key(before), key(item));
          if (key(before) == key(item)) {
            EXPECT_GT(item.read, before.read);
          }
        }
        EXPECT_EQ(item.result, expected_result[item.read]);
        for (std::uint32_t h = 0; h < item.hap_count; ++h) ++seen_pair[item.result + h];
      }
    }
    for (int s : seen_read) EXPECT_EQ(s, 1);
    for (int s : seen_pair) EXPECT_EQ(s, 1);
  }
}

TEST(PairHmmPlan, ItemsSplitReadsIntoHaplotypeRunsCoveringEveryPairOnce) {
  const auto batch = test_batch();
  const auto view = batch.view();
  const std::vector<int> bins = {16, 32, 64, 128, 256};
  for (const std::uint32_t columns : {1u, 150u, 600u}) {
    for (const auto& c : plan_chunks(view, view.cell_count() / 3)) {
      std::vector<unsigned char> buffer(input_layout(view, c, columns).total);
      const PackedChunk p = pack_chunk(view, c, bins, buffer.data(), true, columns);
      const auto* items = reinterpret_cast<const WorkItem*>(buffer.data() + p.layout.items);
      const auto* offsets =
          reinterpret_cast<const std::uint32_t*>(buffer.data() + p.layout.read_offsets);
      const auto* hap_lengths =
          reinterpret_cast<const std::uint32_t*>(buffer.data() + p.layout.hap_lengths);
      ASSERT_EQ(p.items, p.bin_start.back());
      ASSERT_LE(sizeof(WorkItem) * p.items, p.layout.total - p.layout.items);
      std::vector<int> seen_pair(c.pair_count, 0);
      std::vector<std::uint32_t> items_of_read(p.reads, 0);
      std::vector<std::vector<WorkItem>> runs_of_read(p.reads);
      for (std::uint32_t i = 0; i < p.items; ++i) {
        const WorkItem& item = items[i];
        ASSERT_LT(item.read, p.reads);
        ++items_of_read[item.read];
        runs_of_read[item.read].push_back(item);
        for (std::uint32_t h = 0; h < item.hap_count; ++h) ++seen_pair[item.result + h];
      }
      for (std::uint32_t read = 0; read < p.reads; ++read) {
        auto& runs = runs_of_read[read];
        std::sort(runs.begin(), runs.end(),
                  [](const WorkItem& x, const WorkItem& y) { return x.first_hap < y.first_hap; });
        const int length = static_cast<int>(offsets[read + 1] - offsets[read]);
        if (length > bins.back()) {
          EXPECT_EQ(runs.size(), 1u);  // multi-tile reads: one item
        }
        for (std::size_t k = 0; k + 1 < runs.size(); ++k) {
          std::uint32_t bases = 0;
          for (std::uint32_t h = 0; h < runs[k].hap_count; ++h)
            bases += hap_lengths[runs[k].first_hap + h];
          EXPECT_GE(bases, columns);  // only a read's last run may be short
          EXPECT_EQ(runs[k + 1].first_hap, runs[k].first_hap + runs[k].hap_count);
          EXPECT_EQ(runs[k + 1].result, runs[k].result + runs[k].hap_count);
        }
      }
      for (int s : seen_pair) EXPECT_EQ(s, 1);
      for (std::uint32_t n : items_of_read) EXPECT_GE(n, 1u);
    }
  }
}

}  // namespace
}  // namespace gpp::kernels::pairhmm_plan
