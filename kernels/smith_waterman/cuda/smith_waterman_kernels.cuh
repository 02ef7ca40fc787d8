// CUDA kernels of smith-waterman. One warp fills one pair's matrices and picks its end cell
// (sw_fill_kernel), or two pairs' in the 16-bit halves of its registers (sw_dual_fill_kernel);
// one thread then walks a pair's traceback codes (sw_traceback_kernel).
//
// Fill: the warp's 32 lanes each own R consecutive alt columns (R <= 8, a template parameter),
// so a pass covers 32 * R columns; longer alts take several passes, the last column of one pass
// (H and the running insertion score per row) handed to the next through a small global buffer.
// Within a pass the lanes sweep the ref rows as a wavefront, lane l at row t - l + 1 in step t:
// the running deletion score of a column stays in its lane's registers, H and the running
// insertion score of a row move one lane to the right per step (__shfl_up_sync), and the ref
// base travels with them. Lane 0 takes its inputs (column 0, or the previous pass's last column,
// and the ref bases) from registers loaded 32 rows at a time. Each lane stores one 32-bit word of
// R 4-bit codes per step; the warp's 32 words are contiguous (coalesced).
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_dual_wavefront.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_wavefront.hpp"

namespace gpp::kernels::sw::gpu {

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;
inline constexpr int kNoColumn = INT_MAX;
/// Fill kernel occupancy floor: 8 blocks of 4 warps per SM (half of Hopper's 64 warps) caps
/// registers at 64 per thread, which R <= 6 fits without spilling; R = 7 needs 7 blocks (72
/// registers), R = 8 6 blocks (80; ptxas -v, sm_90).
constexpr int min_blocks_per_sm(int columns_per_lane) {
  return columns_per_lane <= 6 ? 8 : (columns_per_lane == 7 ? 7 : 6);
}

/// One pair of a chunk, as the kernels see it.
struct PairTask {
  std::uint32_t ref_begin = 0;  ///< byte offsets in the chunk's base buffer
  std::uint32_t alt_begin = 0;
  std::int32_t n = 0;                 ///< ref length
  std::int32_t m = 0;                 ///< alt length
  std::uint64_t traceback_begin = 0;  ///< word offset in the traceback buffer
  std::uint64_t boundary_begin = 0;   ///< int2 offset in the pass-boundary buffer (n + 1 entries)
  std::uint32_t run_slot_begin = 0;   ///< offset of the pair's n + m run slots
  std::int32_t columns_per_lane = 1;  ///< R
  std::int32_t half = -1;  ///< -1: a warp of its own; 0, 1: its half of a 16-bit kernel's warp
};

/// What the kernels return per pair.
struct PairOutput {
  std::int32_t end_p1 = 0, end_p2 = 0;    ///< end cell
  std::int32_t last_p1 = 0, last_p2 = 0;  ///< where the traceback stopped
  std::int32_t substring_offset = -1;     ///< >= 0: answered by the substring shortcut
  std::uint32_t run_count = 0;
  std::uint32_t run_begin = 0;  ///< in the compacted run buffer
  std::uint32_t unused = 0;
};

/// GATK Utils.lastIndexOf by a warp: lanes test 32 candidate offsets at once, from the right.
/// Returns the offset (the same in every lane) or -1.
__device__ __forceinline__ int warp_last_index_of(const std::uint8_t* ref, int n,
                                                  const std::uint8_t* alt, int m, int lane) {
  for (int top = n - m; top >= 0; top -= 32) {
    const int r = top - lane;
    bool found = false;
    if (r >= 0) {
      int q = 0;
      while (q < m && ref[r + q] == alt[q]) ++q;
      found = q == m;
    }
    const unsigned ballot = __ballot_sync(kFullMask, found);
    if (ballot != 0) return top - (__ffs(static_cast<int>(ballot)) - 1);  // lowest lane = last r
  }
  return -1;
}

/// The 32-bit kernel's lanes: one pair per warp (LaneColumns, smith_waterman_wavefront.hpp).
template <int R>
struct SinglePairLanes {
  static constexpr int kPairs = 1;
  using Columns = LaneColumns<R>;
  using Parameters = WavefrontParameters;
  using Value = std::int32_t;
  using Word = std::uint32_t;
  struct Tracker {
    int score = INT_MIN, i = 0;
  };

  static __device__ __forceinline__ Value ref_base(const std::uint8_t* const* refs, int row) {
    return refs[0][row - 1];
  }
  static __device__ __forceinline__ Value first_column(int row, const Parameters& p) {
    return first_column_h(row, p);
  }
  static __device__ __forceinline__ Value low_init(const Parameters&) { return kLowInitValue; }
  template <bool kChecked>
  static __device__ __forceinline__ Word step(Columns& c, int i, int n, Value in_h,
                                              Value in_insertion, Value in_base,
                                              const Parameters& p) {
    return lane_step<kChecked>(c, i, n, in_h, in_insertion, in_base, p);
  }
  static __device__ __forceinline__ void track(const Columns& c, int i, Tracker& t) {
    lane_track_column(c, i, t.score, t.i);
  }
};

/// The 16-bit kernel's lanes: two pairs per warp (DualLaneColumns,
/// smith_waterman_dual_wavefront.hpp).
template <int R>
struct PairOfPairsLanes {
  static constexpr int kPairs = 2;
  using Columns = DualLaneColumns<R>;
  using Parameters = DualParameters;
  using Value = std::uint32_t;
  using Word = DualStepWord;
  using Tracker = DualColumnTracker;

  static __device__ __forceinline__ Value ref_base(const std::uint8_t* const* refs, int row) {
    return dual_bases(refs[0][row - 1], refs[1][row - 1]);
  }
  static __device__ __forceinline__ Value first_column(int row, const Parameters& p) {
    return dual_border(row, p);
  }
  static __device__ __forceinline__ Value low_init(const Parameters& p) { return p.low_init; }
  template <bool kChecked>
  static __device__ __forceinline__ Word step(Columns& c, int i, int n, Value in_h,
                                              Value in_insertion, Value in_base,
                                              const Parameters& p) {
    return dual_lane_step<kChecked>(c, i, n, in_h, in_insertion, in_base, p);
  }
  static __device__ __forceinline__ void track(const Columns& c, int i, Tracker& t) {
    dual_lane_track_column(c, i, t);
  }
};

/// What a lane carries through one pass of a fill kernel, and the pass's wavefront steps.
template <typename Lanes>
struct FillPass {
  using Value = typename Lanes::Value;
  using Parameters = typename Lanes::Parameters;
  typename Lanes::Columns columns;
  const std::uint8_t* refs[Lanes::kPairs];  ///< the warp's pairs share the ref length n
  int2* boundary;  ///< the column before this pass (pass > 0), then this pass's last one
  typename Lanes::Word* words;  ///< this pass's traceback words, advanced one step at a time
  int n, lane, pass;
  bool store_boundary;  ///< not the last pass: lane 31 leaves its last column for the next
  Value chunk_base = 0, chunk_h = 0, chunk_insertion = 0;  ///< lane 0's inputs, 32 rows at a time

  /// Lane k takes lane 0's inputs for row t0 + 1 + k.
  __device__ __forceinline__ void load_chunk(int t0, const Parameters& p) {
    const int row = t0 + 1 + lane;
    if (row <= n) {
      chunk_base = Lanes::ref_base(refs, row);
      if (pass > 0) {
        const int2 b = boundary[row];
        chunk_h = static_cast<Value>(b.x);
        chunk_insertion = static_cast<Value>(b.y);
      } else {
        chunk_h = Lanes::first_column(row, p);
        chunk_insertion = Lanes::low_init(p);
      }
    }
  }

  /// Step t = t0 + k. kChecked when some lane's row may lie outside 1..n; kTrack in the last pass
  /// of a strategy that scans the last column.
  template <bool kChecked, bool kTrack>
  __device__ __forceinline__ void step(int t, int k, const Parameters& p,
                                       typename Lanes::Tracker& tracker) {
    const Value lane0_base = __shfl_sync(kFullMask, chunk_base, k);
    const Value lane0_h = __shfl_sync(kFullMask, chunk_h, k);
    const Value lane0_insertion = __shfl_sync(kFullMask, chunk_insertion, k);
    Value in_h = __shfl_up_sync(kFullMask, columns.out_h, 1);
    Value in_insertion = __shfl_up_sync(kFullMask, columns.out_insertion, 1);
    Value in_base = __shfl_up_sync(kFullMask, columns.out_base, 1);
    if (lane == 0) {
      in_h = lane0_h;
      in_insertion = lane0_insertion;
      in_base = lane0_base;
    }
    const int i = t - lane + 1;
    words[lane] = Lanes::template step<kChecked>(columns, i, n, in_h, in_insertion, in_base, p);
    words += kWarpLanes;
    const bool inside = !kChecked || (i >= 1 && i <= n);
    if (kTrack && inside) Lanes::track(columns, i, tracker);
    if (store_boundary && lane == 31 && inside) {
      boundary[i] =
          make_int2(static_cast<int>(columns.out_h), static_cast<int>(columns.out_insertion));
    }
  }

  /// All n + 31 steps, 32 at a time; the blocks where every lane's row is inside 1..n unchecked.
  template <bool kTrack>
  __device__ __forceinline__ void run(const Parameters& p, typename Lanes::Tracker& tracker) {
    const int steps = n + 31;
    for (int t0 = 0; t0 < steps; t0 += 32) {
      load_chunk(t0, p);
      if (t0 >= 32 && t0 + 31 < n) {
#pragma unroll 1
        for (int k = 0; k < 32; ++k) step<false, kTrack>(t0 + k, k, p, tracker);
      } else {
        const int count = steps - t0 < 32 ? steps - t0 : 32;
        for (int k = 0; k < count; ++k) step<true, kTrack>(t0 + k, k, p, tracker);
      }
    }
  }
};

/// The bottom row's winner over the warp (a butterfly over the lanes' own winners), in every lane.
__device__ __forceinline__ void reduce_bottom_row(int& bottom_score, int& bottom_j, int n) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const int other_score = __shfl_xor_sync(kFullMask, bottom_score, offset);
    const int other_j = __shfl_xor_sync(kFullMask, bottom_j, offset);
    if (other_j != kNoColumn &&
        (bottom_j == kNoColumn ||
         bottom_cell_wins(other_score, other_j, bottom_score, bottom_j, n))) {
      bottom_score = other_score;
      bottom_j = other_j;
    }
  }
}

template <int R, int kWarpsPerBlock>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, min_blocks_per_sm(R))
    sw_fill_kernel(const PairTask* __restrict__ tasks, int task_count,
                   const std::uint8_t* __restrict__ bases, std::uint32_t* __restrict__ traceback,
                   int2* boundary, PairOutput* __restrict__ outputs, WavefrontParameters wp) {
  static_assert(R >= 1 && R <= kMaxColumnsPerLane, "4-bit codes of R columns fill one word");
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (warp >= task_count) return;  // whole warps leave together
  const PairTask task = tasks[warp];
  const std::uint8_t* ref = bases + task.ref_begin;
  const std::uint8_t* alt = bases + task.alt_begin;
  const int n = task.n, m = task.m;
  PairOutput* out = outputs + warp;

  if (wp.strategy == OverhangStrategy::kSoftClip || wp.strategy == OverhangStrategy::kIgnore) {
    const int at = warp_last_index_of(ref, n, alt, m, lane);
    if (at >= 0) {
      if (lane == 0) {
        PairOutput o;
        o.substring_offset = at;
        *out = o;
      }
      return;
    }
  }

  constexpr int kPassWidth = 32 * R;
  const int passes = (m + kPassWidth - 1) / kPassWidth;
  const int steps = n + 31;

  int bottom_score = INT_MIN, bottom_j = kNoColumn;           // this lane's best bottom-row cell
  const int last_column = m - 1 - (passes - 1) * kPassWidth;  // in the last pass, 0-based
  const int column_lane = last_column / R;
  const int column_r = last_column - column_lane * R;
  const bool scan_column = wp.strategy != OverhangStrategy::kIndel;

  FillPass<SinglePairLanes<R>> f;
  f.refs[0] = ref;
  f.boundary = boundary + task.boundary_begin;
  f.n = n;
  f.lane = lane;
  typename SinglePairLanes<R>::Tracker tracker;
  for (int pass = 0; pass < passes; ++pass) {
    const int j0 = pass * kPassWidth + lane * R + 1;  // this lane's first column
    const bool last_pass = pass == passes - 1;
    const bool track = last_pass && scan_column;
    lane_begin_pass(f.columns, alt, m, j0, track && lane == column_lane ? column_r : -1, wp);
    f.pass = pass;
    f.store_boundary = !last_pass;
    f.words = traceback + task.traceback_begin + static_cast<std::uint64_t>(pass) * steps * 32;
    if (track) {
      f.template run<true>(wp, tracker);
    } else {
      f.template run<false>(wp, tracker);
    }
    lane_bottom_row(f.columns, j0, n, m, bottom_score, bottom_j, kNoColumn);
    __syncwarp();  // the boundary stores of lane 31 are read by every lane in the next pass
  }

  reduce_bottom_row(bottom_score, bottom_j, n);
  const int column_score = __shfl_sync(kFullMask, tracker.score, column_lane);
  const int column_i = __shfl_sync(kFullMask, tracker.i, column_lane);
  if (lane == 0) {
    PairOutput o;
    choose_end_cell(wp.strategy, n, m, column_score, column_i, bottom_score, bottom_j, o.end_p1,
                    o.end_p2);
    *out = o;
  }
}

/**
 * The 16-bit fill kernel: warp w aligns the pairs of tasks 2w (low halves) and 2w + 1 (high
 * halves), which have one ref length and one shape (columns per lane, passes); both pairs pass
 * gpu_dual_values_fit. The same wavefront as sw_fill_kernel on DualLaneColumns; the traceback is
 * one DualStepWord per lane and step, shared by the two pairs (both tasks point at it).
 */
template <int R, int kWarpsPerBlock>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, min_blocks_per_sm(R))
    sw_dual_fill_kernel(const PairTask* __restrict__ tasks, int warp_count,
                        const std::uint8_t* __restrict__ bases,
                        std::uint32_t* __restrict__ traceback, int2* boundary,
                        PairOutput* __restrict__ outputs, DualParameters dp) {
  static_assert(R >= 1 && R <= kMaxColumnsPerLane, "R bits of each kind fill one byte");
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (warp >= warp_count) return;  // whole warps leave together
  const PairTask task[2] = {tasks[2 * warp], tasks[2 * warp + 1]};
  const std::uint8_t* const alts[2] = {bases + task[0].alt_begin, bases + task[1].alt_begin};
  const int n = task[0].n;
  const int m[2] = {task[0].m, task[1].m};
  PairOutput* out = outputs + 2 * warp;

  FillPass<PairOfPairsLanes<R>> f;
  f.refs[0] = bases + task[0].ref_begin;
  f.refs[1] = bases + task[1].ref_begin;
  int substring[2] = {-1, -1};
  if (dp.strategy == OverhangStrategy::kSoftClip || dp.strategy == OverhangStrategy::kIgnore) {
    for (int half = 0; half < 2; ++half)
      substring[half] = warp_last_index_of(f.refs[half], n, alts[half], m[half], lane);
    if (substring[0] >= 0 && substring[1] >= 0) {
      if (lane < 2) {
        PairOutput o;
        o.substring_offset = substring[lane];
        out[lane] = o;
      }
      return;
    }
  }

  constexpr int kPassWidth = 32 * R;
  const int passes = (m[0] + kPassWidth - 1) / kPassWidth;
  const int steps = n + 31;
  const bool scan_column = dp.strategy != OverhangStrategy::kIndel;
  int bottom_score[2] = {INT_MIN, INT_MIN}, bottom_j[2] = {kNoColumn, kNoColumn};
  int column_lane[2], column_r[2];
  for (int half = 0; half < 2; ++half) {
    const int last_column = m[half] - 1 - (passes - 1) * kPassWidth;  // in the last pass
    column_lane[half] = last_column / R;
    column_r[half] = last_column - column_lane[half] * R;
  }

  f.boundary = boundary + task[0].boundary_begin;
  f.n = n;
  f.lane = lane;
  DualColumnTracker tracker;
  for (int pass = 0; pass < passes; ++pass) {
    const int j0 = pass * kPassWidth + lane * R + 1;
    const bool last_pass = pass == passes - 1;
    const bool track = last_pass && scan_column;
    const int lane_column_r[2] = {track && lane == column_lane[0] ? column_r[0] : -1,
                                  track && lane == column_lane[1] ? column_r[1] : -1};
    dual_lane_begin_pass(f.columns, alts, m, j0, lane_column_r, dp);
    f.pass = pass;
    f.store_boundary = !last_pass;
    f.words = reinterpret_cast<DualStepWord*>(traceback + task[0].traceback_begin) +
              static_cast<std::uint64_t>(pass) * steps * 32;
    if (track) {
      f.template run<true>(dp, tracker);
    } else {
      f.template run<false>(dp, tracker);
    }
    dual_lane_bottom_row(f.columns, j0, n, m, bottom_score, bottom_j, kNoColumn);
    __syncwarp();
  }

  for (int half = 0; half < 2; ++half) {
    reduce_bottom_row(bottom_score[half], bottom_j[half], n);
    const std::uint32_t key = __shfl_sync(kFullMask, tracker.key[half], column_lane[half]);
    if (lane == 0) {
      PairOutput o;
      if (substring[half] >= 0) {
        o.substring_offset = substring[half];
      } else {
        choose_end_cell(dp.strategy, n, m[half], tracked_score(key), tracked_row(key),
                        bottom_score[half], bottom_j[half], o.end_p1, o.end_p2);
      }
      out[half] = o;
    }
  }
}

/// One thread per pair: GATK's backtrack over the pair's codes; the runs go to the pair's slots,
/// then to a compacted buffer at an offset claimed with one atomicAdd.
__global__ void sw_traceback_kernel(const PairTask* __restrict__ tasks, int task_count,
                                    const std::uint32_t* __restrict__ traceback,
                                    PairOutput* __restrict__ outputs,
                                    std::uint32_t* __restrict__ run_slots,
                                    std::uint32_t* __restrict__ runs,
                                    std::uint32_t* __restrict__ run_total) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= task_count) return;
  PairOutput o = outputs[k];
  if (o.substring_offset >= 0) return;
  const PairTask task = tasks[k];
  const std::uint32_t* words = traceback + task.traceback_begin;
  const int n = task.n, columns_per_lane = task.columns_per_lane, half = task.half;
  std::uint32_t* slots = run_slots + task.run_slot_begin;
  std::uint32_t count = 0;
  int p1 = o.end_p1, p2 = o.end_p2;
  const auto code_at = [words, n, columns_per_lane, half](int i, int j) {
    return half < 0 ? gpu_code_at(words, n, columns_per_lane, i, j)
                    : gpu_dual_code_at(words, n, columns_per_lane, half, i, j);
  };
  trace_back(code_at, p1, p2, [&](CigarOp op, std::uint32_t length) {
    const auto op_code = static_cast<std::uint32_t>(op);
    if (count > 0 && (slots[count - 1] & 0xFu) == op_code) {
      slots[count - 1] += length << 4;  // BAM packing: length << 4 | op
    } else {
      slots[count++] = length << 4 | op_code;
    }
  });
  const std::uint32_t begin = atomicAdd(run_total, count);
  for (std::uint32_t r = 0; r < count; ++r) runs[begin + r] = slots[r];
  o.last_p1 = p1;
  o.last_p2 = p2;
  o.run_count = count;
  o.run_begin = begin;
  outputs[k] = o;
}

}  // namespace gpp::kernels::sw::gpu
