// sort-by-key: both backends against std::stable_sort, and against each other.
#include "kernels/sort/sort_by_key.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::kernels {
namespace {

std::vector<std::uint32_t> reference_order(const std::vector<std::uint64_t>& keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  return order;
}

// Keys with many duplicates (ties test stability) spread over `bits` bits, plus extremes.
std::vector<std::uint64_t> random_keys(std::size_t n, int bits, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> keys(n);
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
  for (auto& k : keys) k = rng() & mask;
  for (std::size_t i = 0; i < n; i += 7) keys[i] = keys[i / 2];  // duplicates
  if (n > 2) {
    keys[1] = 0;
    keys[2] = mask;
  }
  return keys;
}

TEST(SortByKey, EmptyAndSingle) {
  EXPECT_TRUE(stable_sort_permutation({}, Backend::kCpu).empty());
  const std::vector<std::uint64_t> one = {42};
  EXPECT_EQ(stable_sort_permutation(one, Backend::kCpu), std::vector<std::uint32_t>{0});
}

TEST(SortByKey, DocumentedExample) {
  const std::vector<std::uint64_t> keys = {30, 10, 30, 20};
  EXPECT_EQ(stable_sort_permutation(keys, Backend::kCpu), (std::vector<std::uint32_t>{1, 3, 0, 2}));
}

TEST(SortByKey, CpuEqualsStableSort) {
  for (int bits : {3, 17, 40, 64}) {
    const auto keys = random_keys(200'003, bits, 7 + bits);
    EXPECT_EQ(stable_sort_permutation(keys, Backend::kCpu), reference_order(keys))
        << bits << " bits";
  }
}

// Three key words, most significant first, compared lexicographically by std::stable_sort; the
// middle word is constant (its pass is skipped) in the second case.
std::vector<std::vector<std::uint64_t>> random_words(std::size_t n, unsigned seed,
                                                     bool constant_middle) {
  std::vector<std::vector<std::uint64_t>> words = {
      random_keys(n, 5, seed), random_keys(n, 3, seed + 1), random_keys(n, 9, seed + 2)};
  if (constant_middle) std::fill(words[1].begin(), words[1].end(), 77);
  return words;
}

std::vector<std::uint32_t> reference_order(const std::vector<std::vector<std::uint64_t>>& words) {
  std::vector<std::uint32_t> order(words[0].size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (const auto& word : words) {
      if (word[a] != word[b]) return word[a] < word[b];
    }
    return false;
  });
  return order;
}

std::vector<std::uint32_t> sort_by_words(const std::vector<std::vector<std::uint64_t>>& words,
                                         Backend backend) {
  std::vector<std::span<const std::uint64_t>> spans(words.begin(), words.end());
  return stable_sort_permutation_by_words(spans, backend);
}

TEST(SortByKey, WordsCpuEqualLexicographicStableSort) {
  for (const bool constant_middle : {false, true}) {
    const auto words = random_words(100'003, 11, constant_middle);
    EXPECT_EQ(sort_by_words(words, Backend::kCpu), reference_order(words)) << constant_middle;
  }
  const std::vector<std::uint64_t> short_word = {1, 2};
  const std::vector<std::uint64_t> long_word = {1, 2, 3};
  const std::span<const std::uint64_t> mismatched[] = {short_word, long_word};
  EXPECT_THROW(stable_sort_permutation_by_words(mismatched, Backend::kCpu), Error);
}

using SortByKeyGpu = ::gpp::test::GpuTest;

TEST_F(SortByKeyGpu, WordsEqualCpu) {
  for (const bool constant_middle : {false, true}) {
    const auto words = random_words(300'007, 23, constant_middle);
    EXPECT_EQ(sort_by_words(words, Backend::kGpu), reference_order(words)) << constant_middle;
  }
}

TEST(SortByKey, DifferingBitsSpanExactlyTheVaryingBits) {
  const std::vector<std::uint64_t> keys = {0xF0F0'0000'0000'0100ull, 0xF0F0'0000'0001'0100ull,
                                           0xF0F0'0000'0000'0300ull};
  const auto bits = detail::differing_bits(keys);
  EXPECT_EQ(bits.begin_bit, 9);
  EXPECT_EQ(bits.end_bit, 17);
  const std::vector<std::uint64_t> same = {5, 5, 5};
  EXPECT_EQ(detail::differing_bits(same).end_bit, 0);
}

TEST_F(SortByKeyGpu, EqualsCpuOnRandomKeys) {
  for (int bits : {1, 3, 17, 40, 64}) {
    const auto keys = random_keys(1'000'003, bits, 11 + bits);
    EXPECT_EQ(stable_sort_permutation(keys, Backend::kGpu),
              stable_sort_permutation(keys, Backend::kCpu))
        << bits << " bits";
  }
}

TEST_F(SortByKeyGpu, AllEqualAndLarge) {
  const std::vector<std::uint64_t> equal(100'000, 9);
  EXPECT_EQ(stable_sort_permutation(equal, Backend::kGpu), reference_order(equal));
  const auto keys = random_keys(20'000'000, 48, 3);
  EXPECT_EQ(stable_sort_permutation(keys, Backend::kGpu),
            stable_sort_permutation(keys, Backend::kCpu));
}

TEST(SortByKey, GpuWithoutGpuIsAClearError) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  const std::vector<std::uint64_t> keys = {2, 1};
  EXPECT_THROW(stable_sort_permutation(keys, Backend::kGpu), Error);
}

}  // namespace
}  // namespace gpp::kernels
