// CPU backend of sort-by-key: a parallel LSD radix sort of (key, index) pairs over the bits in
// which the keys differ, 8 bits per pass. LSD radix sort is stable, so the permutation equals the
// GPU's (CUB's radix sort is stable too) and std::stable_sort's.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <thread>

#include "kernels/sort/sort_by_key.hpp"

namespace gpp::kernels::detail {

namespace {

constexpr int kRadixBits = 8;
constexpr std::size_t kBuckets = std::size_t{1} << kRadixBits;

struct KeyIndex {
  std::uint64_t key;
  std::uint32_t index;
};

}  // namespace

std::vector<std::uint32_t> stable_sort_permutation_cpu(std::span<const std::uint64_t> keys) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> order(n);
  const KeyBitRange bits = differing_bits(keys);
  if (bits.end_bit == 0) {  // all keys equal (or none): input order
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    return order;
  }
  std::vector<KeyIndex> current(n), next(n);
  // Fixed chunks so that every pass splits the same way: chunk c's histogram and offsets.
  const std::size_t chunks = std::max<std::size_t>(
      1,
      std::min<std::size_t>(n / 65536 + 1, 4 * std::max(1u, std::thread::hardware_concurrency())));
  const std::size_t chunk_size = (n + chunks - 1) / chunks;
  oneapi::tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
    const std::size_t end = std::min(n, (c + 1) * chunk_size);
    for (std::size_t i = c * chunk_size; i < end; ++i)
      current[i] = {keys[i], static_cast<std::uint32_t>(i)};
  });
  std::vector<std::array<std::size_t, kBuckets>> counts(chunks);
  for (int shift = bits.begin_bit; shift < bits.end_bit; shift += kRadixBits) {
    oneapi::tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      auto& count = counts[c];
      count.fill(0);
      const std::size_t end = std::min(n, (c + 1) * chunk_size);
      for (std::size_t i = c * chunk_size; i < end; ++i)
        ++count[(current[i].key >> shift) & (kBuckets - 1)];
    });
    // Exclusive offsets: bucket-major, chunk-minor, which keeps equal digits in input order.
    std::size_t total = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t count = counts[c][b];
        counts[c][b] = total;
        total += count;
      }
    }
    oneapi::tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      auto& offset = counts[c];
      const std::size_t end = std::min(n, (c + 1) * chunk_size);
      for (std::size_t i = c * chunk_size; i < end; ++i)
        next[offset[(current[i].key >> shift) & (kBuckets - 1)]++] = current[i];
    });
    current.swap(next);
  }
  oneapi::tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
    const std::size_t end = std::min(n, (c + 1) * chunk_size);
    for (std::size_t i = c * chunk_size; i < end; ++i) order[i] = current[i].index;
  });
  return order;
}

}  // namespace gpp::kernels::detail
