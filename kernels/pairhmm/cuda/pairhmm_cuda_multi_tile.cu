// The multi-tile fp32 kernel's instances and launch (reads longer than the longest single tile).
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/pairhmm/cuda/pairhmm_cuda_multi_tile.cuh"

namespace gpp::kernels::pairhmm_cuda {

namespace {

using MultiTileFunction = void (*)(DeviceBatch, const WorkItem*, std::uint32_t, Fp64Queue, float2*,
                                   std::uint32_t);
struct MultiTileKernel {
  MultiTileFunction kernel;
  int shared_bytes;
};

// 16 rows per thread (512-row tiles): fewer rows cost more tiles (each repeats the wavefront's
// fill and drain and the boundary row's traffic), 20 rows pad reads of 1024 bases to 1280 rows
// (measured: bench/pairhmm/README.md). No register cap: at 203 registers (8 resident warps) it
// ran faster than capped at 200 (10 warps) or 168 (12 warps, spills in the step loop).
MultiTileKernel multi_tile() {
  return {&multi_tile_kernel<kMultiTileK>, tile_shared_bytes<kMultiTileK>()};
}

}  // namespace

void launch_multi_tile_kernel(const DeviceBatch& batch, const WorkItem* items, std::uint32_t count,
                              Fp64Queue queue, float2* scratch, std::uint32_t scratch_per_slot,
                              std::uint32_t slots, cudaStream_t stream) {
  constexpr int P = 32;
  if (count == 0) return;
  const MultiTileKernel k = multi_tile();
  const std::uint32_t per_block = kBlockThreads / P;
  const std::uint32_t blocks = std::max<std::uint32_t>(1, std::min(slots, count) / per_block);
  k.kernel<<<blocks, kBlockThreads, k.shared_bytes, stream>>>(batch, items, count, queue, scratch,
                                                              scratch_per_slot);
  cuda::check_launch("pairhmm multi-tile kernel");
}

// As many warps as are resident at once: each loops over the items, so that no block starts
// after the others have finished.
std::uint32_t multi_tile_slots(int multiprocessors) {
  int blocks = 0;
  const MultiTileKernel k = multi_tile();
  cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.kernel, kBlockThreads,
                                                            k.shared_bytes),
              "occupancy of the multi-tile kernel");
  return static_cast<std::uint32_t>(std::max(1, blocks * multiprocessors)) * (kBlockThreads / 32);
}

}  // namespace gpp::kernels::pairhmm_cuda
