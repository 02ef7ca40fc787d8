// The CUDA PairHMM multi-tile fp32 kernel, for reads longer than the longest single tile.
//
// One warp (P = 32 threads of K rows) sweeps the read tile by tile (32 * K rows each); between
// tiles, each haplotype's boundary row (per column: the sum the next row's match state multiplies
// and the next row's I~, what the tile's last thread sends on) goes through global scratch.
//
// Boundary traffic is kept out of the step's critical path and its registers:
//  - reads: the warp loads the boundary row 32 columns at a time, one column per lane, a window
//    ahead of its use, and thread 0 takes column `step` from lane step % 32 by a shuffle (two
//    shuffles a step for the whole warp, instead of a load, its range checks and a branch around
//    them in thread 0, with two columns of prefetched values held in registers);
//  - writes: the last thread stores every step without range checks: the scratch of a haplotype
//    has room for the columns a step group writes before column 0 and past column n - 1
//    (pairhmm_plan::kBoundaryPad);
//  - tiles with and without a boundary above or below run their own copy of the step loop.
#pragma once

#include <cuda_runtime.h>

#include "kernels/pairhmm/cuda/pairhmm_cuda_kernels.cuh"

namespace gpp::kernels::pairhmm_cuda {

/// Columns of scratch before a haplotype's column 0: the last thread's first steps write columns
/// -(P - 1) .. -1 (a fill value nobody reads).
inline constexpr int kBoundaryLead = 32;
static_assert(pairhmm_plan::kBoundaryPad >= kBoundaryLead + 4,
              "room for the writes before column 0 and past the last group's end");

/// One haplotype of n columns over one tile; returns the sum of the last thread's I sends (the
/// pair's fp32 likelihood when the tile is the read's last). Thread 0 starts from the boundary row
/// of the tile above (kFromBoundary) or from the initial condition (`initial` in every column),
/// and the last thread writes the row for the tile below (kToBoundary). Past column n - 1 thread 0
/// receives 0 (boundary) or `initial` (which only meets the separators' emission 0), so the
/// extra steps of the last group add nothing to the result.
template <int K, bool kFromBoundary, bool kToBoundary>
__device__ __forceinline__ float multi_tile_pass(const TileRows<K, true>& rows, const float4* table,
                                                 const std::uint32_t* words, int n, float initial,
                                                 float2* boundary, int t) {
  constexpr int P = 32;
  constexpr unsigned kWarp = 0xffffffffu;
  constexpr int G = (K + 3) / 4;
  TileState<K> s;
#pragma unroll
  for (int r = 0; r < K; ++r) s.m[r] = s.x[r] = s.d[r] = 0.0f;
  s.p_prev = !kFromBoundary && t == 0 ? initial : 0.0f;
  float p_send = 0.0f, i_send = 0.0f, acc = 0.0f;
  const int steps = n + P - 1;
  const int last_word = n + t;  // from this word on, every code is a separator
  std::uint32_t next_word = __ldg(words);
  // Lane t's column of a window: column + t of the boundary row, 0 past the haplotype.
  const auto window_at = [&](int column) {
    const int c = column + t;
    return c < n ? boundary[c] : make_float2(0.0f, 0.0f);
  };
  float2 window = make_float2(0.0f, 0.0f), ahead = window;
  if constexpr (kFromBoundary) {
    window = window_at(0);
    ahead = window_at(P);
  }
#pragma unroll 1
  for (int group = 0; group < steps; group += 4) {
    const std::uint32_t word = next_word;
    next_word = __ldg(words + min(group + 4, last_word));
    if constexpr (kFromBoundary) {
      if (group > 0 && (group & (P - 1)) == 0) {
        window = ahead;
        ahead = window_at(group + P);
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float lambda[4 * G];
      load_lambda<K>(table, (word >> (8 * k)) & 0xffu, lambda);
      float p_in = __shfl_up_sync(kWarp, p_send, 1);
      float i_in = __shfl_up_sync(kWarp, i_send, 1);
      if constexpr (kFromBoundary) {
        const int source = (group & (P - 1)) + k;
        const float p_above = __shfl_sync(kWarp, window.x, source);
        const float i_above = __shfl_sync(kWarp, window.y, source);
        if (t == 0) {
          p_in = p_above;
          i_in = i_above;
        }
      } else if (t == 0) {
        p_in = initial;
        i_in = 0.0f;
      }
      tile_step<K, true>(rows, lambda, s, i_in, p_send, i_send);
      s.p_prev = p_in;
      if constexpr (kToBoundary) {
        if (t == P - 1) boundary[group + k - (P - 1)] = make_float2(p_send, i_send);
      }
      acc += i_send;  // meaningful in the last thread of the last tile
    }
  }
  return acc;
}

/// Persistent: `gridDim * 2` warps loop over the items, one warp per item (every loop's trip count
/// is the same for the whole warp).
template <int K>
__global__ void __launch_bounds__(kBlockThreads)
    multi_tile_kernel(DeviceBatch b, const WorkItem* __restrict__ items, std::uint32_t count,
                      Fp64Queue queue, float2* scratch, std::uint32_t scratch_per_slot) {
  using namespace pairhmm;
  constexpr int P = 32;
  constexpr int G = (K + 3) / 4;
  constexpr int kTile = P * K;
  extern __shared__ float4 shared_tables[];
  const int t = threadIdx.x & 31;
  const std::uint32_t slot = blockIdx.x * (kBlockThreads / P) + threadIdx.x / P;
  const std::uint32_t slots = gridDim.x * (kBlockThreads / P);
  float4* table = shared_tables + (threadIdx.x >> 5) * (kCodeCount * G * 32) + t;
  float2* boundary_base = scratch + static_cast<std::size_t>(slot) * scratch_per_slot;

  for (std::uint32_t index = slot; index < count; index += slots) {
    const WorkItem item = items[index];
    const int exponent = b.exponents[item.read];
    if (exponent == 0) {
      if (t == 0) queue_fp64(queue, item.read, item.first_hap, item.hap_count, item.result);
      continue;
    }
    const int length = static_cast<int>(b.read_offsets[item.read + 1] - b.read_offsets[item.read]);
    const float min_accepted = fp32_min_accepted(exponent);
    const double log10_scale = exponent * kLog10Of2 + unit_result_log10_scale(length);
    const int tiles = (length + kTile - 1) / kTile;
    for (int tile = 0; tile < tiles; ++tile) {
      TileRows<K, true> rows;
      load_tile_rows<K, true>(b, item.read, tile * kTile + t * K + 1,
                              reinterpret_cast<float*>(table), rows);
      const bool first = tile == 0, last = tile + 1 == tiles;
      // Row 0 of the matrix: M = I = 0, D = 2^exponent / n, so the first row receives v_1 D.
      const double first_row_d = rows.v_first * ldexp(1.0, exponent);
      std::uint32_t hap_offset = kBoundaryLead;
      for (std::uint32_t h = 0; h < item.hap_count; ++h) {
        const std::uint32_t hap = item.first_hap + h;
        const int n = static_cast<int>(b.hap_lengths[hap]);
        const std::uint32_t* words = b.hap_words + b.hap_starts[hap] - t;
        float2* boundary = boundary_base + hap_offset;
        hap_offset += n + pairhmm_plan::kBoundaryPad;
        const float initial = first ? static_cast<float>(first_row_d / n) : 0.0f;
        __syncwarp();  // the previous tile's boundary writes are visible to every lane
        float acc;
        if (first) {
          acc = last ? multi_tile_pass<K, false, false>(rows, table, words, n, initial, boundary, t)
                     : multi_tile_pass<K, false, true>(rows, table, words, n, initial, boundary, t);
        } else {
          acc = last ? multi_tile_pass<K, true, false>(rows, table, words, n, initial, boundary, t)
                     : multi_tile_pass<K, true, true>(rows, table, words, n, initial, boundary, t);
        }
        if (last && t == P - 1) {
          finish_fp32_pair(b, queue, acc, min_accepted, log10_scale, item.read, hap,
                           item.result + h);
        }
      }
    }
    __syncwarp();
  }
}

}  // namespace gpp::kernels::pairhmm_cuda
