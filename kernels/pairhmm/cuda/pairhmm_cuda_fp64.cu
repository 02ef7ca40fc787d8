// The CUDA PairHMM fp64 kernel: pairs GKL's rule sends to fp64 (and every pair with --precision
// double). GATK's own coefficients (the general formulation of pairhmm_model.hpp), the same
// subwarp wavefront as the fp32 kernels, tiles of kTile rows; between tiles the boundary row is
// rescaled by a power of two, so likelihoods far below the double range stay finite.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/pairhmm/cuda/pairhmm_cuda_fp64.cuh"

namespace gpp::kernels::pairhmm_cuda {

namespace {

__device__ __forceinline__ unsigned pair_mask() {
  const unsigned lane = threadIdx.x & 31u;
  return ((1u << kP) - 1u) << (lane & ~static_cast<unsigned>(kP - 1));
}

__global__ void __launch_bounds__(kBlockThreads)
    fp64_kernel(DeviceBatch b, Fp64Queue queue, double2* scratch, std::uint32_t max_hap_length) {
  using namespace pairhmm;
  extern __shared__ double shared_tables64[];
  const int lane = threadIdx.x & 31;
  const int t = lane % kP;
  const unsigned mask = pair_mask();
  const std::uint32_t slot = blockIdx.x * (kBlockThreads / kP) + threadIdx.x / kP;
  const std::uint32_t slots = gridDim.x * (kBlockThreads / kP);
  double* table = shared_tables64 + (threadIdx.x >> 5) * (kCodeCount * kK * 32) + lane;
  double2* boundary = scratch + static_cast<std::size_t>(slot) * max_hap_length;
  const std::uint32_t count = *queue.count;

  for (std::uint32_t index = slot; index < count; index += slots) {
    const Fp64Pair pair = queue.pairs[index];
    const std::uint32_t begin = b.read_offsets[pair.read];
    const ReadQuals q{b.base_quals + begin, b.ins_quals + begin, b.del_quals + begin,
                      b.gcp_quals + begin, static_cast<int>(b.read_offsets[pair.read + 1] - begin)};
    const char* bases = b.bases + begin;
    const int n = static_cast<int>(b.hap_lengths[pair.hap]);
    const std::uint8_t* codes = b.hap_codes + b.hap_starts[pair.hap] - t;
    const int tiles = (q.length + kTile - 1) / kTile;
    int shift = 0;  // log2 of the factor the boundary carries beyond 2^kFp64Exponent
    double scale_in = 1.0, acc = 0.0;
    for (int tile = 0; tile < tiles; ++tile) {
      Fp64Rows rows;
      load_fp64_rows(*b.tables, q, bases, tile * kTile + t * kK + 1, table, rows);
      const bool first = tile == 0, last = tile + 1 == tiles;
      // Row 0: M = I = 0, D = 2^kFp64Exponent / n; row 1's M multiplies t_GM(1) D.
      const double initial = rows.u_first * ldexp(1.0, kFp64Exponent) / n;
      Fp64State s;
#pragma unroll
      for (int r = 0; r < kK; ++r) s.m[r] = s.in[r] = s.d[r] = 0.0;
      s.p_prev = t == 0 && first ? initial : 0.0;
      double p_send = 0.0, i_send = 0.0, boundary_max = 0.0;
      __syncwarp(mask);
      const int steps = n + kP - 1;
#pragma unroll 1
      for (int step = 0; step < steps; ++step) {
        const double* entry = table + __ldg(codes + step) * (kK * 32);
        double p_in = __shfl_up_sync(mask, p_send, 1, kP);
        double i_in = __shfl_up_sync(mask, i_send, 1, kP);
        if (t == 0) {
          if (first) {
            p_in = initial;
            i_in = 0.0;
          } else {
            const double2 v = step < n ? boundary[step] : make_double2(0.0, 0.0);
            p_in = v.x * scale_in;
            i_in = v.y * scale_in;
          }
        }
        fp64_step(rows, entry, s, i_in, p_send, i_send);
        s.p_prev = p_in;
        if (t == kP - 1) {
          const int column = step - (kP - 1);
          if (!last) {
            if (column >= 0) {
              boundary[column] = make_double2(p_send, i_send);
              boundary_max = fmax(boundary_max, fmax(p_send, i_send));
            }
          } else {
            acc += i_send;
          }
        }
      }
      if (!last) {  // bring the boundary's largest value to 2^kBoundaryExponent for the next tile
        const int exponent_shift = boundary_shift(__shfl_sync(mask, boundary_max, kP - 1, kP));
        scale_in = ldexp(1.0, exponent_shift);
        shift += exponent_shift;
      }
    }
    if (t == kP - 1) {
      b.results[pair.result] = log10(acc) - (kFp64Exponent + shift) * kLog10Of2;
    }
    __syncwarp(mask);
  }
}

__global__ void queue_all_pairs_kernel(const WorkItem* items, std::uint32_t count,
                                       Fp64Queue queue) {
  const std::uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= count) return;
  const WorkItem item = items[index];
  const std::uint32_t at = atomicAdd(queue.count, item.hap_count);
  for (std::uint32_t h = 0; h < item.hap_count; ++h) {
    queue.pairs[at + h] = {item.read, item.first_hap + h, item.result + h, 0};
  }
}

}  // namespace

void launch_fp64_kernel(const DeviceBatch& batch, Fp64Queue queue, double2* scratch,
                        std::uint32_t max_hap_length, std::uint32_t slots, cudaStream_t stream) {
  constexpr int per_block = kBlockThreads / kP;
  const unsigned blocks = std::max<unsigned>(1, slots / per_block);
  const int shared =
      (kBlockThreads / 32) * pairhmm::kCodeCount * kK * 32 * static_cast<int>(sizeof(double));
  fp64_kernel<<<blocks, kBlockThreads, shared, stream>>>(batch, queue, scratch, max_hap_length);
  cuda::check_launch("pairhmm fp64 kernel");
}

std::uint32_t fp64_slots(int multiprocessors) {
  int blocks = 0;
  const int shared =
      (kBlockThreads / 32) * pairhmm::kCodeCount * kK * 32 * static_cast<int>(sizeof(double));
  cuda::check(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fp64_kernel, kBlockThreads, shared),
      "occupancy of the fp64 kernel");
  return static_cast<std::uint32_t>(std::max(1, blocks * multiprocessors)) * (kBlockThreads / kP);
}

void launch_queue_all_pairs(const WorkItem* items, std::uint32_t count, Fp64Queue queue,
                            cudaStream_t stream) {
  if (count == 0) return;
  queue_all_pairs_kernel<<<(count + 255) / 256, 256, 0, stream>>>(items, count, queue);
  cuda::check_launch("pairhmm queue_all_pairs");
}

}  // namespace gpp::kernels::pairhmm_cuda
