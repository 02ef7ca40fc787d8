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

#include "core/error.hpp"
#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/pairhmm/cuda/pairhmm_cuda_kernels.cuh"

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

TileTable tile_table(TileSet set) {
  if (set == TileSet::kNarrow) {
    return TileTable{kNarrowTiles, static_cast<int>(std::size(kNarrowTiles))};
  }
  return TileTable{kDefaultTiles, static_cast<int>(std::size(kDefaultTiles))};
}

}  // namespace

int tile_kernel_count(TileSet set) { return tile_table(set).count; }

TileKernelInfo tile_kernel_info(TileSet set, int index) {
  return tile_table(set).kernels[index].info;
}

void launch_tile_kernel(TileSet set, int index, const DeviceBatch& batch, const WorkItem* items,
                        std::uint32_t count, Fp64Queue queue, cudaStream_t stream) {
  if (count == 0) return;
  const TileKernel& k = tile_table(set).kernels[index];
  const std::uint32_t per_block = kBlockThreads / k.info.threads_per_read;
  const std::uint32_t blocks = (count + per_block - 1) / per_block;
  k.kernel<<<blocks, kBlockThreads, k.shared_bytes, stream>>>(batch, items, count, queue);
  cuda::check_launch("pairhmm tile kernel");
}

}  // namespace gpp::kernels::pairhmm_cuda
