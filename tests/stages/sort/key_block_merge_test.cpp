// The block merge against one stable sort of the concatenated runs: each run is loaded a batch at
// a time (batches of random sizes, so they end inside runs of equal keys), blocks are merged and
// spent batches replaced until every run is spent; the order must be the stable sort's, ties
// included (each record carries its place in the input).
#include "stages/sort/key_block_merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace gpp::stages::sort {
namespace {

struct Record {
  std::uint64_t key;
  std::size_t place;  // index in the concatenated input
};

// A run and the batch of it now loaded: records [from, to).
struct Run {
  std::vector<Record> records;
  std::vector<std::uint64_t> keys;  // the loaded batch's
  std::size_t from = 0;
  std::size_t to = 0;
};

void expect_stable_merge(const std::vector<std::size_t>& lengths, std::uint64_t distinct_keys,
                         std::size_t most_per_batch, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<Record> input;
  std::vector<Run> runs(lengths.size());
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    for (std::size_t i = 0; i < lengths[r]; ++i) {
      const Record record{random() % distinct_keys, input.size()};
      input.push_back(record);
      runs[r].records.push_back(record);
    }
    std::stable_sort(runs[r].records.begin(), runs[r].records.end(),
                     [](const Record& a, const Record& b) { return a.key < b.key; });
  }
  std::stable_sort(input.begin(), input.end(),
                   [](const Record& a, const Record& b) { return a.key < b.key; });

  const auto load = [&](Run& run) {  // the run's next batch, 1 to most_per_batch records
    run.from = run.to;
    run.to = std::min(run.records.size(), run.from + 1 + random() % most_per_batch);
    run.keys.clear();
    for (std::size_t i = run.from; i < run.to; ++i) run.keys.push_back(run.records[i].key);
  };
  for (Run& run : runs) load(run);
  std::vector<LoadedRun> loaded(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) loaded[r] = {runs[r].keys, 0};
  std::vector<Record> merged;
  std::vector<io::ReadBatch::RowRef> rows;
  for (std::size_t blocks = 0;; ++blocks) {
    ASSERT_LT(blocks, input.size() + runs.size() + 1) << "no progress, seed " << seed;
    const std::vector<std::size_t> ends = block_ends(loaded);
    block_order(loaded, ends, rows);
    std::size_t taken = 0;
    for (std::size_t r = 0; r < runs.size(); ++r) taken += ends[r] - loaded[r].next;
    ASSERT_EQ(rows.size(), taken);
    for (const io::ReadBatch::RowRef& row : rows)
      merged.push_back(runs[row.source].records[runs[row.source].from + row.row]);
    bool any = false;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      loaded[r].next = ends[r];
      if (!loaded[r].has_records() && runs[r].to < runs[r].records.size()) {
        load(runs[r]);
        loaded[r] = {runs[r].keys, 0};
      }
      any = any || loaded[r].has_records();
    }
    if (!any) break;
  }
  ASSERT_EQ(merged.size(), input.size());
  for (std::size_t i = 0; i < input.size(); ++i) {
    ASSERT_EQ(merged[i].place, input[i].place) << "record " << i << " of runs seeded " << seed;
  }
}

TEST(KeyBlockMerge, ManyTiesAcrossBatchEnds) {
  // Few distinct keys: runs of equal keys span several batches of every run.
  for (std::uint32_t seed = 1; seed <= 20; ++seed)
    expect_stable_merge({300, 1, 250, 0, 400, 37}, 5, 17, seed);
}

TEST(KeyBlockMerge, OneKeyEverywhere) {
  // Every record ties (unplaced reads at the end of each run): the runs follow one another.
  expect_stable_merge({100, 80, 120}, 1, 9, 7);
}

TEST(KeyBlockMerge, DistinctKeysLargeBatches) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed)
    expect_stable_merge({5000, 4000, 6000, 5500, 100, 3000, 4500, 5000}, 1u << 30, 900, seed);
}

TEST(KeyBlockMerge, SpentRunIsTheLowestAtTheBound) {
  // Runs 0 and 1 both end their batches at key 5; run 0 is taken whole, run 1 only below 5
  // (its next batch may hold more 5s, which come after run 0's).
  const std::vector<std::uint64_t> a{1, 5, 5};
  const std::vector<std::uint64_t> b{2, 5};
  const std::vector<std::uint64_t> c{3, 5, 9};
  const std::vector<LoadedRun> loaded{{a, 0}, {b, 0}, {c, 0}};
  EXPECT_EQ(block_ends(loaded), (std::vector<std::size_t>{3, 1, 1}));
  std::vector<io::ReadBatch::RowRef> rows;
  block_order(loaded, block_ends(loaded), rows);
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> expected{
      {0, 0}, {1, 0}, {2, 0}, {0, 1}, {0, 2}};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(rows[k].source, expected[k].first) << k;
    EXPECT_EQ(rows[k].row, expected[k].second) << k;
  }
}

}  // namespace
}  // namespace gpp::stages::sort
