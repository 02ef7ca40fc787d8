// CUDA PairHMM: the device-side view of a batch chunk, the work lists, and the kernel launchers
// shared by the engine (pairhmm_cuda.cu) and the kernel translation units (pairhmm_cuda_*.cu).
//
// Work is one read against all haplotypes of its region (a "work item"); reads are binned by
// length, and each bin runs the single-tile kernel whose tile (threads x rows per thread) is the
// smallest that holds the read. Longer reads run the multi-tile kernel. Pairs that fail GKL's fp32
// test (or whose qualities the fp32 formulation cannot take) are queued on the device and
// recomputed by the fp64 kernel in the same stream, without a round trip to the host.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/pairhmm/detail/pairhmm_model.hpp"
#include "kernels/pairhmm/detail/pairhmm_plan.hpp"

namespace gpp::kernels::pairhmm_cuda {

using pairhmm_plan::kHapPad;
using pairhmm_plan::WorkItem;
inline constexpr int kBlockThreads = 64;  // two warps: small blocks pack SMs evenly

/// One chunk of a batch on the device. Read columns and offsets are relative to the chunk.
struct DeviceBatch {
  const char* bases = nullptr;
  const std::uint8_t* base_quals = nullptr;
  const std::uint8_t* ins_quals = nullptr;
  const std::uint8_t* del_quals = nullptr;
  const std::uint8_t* gcp_quals = nullptr;
  const std::uint32_t* read_offsets = nullptr;  ///< reads + 1
  const std::uint8_t* hap_codes = nullptr;      ///< padded codes (kHapPad separators around each)
  /// Per padded position p, the codes of p .. p + 3 (byte k: p + k; past the end: separators):
  /// the tile kernels load 4 steps' codes at once.
  const std::uint32_t* hap_words = nullptr;
  const std::uint32_t* hap_starts = nullptr;  ///< index of each haplotype's first code
  const std::uint32_t* hap_lengths = nullptr;
  const pairhmm::QualityTables* tables = nullptr;
  /// Per read position (chunk-relative), the fp32 unit coefficients of its row (prepare kernel):
  /// lambda~ match, lambda~ mismatch, u, v, c, d and two unused floats.
  const float4* coefficients = nullptr;
  const int* exponents = nullptr;  ///< per read: the fp32 exponent, 0 when fp32 cannot take it
  const float* carry = nullptr;    ///< per read: c of the carry row m + 1
  double* results = nullptr;       ///< log10 likelihoods of the chunk's pairs
};

/// A pair for the fp64 kernel.
struct Fp64Pair {
  std::uint32_t read;
  std::uint32_t hap;
  std::uint32_t result;
  std::uint32_t unused;
};

/// Device-side queue of fp64 pairs (count in device memory, capacity = the chunk's pairs).
struct Fp64Queue {
  Fp64Pair* pairs = nullptr;
  std::uint32_t* count = nullptr;
};

/// A single-tile fp32 kernel: reads of length <= max_length.
struct TileKernelInfo {
  int threads_per_read;  ///< P, the subwarp
  int rows_per_thread;   ///< K
  int max_length;        ///< P * K
  bool fused;            ///< fused (unbiased for long reads) or 5-operation form
};

/// The tables of single-tile kernels: the default one, or one of at most 12 rows per thread below
/// 320 bases (PairHmmTuning::gpu_narrow_tiles).
enum class TileSet { kDefault, kNarrow };
/// The single-tile kernels of a table, by increasing max_length.
int tile_kernel_count(TileSet set);
TileKernelInfo tile_kernel_info(TileSet set, int index);
/// Launches single-tile kernel `index` of the table over items[0, count).
void launch_tile_kernel(TileSet set, int index, const DeviceBatch& batch, const WorkItem* items,
                        std::uint32_t count, Fp64Queue queue, cudaStream_t stream);

/// Multi-tile fp32 kernel for reads longer than the longest single tile. `scratch` holds, per slot,
/// `scratch_per_slot` float2 (the sum of the item's haplotype lengths, each plus
/// pairhmm_plan::kBoundaryPad); `slots` warps loop over the items.
/// Rows per thread of the multi-tile kernel (32 threads per read).
inline constexpr int kMultiTileK = 16;
void launch_multi_tile_kernel(const DeviceBatch& batch, const WorkItem* items, std::uint32_t count,
                              Fp64Queue queue, float2* scratch, std::uint32_t scratch_per_slot,
                              std::uint32_t slots, cudaStream_t stream);
/// Warps (slots) the multi-tile kernel runs as at most.
std::uint32_t multi_tile_slots(int multiprocessors);

/// fp64 kernel over the queued pairs; `scratch` holds `max_hap_length` double2 per slot.
void launch_fp64_kernel(const DeviceBatch& batch, Fp64Queue queue, double2* scratch,
                        std::uint32_t max_hap_length, std::uint32_t slots, cudaStream_t stream);
std::uint32_t fp64_slots(int multiprocessors);

/// Computes every read's fp32 coefficients, exponent and carry coefficient (one warp per read).
void launch_prepare_reads(const DeviceBatch& batch, std::uint32_t reads, float4* coefficients,
                          int* exponents, float* carry, cudaStream_t stream);

/// Queues every pair of the items for the fp64 kernel (--precision double).
void launch_queue_all_pairs(const WorkItem* items, std::uint32_t count, Fp64Queue queue,
                            cudaStream_t stream);

/// Writes the padded haplotype codes from the chunk's haplotype bases, and their words (see
/// DeviceBatch::hap_words).
void launch_encode_haplotypes(const char* bases, const std::uint32_t* base_offsets,
                              std::uint32_t haplotypes, std::uint8_t* codes, std::uint32_t* words,
                              const std::uint32_t* starts, std::uint32_t padded_size,
                              cudaStream_t stream);

}  // namespace gpp::kernels::pairhmm_cuda
