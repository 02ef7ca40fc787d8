// The CUDA backend's plan of a batch (smith_waterman_cuda.cu), in host code that the tests run
// without a GPU: one 64-bit key per pair, their sort, and the launch order that pairs 16-bit
// warps.
#pragma once

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "kernels/smith_waterman_core.hpp"

namespace gpp::kernels::sw {

// The planner sorts one 64-bit key per pair: bits 60-63 columns per lane (0: the pair goes to the
// CPU backend), bit 59 set for a pair that does not fit 16 bits, bits 32-58 its size descending
// (the longest first, for load balance), bits 0-31 its index. For pairs that fit 16 bits the size
// is exact, passes then ref length, so that equal upper halves mean pairs that can share a warp.
constexpr int kKeyIndexBits = 32;
constexpr std::uint64_t kKeySizeMask = (std::uint64_t{1} << 27) - 1;
constexpr std::int32_t kMaxSixteenBitPasses = 127;  // 7 bits of the size

inline std::uint64_t plan_key(std::uint32_t index, const GpuShape& shape, std::int32_t n,
                              std::uint64_t words, bool fits_16_bits) {
  const std::uint64_t size =
      fits_16_bits ? static_cast<std::uint64_t>(shape.passes) << 16 | static_cast<std::uint64_t>(n)
                   : std::min<std::uint64_t>(words / kWarpLanes, kKeySizeMask);
  return static_cast<std::uint64_t>(shape.columns_per_lane) << 60 |
         static_cast<std::uint64_t>(!fits_16_bits) << 59 | (kKeySizeMask - size) << kKeyIndexBits |
         index;
}
inline std::uint32_t key_index(std::uint64_t key) { return static_cast<std::uint32_t>(key); }
inline std::int32_t key_columns_per_lane(std::uint64_t key) {
  return static_cast<std::int32_t>(key >> 60);
}
inline bool key_fits_16_bits(std::uint64_t key) { return ((key >> 59) & 1u) == 0; }

/**
 * Orders sorted keys for the launches: within each columns-per-lane group, the pairs that fit 16
 * bits are paired with an equal neighbour (same shape and ref length) and go first, two by two;
 * those left alone follow, then the pairs that do not fit, in their sorted order. Returns the
 * keys in that order with each one's half (-1 alone, 0 and 1 a 16-bit warp's).
 */
inline void order_for_launches(std::span<const std::uint64_t> sorted,
                               std::span<std::uint64_t> ordered, std::span<std::int8_t> halves) {
  std::size_t begin = 0;
  while (begin < sorted.size()) {
    const std::int32_t columns_per_lane = key_columns_per_lane(sorted[begin]);
    std::size_t fits_end = begin;
    while (fits_end < sorted.size() && key_columns_per_lane(sorted[fits_end]) == columns_per_lane &&
           key_fits_16_bits(sorted[fits_end]))
      ++fits_end;
    std::size_t out = begin;
    std::vector<std::uint64_t> alone;
    for (std::size_t k = begin; k < fits_end; ++k) {
      if (k + 1 < fits_end && sorted[k] >> kKeyIndexBits == sorted[k + 1] >> kKeyIndexBits) {
        ordered[out] = sorted[k];
        halves[out++] = 0;
        ordered[out] = sorted[++k];
        halves[out++] = 1;
      } else {
        alone.push_back(sorted[k]);
      }
    }
    for (const std::uint64_t key : alone) {
      ordered[out] = key;
      halves[out++] = -1;
    }
    std::size_t end = fits_end;
    while (end < sorted.size() && key_columns_per_lane(sorted[end]) == columns_per_lane) {
      ordered[end] = sorted[end];
      halves[end++] = -1;
    }
    begin = end;
  }
}

/**
 * Sorts plan keys ascending: a parallel LSD radix sort, 8 bits a pass, over the bits of the upper
 * halves in which the keys differ. The keys arrive in index order and LSD passes are stable, so
 * keys with equal upper halves keep their index order, as a full sort would give them.
 * `scratch` holds as many keys; the sorted keys end in `keys`.
 */
inline void sort_plan_keys(std::span<std::uint64_t> keys, std::span<std::uint64_t> scratch) {
  constexpr int kDigitBits = 8;
  constexpr std::size_t kDigits = std::size_t{1} << kDigitBits;
  const std::size_t count = keys.size();
  if (count < 2) return;
  const std::uint64_t first = keys[0];
  const std::uint64_t differing = oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, count, 65536), std::uint64_t{0},
      [&](const oneapi::tbb::blocked_range<std::size_t>& r, std::uint64_t bits) {
        for (std::size_t k = r.begin(); k != r.end(); ++k) bits |= keys[k] ^ first;
        return bits;
      },
      [](std::uint64_t a, std::uint64_t b) { return a | b; });
  const std::uint64_t upper = differing >> kKeyIndexBits;
  if (upper == 0) return;  // already in index order
  const int low_bit = kKeyIndexBits + std::countr_zero(upper);
  const int high_bit = kKeyIndexBits + std::bit_width(upper);
  // Fixed blocks, so that every pass splits alike: each block's digit counts, then its offsets.
  const std::size_t blocks = std::clamp<std::size_t>(
      count / 16384, 1, 4 * std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t block_size = (count + blocks - 1) / blocks;
  std::vector<std::array<std::size_t, kDigits>> offsets(blocks);
  std::span<std::uint64_t> from = keys, to = scratch;
  for (int shift = low_bit; shift < high_bit; shift += kDigitBits) {
    const auto digit = [shift](std::uint64_t key) { return (key >> shift) & (kDigits - 1); };
    oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      offsets[b].fill(0);
      const std::size_t end = std::min(count, (b + 1) * block_size);
      for (std::size_t k = b * block_size; k < end; ++k) ++offsets[b][digit(from[k])];
    });
    std::size_t total = 0;  // digit-major, block-minor: equal digits keep their order
    for (std::size_t d = 0; d < kDigits; ++d) {
      for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t n = offsets[b][d];
        offsets[b][d] = total;
        total += n;
      }
    }
    oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      const std::size_t end = std::min(count, (b + 1) * block_size);
      for (std::size_t k = b * block_size; k < end; ++k) to[offsets[b][digit(from[k])]++] = from[k];
    });
    std::swap(from, to);
  }
  if (from.data() != keys.data()) std::copy(from.begin(), from.end(), keys.begin());
}

}  // namespace gpp::kernels::sw
