// SpilledRuns::visit_by_contig hands every record of every run once, each run's batches in its
// order with the right first rows, and no batch while another run still holds a record of an
// earlier contig than the batch's first; it refuses runs that merge() would group first.
// SpilledRuns::merge names every record once, in stable merged order, each prepared once.
#include "pipeline/spilled_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

// The batch's place in contig order: its first record's contig, records of none last.
std::int64_t contig_rank(std::int32_t tid) {
  return tid >= 0 ? tid : std::numeric_limits<std::int64_t>::max();
}

struct Spilled {
  io::Header header;
  io::ReadBatch input;                          ///< the records; PNEXT = the record's row
  std::vector<std::vector<std::int32_t>> runs;  ///< by run: its records (rows of input) in order
};

// The NA12878 region's records spread over the header's first four contigs at random places (run
// k's mostly on contig k), every fifth unplaced and unmapped, each with its row as PNEXT, in runs
// of `run_size`.
Spilled spill(SpilledRuns& runs, std::size_t run_size, const io::ReadBatch& reads) {
  Spilled spilled;
  spilled.input = reads;
  std::mt19937 random(11);
  for (std::size_t i = 0; i < reads.size(); ++i) {
    spilled.input.mate_pos[i] = static_cast<std::int64_t>(i);
    if (i % 5 == 4) {
      spilled.input.tid[i] = -1;
      spilled.input.pos[i] = -1;
      spilled.input.flag[i] |= io::flag::kUnmapped;
      continue;
    }
    // Run k holds mostly contig k: the runs reach each contig at different batches.
    const std::size_t run = i / run_size;
    spilled.input.tid[i] = static_cast<std::int32_t>(random() % 4 == 0 ? random() % 4 : run % 4);
    spilled.input.pos[i] = static_cast<std::int64_t>(random() % 1000000);
    spilled.input.end[i] = spilled.input.pos[i] + 100;
  }
  for (std::size_t first = 0; first < reads.size(); first += run_size) {
    io::ReadBatch chunk;
    for (std::size_t i = first; i < std::min(reads.size(), first + run_size); ++i)
      chunk.append_row(spilled.input, i);
    const std::vector<std::uint32_t> sorted =
        stages::sort::coordinate_order(chunk, kernels::Backend::kCpu);
    std::vector<std::int32_t>& order = spilled.runs.emplace_back();
    for (const std::uint32_t row : sorted) {
      order.push_back(static_cast<std::int32_t>(chunk.mate_pos[row]));
    }
    runs.add(chunk, sorted);
  }
  return spilled;
}

TEST(SpilledRuns, VisitByContigHandsEveryRunsRecordsContigByContig) {
  io::Header header;
  const io::ReadBatch reads = io::read_alignments(
      test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"), {}, header);
  ASSERT_GT(reads.size(), 20000u);
  ASSERT_GE(header.contigs().size(), 4u);
  test::TempDir dir;
  SpilledRuns runs(dir.path().string(), header, SpilledRuns::Order::kCoordinate);
  const Spilled spilled = spill(runs, reads.size() / 4 + 1, reads);
  ASSERT_EQ(runs.count(), 4u);
  ASSERT_TRUE(runs.as_added());

  // 32 MiB: batches of 1 MiB a run, so that every run hands several.
  std::vector<std::uint64_t> next_row(runs.count(), 0);
  std::vector<int> seen(reads.size(), 0);
  std::size_t batches = 0;
  std::int64_t last_rank = 0;
  const bool visited = runs.visit_by_contig(
      std::uint64_t{32} << 20, [&](std::size_t run, std::uint64_t first_row, io::ReadBatch& batch) {
        ++batches;
        ASSERT_LT(run, runs.count());
        ASSERT_FALSE(batch.empty());
        EXPECT_EQ(first_row, next_row[run]) << "run " << run;
        const std::int64_t rank = contig_rank(batch.tid.front());
        EXPECT_GE(rank, last_rank) << "a batch of an earlier contig came later";
        last_rank = rank;
        for (std::size_t j = 0; j < batch.size(); ++j) {
          const std::int32_t record = spilled.runs[run][first_row + j];
          ASSERT_EQ(batch.mate_pos[j], record) << "run " << run << " row " << first_row + j;
          ++seen[static_cast<std::size_t>(record)];
        }
        next_row[run] += batch.size();
        // No other run holds a record of an earlier contig than this batch's first.
        for (std::size_t r = 0; r < runs.count(); ++r) {
          if (r == run || next_row[r] == spilled.runs[r].size()) continue;
          const auto pending = static_cast<std::size_t>(spilled.runs[r][next_row[r]]);
          EXPECT_GE(contig_rank(spilled.input.tid[pending]), rank)
              << "run " << r << " still holds an earlier contig";
        }
      });
  ASSERT_TRUE(visited);
  EXPECT_GE(batches, 4u * 3u);
  for (std::size_t r = 0; r < runs.count(); ++r) EXPECT_EQ(next_row[r], spilled.runs[r].size());
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<std::ptrdiff_t>(reads.size()));

  // The runs are read again from their start.
  std::uint64_t visited_again = 0;
  ASSERT_TRUE(runs.visit_by_contig(
      std::uint64_t{32} << 20,
      [&](std::size_t, std::uint64_t, io::ReadBatch& batch) { visited_again += batch.size(); }));
  EXPECT_EQ(visited_again, reads.size());

  // More runs than 16 MiB reads at once (two): nothing is visited; a merge then groups them and
  // the runs are no longer those added.
  EXPECT_FALSE(runs.visit_by_contig(
      std::uint64_t{16} << 20,
      [&](std::size_t, std::uint64_t, io::ReadBatch&) { ADD_FAILURE() << "visited"; }));
  std::uint64_t merged = 0;
  runs.merge(std::uint64_t{16} << 20, [&](MergedRows& piece) { merged += piece.size(); });
  EXPECT_EQ(merged, reads.size());
  EXPECT_FALSE(runs.as_added());
  EXPECT_FALSE(runs.visit_by_contig(
      std::uint64_t{32} << 20,
      [&](std::size_t, std::uint64_t, io::ReadBatch&) { ADD_FAILURE() << "visited"; }));
}

// Merged pieces name the records where the runs' readers put them: every record once, in the
// order of one stable sort of the whole input (by coordinate: equal keys in input order), each
// put through the preparation exactly once, also when the runs are too many to read at once and
// are merged into fewer first (whose records are prepared only in the last merge).
TEST(SpilledRuns, MergeNamesEveryRecordOnceInStableOrderPreparedOnce) {
  io::Header header;
  const io::ReadBatch reads = io::read_alignments(
      test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"), {}, header);
  ASSERT_GT(reads.size(), 20000u);
  for (const std::uint64_t memory : {std::uint64_t{64} << 20, std::uint64_t{16} << 20}) {
    test::TempDir dir;
    SpilledRuns runs(dir.path().string(), header, SpilledRuns::Order::kCoordinate);
    const Spilled spilled = spill(runs, reads.size() / 6 + 1, reads);
    ASSERT_EQ(runs.count(), 6u);
    // One stable sort of the whole input gives the expected order.
    const std::vector<std::uint32_t> expected =
        stages::sort::coordinate_order(spilled.input, kernels::Backend::kCpu);
    std::size_t k = 0;
    std::size_t pieces = 0;
    std::vector<int> prepared(reads.size(), 0);
    std::mutex preparing;
    const std::uint64_t batch_bytes = runs.merge_batch_bytes(memory);
    std::uint64_t largest = 0;
    runs.merge(
        memory,
        [&](MergedRows& merged) {
          ++pieces;
          const io::RowsAcross rows = merged.rows();
          for (std::size_t j = 0; j < rows.size(); ++j, ++k) {
            ASSERT_LT(k, expected.size());
            const io::ReadBatch& batch = rows.batch(j);
            const std::size_t row = rows.row(j);
            ASSERT_EQ(batch.mate_pos[row], expected[k]) << "merged record " << k;
            // The preparation's mark.
            EXPECT_EQ(batch.mapq[row], 254) << "merged record " << k;
          }
        },
        nullptr, false,
        [&](io::ReadBatch& batch) {
          const std::lock_guard lock(preparing);
          largest = std::max<std::uint64_t>(largest, batch.memory_bytes());
          for (std::size_t j = 0; j < batch.size(); ++j) {
            ++prepared[static_cast<std::size_t>(batch.mate_pos[j])];
            batch.mapq[j] = 254;
          }
        });
    EXPECT_EQ(k, reads.size());
    EXPECT_GE(pieces, 2u) << memory;
    EXPECT_EQ(std::count(prepared.begin(), prepared.end(), 1),
              static_cast<std::ptrdiff_t>(reads.size()))
        << memory;
    EXPECT_EQ(runs.as_added(), memory == std::uint64_t{64} << 20);
    // merge_batch_bytes() says how large the prepared batches are (the last merge's runs, after
    // grouping): the largest is that size, and at most 4,096 records more (a batch is read that
    // many records at a time).
    EXPECT_GT(largest, batch_bytes / 2) << memory;
    EXPECT_LT(largest, batch_bytes + 4096 * 512) << memory;
  }
}

}  // namespace
}  // namespace gpp::pipeline
