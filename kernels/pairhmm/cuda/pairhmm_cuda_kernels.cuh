// The CUDA PairHMM fp32 kernels (templates; instantiated in pairhmm_cuda_tiles*.cu).
//
// Layout (after gpuPairHMM, Schmidt et al.): a subwarp of P threads scores one read; thread t holds
// read rows t*K+1 .. t*K+K in registers, and the haplotype streams through the subwarp as an
// anti-diagonal wavefront: at step s thread t computes column s - t of its K rows, taking the row
// above its first from thread t-1 by a register shuffle. Emissions come from a per-thread table
// lambda~[haplotype code][row] in shared memory, read as float4 (four rows per load).
//
// Differences from the seed design:
//  - the unit formulation of pairhmm_model.hpp: 5 operations per cell (6 in the fused form that
//  long
//    tiles use) instead of 8, and 4 coefficient registers per row;
//  - a thread sends the next thread the two sums its first row needs (I of the row and the sum the
//    match state multiplies) instead of M, I and D: 2 shuffles per step instead of 3;
//  - one subwarp scores its read against every haplotype of the region: coefficients and the
//    emission table are built once per read, not once per pair;
//  - pairs under GKL's threshold go to a device queue for the fp64 kernel instead of returning
//    -inf or a value that lost precision.
//
// The per-thread pieces (load_tile_rows, tile_step, load_lambda) are host-callable too, so that
// pairhmm_cuda_emulation.cu can run the same wavefront on the CPU and the tests can check its
// logic without a GPU.
#pragma once

#include <cuda_runtime.h>

#include "kernels/pairhmm/cuda/pairhmm_cuda.cuh"
#include "kernels/pairhmm/detail/pairhmm_model.hpp"

// Full unrolling in device code; the host emulation compiles the same loops without the pragma.
#ifdef __CUDA_ARCH__
#define GPP_PAIRHMM_UNROLL _Pragma("unroll")
#else
#define GPP_PAIRHMM_UNROLL
#endif

namespace gpp::kernels::pairhmm_cuda {

template <int P, typename T>
__device__ __forceinline__ T subwarp_max(unsigned mask, T value) {
#pragma unroll
  for (int offset = P / 2; offset > 0; offset /= 2)
    value = fmax(value, __shfl_xor_sync(mask, value, offset, P));
  return value;
}

template <int P, typename T>
__device__ __forceinline__ T subwarp_min(unsigned mask, T value) {
#pragma unroll
  for (int offset = P / 2; offset > 0; offset /= 2)
    value = fmin(value, __shfl_xor_sync(mask, value, offset, P));
  return value;
}

/// Queues pairs (read, haplotypes [first, first + count)) for the fp64 kernel.
__device__ __forceinline__ void queue_fp64(Fp64Queue queue, std::uint32_t read,
                                           std::uint32_t first_hap, std::uint32_t count,
                                           std::uint32_t result) {
  const std::uint32_t at = atomicAdd(queue.count, count);
  for (std::uint32_t h = 0; h < count; ++h)
    queue.pairs[at + h] = {read, first_hap + h, result + h, 0};
}

/// Per-thread row coefficients of a tile: rows first_row .. first_row + K - 1, in registers.
/// 5-operation form: u, v of the row itself, plus u, v, c of the next thread's first row.
/// Fused form: u, v of the row below (the last row's are the next thread's first row's), plus c.
template <int K, bool kFused>
struct TileRows {
  float u[K], v[K], c[K], d[K];
  float u_next, v_next, c_next;
  float v_first;  ///< v of the thread's first row (thread 0: v_1, the initial condition's factor)
};

/// Row i's coefficients (match, mismatch, u, v / c, d) from the prepare kernel's arrays; rows past
/// the read are carry rows.
__host__ __device__ __forceinline__ void load_row(const DeviceBatch& b, std::uint32_t begin,
                                                  int length, float carry, int i,
                                                  float4& emission_uv, float2& cd) {
  if (i <= length) {
    const float4* p = b.coefficients + 2 * static_cast<std::size_t>(begin + i - 1);
#ifdef __CUDA_ARCH__
    emission_uv = __ldg(p);
    const float4 rest = __ldg(p + 1);
#else  // the host emulation of pairhmm_cuda_emulation.cu
    emission_uv = p[0];
    const float4 rest = p[1];
#endif
    cd = make_float2(rest.x, rest.y);
  } else {
    emission_uv = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    cd = make_float2(i == length + 1 ? carry : 1.0f, 0.0f);
  }
}

/// Loads a thread's coefficients and writes its emission table: entry (code, row r) at
/// table[((code * G + r / 4) * 32) * 4 + r % 4] (the thread's float4 column, see the kernels).
template <int K, bool kFused>
__host__ __device__ __forceinline__ void load_tile_rows(const DeviceBatch& b, std::uint32_t read,
                                                        int first_row, float* table,
                                                        TileRows<K, kFused>& rows) {
  using namespace pairhmm;
  constexpr int G = (K + 3) / 4;
  const std::uint32_t begin = b.read_offsets[read];
  const int length = static_cast<int>(b.read_offsets[read + 1] - begin);
  const float carry = b.carry[read];
  GPP_PAIRHMM_UNROLL
  for (int r = 0; r <= K; ++r) {
    const int i = first_row + r;
    float4 e;
    float2 cd;
    load_row(b, begin, length, carry, i, e, cd);
    if (r < K) {
      rows.c[r] = cd.x;
      rows.d[r] = cd.y;
      if constexpr (!kFused) {
        rows.u[r] = e.z;
        rows.v[r] = e.w;
      }
      const int read_code =
          i <= length
              ? static_cast<int>(base_code(static_cast<unsigned char>(b.bases[begin + i - 1])))
              : kCodeN;
      GPP_PAIRHMM_UNROLL
      for (int code = 0; code < kCodeCount; ++code) {
        table[((code * G + r / 4) * 32) * 4 + r % 4] = emission<float>(read_code, code, e.x, e.y);
      }
    }
    if constexpr (kFused) {
      if (r > 0) {
        rows.u[r > 0 ? r - 1 : 0] = e.z;
        rows.v[r > 0 ? r - 1 : 0] = e.w;
      }
    }
    if (r == 0) rows.v_first = e.w;
    if (r == K) {
      rows.u_next = e.z;
      rows.v_next = e.w;
      rows.c_next = cd.x;
    }
  }
}

/// Wavefront state of a thread's K rows: the values at the column it computed last.
/// 5-operation form: x = I~; fused form: x = P (I~ does not outlive a step there).
template <int K>
struct TileState {
  float m[K], x[K], d[K];
  float p_prev;  ///< the first row's received sum, one column back
};

/// One wavefront step of a thread: its K rows at one column, given what the thread above sent for
/// this column (thread 0: the initial condition). Produces the two values it sends on: the sum
/// the next row's match state multiplies and the next row's I~.
///
/// The passes are ordered so that every state register is updated in place: match and deletion
/// states bottom-up (each reads the old values of the row above), the insertion chain top-down
/// (each reads the new values of the row above). A loop-carried value then keeps its register and
/// the step needs no moves.
template <int K, bool kFused>
__host__ __device__ __forceinline__ void tile_step(const TileRows<K, kFused>& rows,
                                                   const float* lambda, TileState<K>& s, float i_in,
                                                   float& p_send, float& i_send) {
  if constexpr (kFused) {
    // M = lambda P_ul; I = M_up + c I_up; D = M_l + d D_l; P = fma(lambda, P_ul, u' I + v' D).
    GPP_PAIRHMM_UNROLL
    for (int k = 0; k < K; ++k) {
      const int r = K - 1 - k;
      s.d[r] = fmaf(rows.d[r], s.d[r], s.m[r]);
      s.m[r] = lambda[r] * (r == 0 ? s.p_prev : s.x[r > 0 ? r - 1 : 0]);
    }
    float in[K];
    in[0] = i_in;
    GPP_PAIRHMM_UNROLL
    for (int r = 1; r < K; ++r) in[r] = fmaf(rows.c[r], in[r - 1], s.m[r - 1]);
    GPP_PAIRHMM_UNROLL
    for (int k = 0; k < K; ++k) {
      const int r = K - 1 - k;
      const float p_ul = r == 0 ? s.p_prev : s.x[r > 0 ? r - 1 : 0];
      s.x[r] = fmaf(lambda[r], p_ul, fmaf(rows.u[r], in[r], rows.v[r] * s.d[r]));
    }
    p_send = s.x[K - 1];
    i_send = fmaf(rows.c_next, in[K - 1], s.m[K - 1]);
  } else {
    // M = lambda (M_ul + u I_ul + v D_ul); I = M_up + c I_up; D = M_l + d D_l.
    GPP_PAIRHMM_UNROLL
    for (int k = 0; k < K - 1; ++k) {
      const int r = K - 1 - k;
      s.d[r] = fmaf(rows.d[r], s.d[r], s.m[r]);
      s.m[r] = lambda[r] * fmaf(rows.u[r], s.x[r - 1], fmaf(rows.v[r], s.d[r - 1], s.m[r - 1]));
    }
    s.d[0] = fmaf(rows.d[0], s.d[0], s.m[0]);
    s.m[0] = lambda[0] * s.p_prev;
    s.x[0] = i_in;
    GPP_PAIRHMM_UNROLL
    for (int r = 1; r < K; ++r) s.x[r] = fmaf(rows.c[r], s.x[r - 1], s.m[r - 1]);
    p_send = fmaf(rows.u_next, s.x[K - 1], fmaf(rows.v_next, s.d[K - 1], s.m[K - 1]));
    i_send = fmaf(rows.c_next, s.x[K - 1], s.m[K - 1]);
  }
}

/// The emission values of K rows for a haplotype code, from the thread's table column.
template <int K>
__host__ __device__ __forceinline__ void load_lambda(const float4* table, int code, float* lambda) {
  constexpr int G = (K + 3) / 4;
  const float4* entry = table + code * (G * 32);
  GPP_PAIRHMM_UNROLL
  for (int g = 0; g < G; ++g) {
    const float4 e = entry[g * 32];
    lambda[4 * g] = e.x;
    lambda[4 * g + 1] = e.y;
    lambda[4 * g + 2] = e.z;
    lambda[4 * g + 3] = e.w;
  }
}

/// Shared memory of a tile kernel's block: per warp, 6 codes x G float4 x 32 lanes.
template <int K>
constexpr int tile_shared_bytes() {
  return (kBlockThreads / 32) * pairhmm::kCodeCount * ((K + 3) / 4) * 32 * 16;
}

/// The scaled fp32 sum of a pair to log10, or the pair to the fp64 queue.
__device__ __forceinline__ void finish_fp32_pair(const DeviceBatch& b, Fp64Queue queue, float acc,
                                                 float min_accepted, double log10_scale,
                                                 std::uint32_t read, std::uint32_t hap,
                                                 std::uint32_t result) {
  if (acc >= min_accepted && acc <= 3.4e38f) {
    b.results[result] = log10(static_cast<double>(acc)) - log10_scale;
  } else {
    queue_fp64(queue, read, hap, 1, result);
  }
}

/// Blocks per multiprocessor a tile kernel is compiled for, where the compiler's own choice lands
/// just past an occupancy step: the 5-operation form at 20 rows per thread took 205 registers
/// (8 resident warps) where 168 (12 warps, 4 bytes of spills outside the step loop) suffice, and
/// 12 to 14 rows took 129-130 registers where 128 (16 warps) suffice. 0: the compiler's choice.
constexpr int tile_min_blocks(int K, bool fused) {
  if (K >= 20) return fused ? 0 : 6;
  return K >= 12 && K <= 14 ? 8 : 0;
}

/// Single-tile kernel: one subwarp of P threads per work item, reads of length <= P * K.
///
/// The shuffles take the whole warp: with a subwarp's mask the compiler checks the warp's
/// convergence at every step (MATCH.ANY, REDUX, a divergence branch, in the critical path). So
/// every lane runs every loop to the warp's longest trip count (a subwarp would otherwise wait for
/// the others at the loop's end anyway), in groups of 4 steps (one load of 4 codes): past its own
/// haplotype a subwarp reads separator codes (the read index is clamped into the padding after
/// the haplotype), whose emission 0 keeps M and I there 0, so the sum of the last row's I does
/// not change; a subwarp without an item, or past its item's haplotypes, starts from 0 and
/// computes zeros.
template <int P, int K, bool kFused>
__global__ void __launch_bounds__(kBlockThreads, tile_min_blocks(K, kFused))
    tile_kernel(DeviceBatch b, const WorkItem* __restrict__ items, std::uint32_t count,
                Fp64Queue queue) {
  using namespace pairhmm;
  constexpr int G = (K + 3) / 4;
  constexpr unsigned kWarp = 0xffffffffu;
  extern __shared__ float4 shared_tables[];
  const int lane = threadIdx.x & 31;
  const int t = lane % P;
  const std::uint32_t index = blockIdx.x * (kBlockThreads / P) + threadIdx.x / P;
  if (blockIdx.x * (kBlockThreads / P) + (threadIdx.x & ~31u) / P >= count) return;  // whole warps
  const bool has_item = index < count;
  const WorkItem item = items[has_item ? index : count - 1];
  float4* table = shared_tables + (threadIdx.x >> 5) * (kCodeCount * G * 32) + lane;
  const int exponent = b.exponents[item.read];
  std::uint32_t hap_count = has_item ? item.hap_count : 0;
  if (has_item && exponent == 0) {  // qualities the fp32 formulation cannot take
    if (t == 0) queue_fp64(queue, item.read, item.first_hap, item.hap_count, item.result);
    hap_count = 0;
  }
  TileRows<K, kFused> rows;
  load_tile_rows<K, kFused>(b, item.read, t * K + 1, reinterpret_cast<float*>(table), rows);
  const int length = static_cast<int>(b.read_offsets[item.read + 1] - b.read_offsets[item.read]);
  const float min_accepted = fp32_min_accepted(exponent);
  const double log10_scale = exponent * kLog10Of2 + unit_result_log10_scale(length);
  const std::uint32_t warp_haps = __reduce_max_sync(kWarp, hap_count);
  // Row 0 of the matrix: M = I = 0, D = 2^exponent / n, so the first row receives v_1 D.
  const double first_row_d = rows.v_first * ldexp(1.0, exponent);
  // A haplotype's length, start and first code word are loaded while the haplotype before it is
  // computed: dependent global loads, they stalled the warp at the start of every haplotype.
  // words[step]: the codes of columns step - t .. step - t + 3 (an inactive subwarp reads
  // separators and the first haplotype's codes).
  int next_n = hap_count > 0 ? static_cast<int>(b.hap_lengths[item.first_hap]) : 0;
  std::uint32_t next_start = hap_count > 0 ? b.hap_starts[item.first_hap] : kHapPad;
  std::uint32_t next_first_word = warp_haps > 0 ? __ldg(b.hap_words + next_start - t) : 0u;

  for (std::uint32_t h = 0; h < warp_haps; ++h) {
    const bool active = h < hap_count;
    const std::uint32_t hap = item.first_hap + h;
    const int n = next_n;
    const std::uint32_t* words = b.hap_words + next_start - t;
    std::uint32_t next_word = next_first_word;
    const bool more = h + 1 < hap_count;
    next_n = more ? static_cast<int>(b.hap_lengths[hap + 1]) : 0;
    next_start = more ? b.hap_starts[hap + 1] : kHapPad;
    const float initial = active ? static_cast<float>(first_row_d / n) : 0.0f;
    TileState<K> s;
#pragma unroll
    for (int r = 0; r < K; ++r) s.m[r] = s.x[r] = s.d[r] = 0.0f;
    s.p_prev = t == 0 ? initial : 0.0f;
    float p_send = 0.0f, i_send = 0.0f, acc = 0.0f;
    const int steps = __reduce_max_sync(kWarp, n) + P - 1;
    const int last_word = n + t;  // from this word on, every code is a separator
#pragma unroll 1
    for (int step = 0; step < steps; step += 4) {  // the next group's word is loaded a group ahead
      const std::uint32_t word = next_word;
      next_word = __ldg(words + min(step + 4, last_word));
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float lambda[4 * G];
        load_lambda<K>(table, (word >> (8 * k)) & 0xffu, lambda);
        float p_in = __shfl_up_sync(kWarp, p_send, 1, P);
        float i_in = __shfl_up_sync(kWarp, i_send, 1, P);
        if (t == 0) {
          p_in = initial;
          i_in = 0.0f;
        }
        tile_step<K, kFused>(rows, lambda, s, i_in, p_send, i_send);
        s.p_prev = p_in;
        acc += i_send;  // meaningful in the last thread: the carry row's I, column step - (P - 1)
      }
    }
    next_first_word = __ldg(b.hap_words + next_start - t);
    if (active && t == P - 1)
      finish_fp32_pair(b, queue, acc, min_accepted, log10_scale, item.read, hap, item.result + h);
  }
}

}  // namespace gpp::kernels::pairhmm_cuda
