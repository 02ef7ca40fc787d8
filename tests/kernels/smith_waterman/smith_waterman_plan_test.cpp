// The CUDA backend's plan (kernels/smith_waterman_plan.hpp) on the host: the key sort must equal a
// full sort, and the launch order must pair exactly the pairs that can share a 16-bit warp.
#include "kernels/smith_waterman/detail/smith_waterman_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace gpp::kernels {
namespace {

/// Keys in index order, as the planner makes them, from random shapes and lengths.
std::vector<std::uint64_t> random_keys(std::size_t count, int lengths, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> keys(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<std::int32_t>(1 + rng() % 900);
    const auto n = static_cast<std::int32_t>(300 + rng() % static_cast<std::uint64_t>(lengths));
    sw::GpuShape shape = sw::gpu_shape(m);
    if (rng() % 50 == 0) shape.columns_per_lane = 0;  // the CPU backend's
    const bool fits = rng() % 4 != 0;
    keys[i] =
        sw::plan_key(static_cast<std::uint32_t>(i), shape, n, sw::gpu_traceback_words(n, m), fits);
  }
  return keys;
}

TEST(SmithWatermanPlan, KeySortEqualsAFullSort) {
  for (const std::size_t count :
       {std::size_t{1}, std::size_t{2}, std::size_t{4000}, std::size_t{300000}}) {
    for (const int lengths : {1, 300, 5000}) {
      std::vector<std::uint64_t> keys = random_keys(count, lengths, count + lengths);
      std::vector<std::uint64_t> expected = keys, scratch(count);
      std::sort(expected.begin(), expected.end());
      sw::sort_plan_keys(keys, scratch);
      EXPECT_EQ(keys, expected) << count << " keys, " << lengths << " ref lengths";
    }
  }
  std::vector<std::uint64_t> same(1000, std::uint64_t{5} << 60), scratch(1000);  // one upper half
  for (std::size_t i = 0; i < same.size(); ++i) same[i] |= i;
  const std::vector<std::uint64_t> expected = same;
  sw::sort_plan_keys(same, scratch);
  EXPECT_EQ(same, expected);
}

TEST(SmithWatermanPlan, LaunchOrderPairsEqualNeighboursFirst) {
  std::vector<std::uint64_t> keys = random_keys(20000, 40, 7), scratch(keys.size());
  sw::sort_plan_keys(keys, scratch);
  std::size_t gpu_begin = 0;
  while (gpu_begin < keys.size() && sw::key_columns_per_lane(keys[gpu_begin]) == 0) ++gpu_begin;
  const std::span<const std::uint64_t> sorted(keys.data() + gpu_begin, keys.size() - gpu_begin);
  std::vector<std::uint64_t> ordered(sorted.size());
  std::vector<std::int8_t> halves(sorted.size());
  sw::order_for_launches(sorted, ordered, halves);

  // The same keys, each group of one R as: warps (16-bit, in pairs with equal upper halves), lone
  // 16-bit pairs (no two of them with equal upper halves), 32-bit pairs.
  std::vector<std::uint64_t> a(sorted.begin(), sorted.end()), b = ordered;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  std::size_t warps = 0;
  for (std::size_t k = 0; k < ordered.size(); ++k) {
    if (k > 0) {
      EXPECT_GE(sw::key_columns_per_lane(ordered[k]), sw::key_columns_per_lane(ordered[k - 1]));
    }
    const bool same_group =
        k > 0 && sw::key_columns_per_lane(ordered[k]) == sw::key_columns_per_lane(ordered[k - 1]);
    if (halves[k] == 0) {
      ASSERT_LT(k + 1, ordered.size());
      EXPECT_EQ(halves[k + 1], 1);
      EXPECT_TRUE(sw::key_fits_16_bits(ordered[k]));
      EXPECT_EQ(ordered[k] >> sw::kKeyIndexBits, ordered[k + 1] >> sw::kKeyIndexBits);
      if (same_group) {
        EXPECT_EQ(halves[k - 1], 1) << "warps come first in their group";
      }
      ++warps;
      ++k;
    } else {
      EXPECT_EQ(halves[k], -1);
      if (same_group && !sw::key_fits_16_bits(ordered[k - 1])) {
        EXPECT_FALSE(sw::key_fits_16_bits(ordered[k])) << "32-bit pairs come last";
      }
    }
  }
  EXPECT_GT(warps, ordered.size() / 4);
  // A lone 16-bit pair has no partner left: no other lone one shares its upper half.
  std::vector<std::uint64_t> lone;
  for (std::size_t k = 0; k < ordered.size(); ++k) {
    if (halves[k] == -1 && sw::key_fits_16_bits(ordered[k])) lone.push_back(ordered[k] >> 32);
  }
  std::sort(lone.begin(), lone.end());
  EXPECT_EQ(std::adjacent_find(lone.begin(), lone.end()), lone.end());
}

}  // namespace
}  // namespace gpp::kernels
