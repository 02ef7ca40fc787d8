// RunMerge against one stable sort of the concatenated runs: the merge must give the same order,
// ties included (records carry their place in the input, so a tie taken from the wrong run shows).
#include "stages/sort/run_merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace gpp::stages::sort {
namespace {

struct Record {
  int key;
  std::size_t place;  // index in the concatenated input
};

// Runs cut from one input at the given lengths, each sorted stably; merged back with RunMerge.
std::vector<Record> merge_runs(const std::vector<std::vector<Record>>& runs) {
  std::vector<std::size_t> next(runs.size(), 0);
  RunMerge merge(
      runs.size(), [&](std::size_t r) { return !runs[r].empty(); },
      [&](std::size_t a, std::size_t b) { return runs[a][next[a]].key <=> runs[b][next[b]].key; });
  std::vector<Record> out;
  while (!merge.empty()) {
    const std::size_t r = merge.top();
    out.push_back(runs[r][next[r]]);
    merge.advanced(++next[r] < runs[r].size());
  }
  return out;
}

void expect_stable_merge(const std::vector<std::size_t>& lengths, int distinct_keys,
                         std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<Record> input;
  std::vector<std::vector<Record>> runs;
  for (const std::size_t length : lengths) {
    runs.emplace_back();
    for (std::size_t i = 0; i < length; ++i) {
      const Record record{static_cast<int>(random() % distinct_keys), input.size()};
      input.push_back(record);
      runs.back().push_back(record);
    }
    std::stable_sort(runs.back().begin(), runs.back().end(),
                     [](const Record& a, const Record& b) { return a.key < b.key; });
  }
  std::stable_sort(input.begin(), input.end(),
                   [](const Record& a, const Record& b) { return a.key < b.key; });
  const std::vector<Record> merged = merge_runs(runs);
  ASSERT_EQ(merged.size(), input.size());
  for (std::size_t i = 0; i < input.size(); ++i) {
    ASSERT_EQ(merged[i].place, input[i].place) << "record " << i << " of runs seeded " << seed;
  }
}

TEST(RunMerge, NoRunIsEmpty) {
  const std::vector<std::vector<Record>> none;
  EXPECT_TRUE(merge_runs(none).empty());
  const std::vector<std::vector<Record>> empty_runs(3);
  EXPECT_TRUE(merge_runs(empty_runs).empty());
}

TEST(RunMerge, OneRunComesBackAsItIs) { expect_stable_merge({17}, 5, 1); }

TEST(RunMerge, TiesComeFromTheEarlierRunFirst) {
  // Every key equal: the merge must give the input order, run after run.
  const std::vector<std::vector<Record>> runs = {{{7, 0}, {7, 1}}, {{7, 2}}, {{7, 3}, {7, 4}}};
  const std::vector<Record> merged = merge_runs(runs);
  ASSERT_EQ(merged.size(), 5u);
  for (std::size_t i = 0; i < merged.size(); ++i) EXPECT_EQ(merged[i].place, i);
}

TEST(RunMerge, EqualsOneStableSortForAnyNumberOfRuns) {
  for (std::size_t runs = 2; runs <= 17; ++runs) {
    std::vector<std::size_t> lengths;
    for (std::size_t r = 0; r < runs; ++r) lengths.push_back(r % 4 == 3 ? 0 : 40 + 13 * r);
    expect_stable_merge(lengths, 8, static_cast<std::uint32_t>(runs));       // many ties
    expect_stable_merge(lengths, 100000, static_cast<std::uint32_t>(runs));  // few ties
  }
}

TEST(RunMerge, RunsThatEndEarlyLeaveTheOthersInOrder) {
  expect_stable_merge({1, 300, 0, 2, 250, 1}, 20, 99);
}

}  // namespace
}  // namespace gpp::stages::sort
