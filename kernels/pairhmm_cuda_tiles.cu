// The fp32 PairHMM kernel instances and their tuning table (bins by read length).
//
// Tile = P threads x K rows. Small P wastes less in the wavefront's fill and drain (P - 1 steps per
// haplotype); large K amortises the per-step shuffles and table loads but costs registers (about 7
// per row). Bins up to 256 rows use the 5-operation form (its rounding drift stays below ~3e-6 in
// log10 there); longer tiles use the fused form, whose drift does not grow with the read length.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string_view>

#include "kernels/cuda_check.cuh"
#include "kernels/error.hpp"
#include "kernels/pairhmm_cuda_kernels.cuh"

namespace gpp::kernels::pairhmm_cuda {

namespace {

using TileKernelFunction = void (*)(DeviceBatch, const WorkItem*, std::uint32_t, Fp64Queue);

struct TileKernel {
  TileKernelInfo info;
  TileKernelFunction kernel;
  int shared_bytes;
};

template <int P, int K, bool kFused>
TileKernel tile() {
  return {{P, K, P * K, kFused}, &tile_kernel<P, K, kFused>, tile_shared_bytes<K>()};
}

// The default table, and an alternative with at most 12 rows per thread (fewer registers, more
// resident warps, more threads per read); GPP_PAIRHMM_TILES=narrow selects it (for measurements).
const TileKernel kDefaultTiles[] = {
    tile<2, 8, false>(),    // 16
    tile<4, 8, false>(),    // 32
    tile<4, 12, false>(),   // 48
    tile<4, 16, false>(),   // 64
    tile<4, 20, false>(),   // 80
    tile<8, 12, false>(),   // 96
    tile<8, 14, false>(),   // 112
    tile<8, 16, false>(),   // 128
    tile<8, 18, false>(),   // 144
    tile<8, 20, false>(),   // 160
    tile<16, 12, false>(),  // 192
    tile<16, 14, false>(),  // 224
    tile<16, 16, false>(),  // 256
    tile<16, 20, true>(),   // 320
    tile<32, 12, true>(),   // 384
    tile<32, 16, true>(),   // 512
    tile<32, 20, true>(),   // 640
};

const TileKernel kNarrowTiles[] = {
    tile<2, 8, false>(),    // 16
    tile<4, 8, false>(),    // 32
    tile<4, 10, false>(),   // 40
    tile<4, 12, false>(),   // 48
    tile<8, 8, false>(),    // 64
    tile<8, 10, false>(),   // 80
    tile<8, 12, false>(),   // 96
    tile<16, 8, false>(),   // 128
    tile<16, 10, false>(),  // 160
    tile<16, 12, false>(),  // 192
    tile<32, 8, false>(),   // 256
    tile<32, 10, true>(),   // 320
    tile<32, 12, true>(),   // 384
    tile<32, 16, true>(),   // 512
    tile<32, 20, true>(),   // 640
};

struct TileTable {
  const TileKernel* kernels;
  int count;
};

TileTable tile_table() {
  static const TileTable table = [] {
    const char* name = std::getenv("GPP_PAIRHMM_TILES");
    if (name != nullptr && std::string_view(name) == "narrow")
      return TileTable{kNarrowTiles, static_cast<int>(std::size(kNarrowTiles))};
    return TileTable{kDefaultTiles, static_cast<int>(std::size(kDefaultTiles))};
  }();
  return table;
}

const TileKernel* tile_kernels() { return tile_table().kernels; }

}  // namespace

int tile_kernel_count() { return tile_table().count; }

TileKernelInfo tile_kernel_info(int index) { return tile_kernels()[index].info; }

void launch_tile_kernel(int index, const DeviceBatch& batch, const WorkItem* items,
                        std::uint32_t count, Fp64Queue queue, cudaStream_t stream) {
  if (count == 0) return;
  const TileKernel& k = tile_kernels()[index];
  const std::uint32_t per_block = kBlockThreads / k.info.threads_per_read;
  const std::uint32_t blocks = (count + per_block - 1) / per_block;
  k.kernel<<<blocks, kBlockThreads, k.shared_bytes, stream>>>(batch, items, count, queue);
  cuda::check_launch("pairhmm tile kernel");
}

namespace {

// The multi-tile kernel's rows per thread: fewer registers (more resident warps) against more tiles
// (each tile repeats the wavefront's fill and drain and the boundary row's traffic).
// GPP_PAIRHMM_MULTI_K overrides it (for measurements).
using MultiTileFunction = void (*)(DeviceBatch, const WorkItem*, std::uint32_t, Fp64Queue, float2*,
                                   std::uint32_t);
struct MultiTileKernel {
  MultiTileFunction kernel;
  int shared_bytes;
};

template <int K>
MultiTileKernel multi() {
  return {&multi_tile_kernel<32, K>, tile_shared_bytes<K>()};
}

MultiTileKernel multi_tile() {
  static const MultiTileKernel kernel = [] {
    const char* v = std::getenv("GPP_PAIRHMM_MULTI_K");
    const long k = v != nullptr ? std::strtol(v, nullptr, 10) : kMultiTileK;
    if (k == 8) return multi<8>();
    if (k == 12) return multi<12>();
    if (k == 20) return multi<20>();
    return multi<16>();
  }();
  return kernel;
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

// As many subwarps as are resident at once: each loops over the items, so that no block starts
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
