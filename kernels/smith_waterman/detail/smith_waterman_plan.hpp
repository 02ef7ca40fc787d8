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
#include <cstddef>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"

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
 *
 * Pairing is greedy from the start of each run of equal upper halves, so a key's part follows
 * from its place in its run: even and not the run's last, a warp's first; odd, its second; else
 * alone. All threads take fixed blocks: one pass finds where each block's last run starts, a
 * serial pass over the blocks carries run starts across them and counts, a last pass writes.
 */
inline void order_for_launches(std::span<const std::uint64_t> sorted,
                               std::span<std::uint64_t> ordered, std::span<std::int8_t> halves,
                               std::size_t block_size = 16384) {
  const auto upper = [&](std::size_t k) { return sorted[k] >> kKeyIndexBits; };
  const auto for_blocks = [&](std::size_t begin, std::size_t end, const auto& f) {
    const std::size_t blocks = (end - begin + block_size - 1) / block_size;
    oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      f(b, begin + b * block_size, std::min(end, begin + (b + 1) * block_size));
    });
  };
  std::vector<std::size_t> run_start, paired, alone;
  std::size_t begin = 0;
  while (begin < sorted.size()) {
    // The group's fitting keys [begin, fits_end) and the rest [fits_end, end): keys are sorted,
    // columns per lane in bits 60-63 and the does-not-fit flag in bit 59.
    const std::uint64_t group = sorted[begin] >> 60;
    const auto first_at_least = [&](std::uint64_t bound) {
      return static_cast<std::size_t>(
          std::lower_bound(sorted.begin() + static_cast<std::ptrdiff_t>(begin), sorted.end(),
                           bound) -
          sorted.begin());
    };
    const std::size_t fits_end = first_at_least(group << 60 | std::uint64_t{1} << 59);
    const std::size_t end = group == 15 ? sorted.size() : first_at_least((group + 1) << 60);
    const std::size_t blocks = (fits_end - begin + block_size - 1) / block_size;
    run_start.assign(blocks, 0);
    paired.assign(blocks, 0);
    alone.assign(blocks, 0);
    // Where the run of each block's last key starts, if in the block (else SIZE_MAX).
    for_blocks(begin, fits_end, [&](std::size_t b, std::size_t lo, std::size_t hi) {
      std::size_t k = hi - 1;
      while (k > lo && upper(k - 1) == upper(k)) --k;
      run_start[b] = k > lo || k == begin || upper(k - 1) != upper(k) ? k : SIZE_MAX;
    });
    // The start of the run each block's first key belongs to.
    std::size_t carry = begin;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t lo = begin + b * block_size;
      const std::size_t incoming = lo == begin || upper(lo - 1) != upper(lo) ? lo : carry;
      if (run_start[b] != SIZE_MAX) carry = run_start[b];
      run_start[b] = incoming;
    }
    // 0: a warp's first, 1: its second, -1: alone.
    const auto walk = [&](std::size_t b, std::size_t lo, std::size_t hi, const auto& f) {
      std::size_t start = run_start[b];
      for (std::size_t k = lo; k < hi; ++k) {
        if (k > lo && upper(k) != upper(k - 1)) start = k;
        const bool odd = (k - start) & 1;
        f(k, odd ? 1 : (k + 1 < fits_end && upper(k + 1) == upper(k) ? 0 : -1));
      }
    };
    for_blocks(begin, fits_end, [&](std::size_t b, std::size_t lo, std::size_t hi) {
      std::size_t p = 0, a = 0;
      walk(b, lo, hi, [&](std::size_t, int half) { (half < 0 ? a : p) += 1; });
      paired[b] = p;
      alone[b] = a;
    });
    std::size_t paired_total = 0, alone_total = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t p = paired[b], a = alone[b];
      paired[b] = paired_total;
      alone[b] = alone_total;
      paired_total += p;
      alone_total += a;
    }
    for_blocks(begin, fits_end, [&](std::size_t b, std::size_t lo, std::size_t hi) {
      std::size_t p = begin + paired[b], a = begin + paired_total + alone[b];
      walk(b, lo, hi, [&](std::size_t k, int half) {
        const std::size_t out = half < 0 ? a++ : p++;
        ordered[out] = sorted[k];
        halves[out] = static_cast<std::int8_t>(half);
      });
    });
    for_blocks(fits_end, end, [&](std::size_t, std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k) {
        ordered[k] = sorted[k];
        halves[k] = -1;
      }
    });
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
