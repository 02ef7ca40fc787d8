// CUDA kDense counting: atomic increments. The quality and context tables of a block live in
// shared memory when they fit (32-bit counters, flushed to the global tables when the block
// ends); cycle bins are counted in global memory.
#include "kernels/bqsr/cuda/bqsr_count_cuda.cuh"

namespace gpp::kernels::bqsr::detail {

namespace {

/// kDense with the quality and context tables of the block in shared memory (32-bit counters:
/// a chunk has fewer than 2^32 bases), entry rq * (1 + context_slots) + (0 | 1 + key).
struct SharedDenseSink {
  const CountingShape& shape;
  DenseTables global;
  unsigned* observations;
  unsigned* errors;
  __device__ void add(int rg, int q, int context, int cycle, bool mismatch, std::uint64_t) {
    const long long rq = static_cast<long long>(rg) * kQualCount + q;
    const long long row = rq * (1 + shape.context_slots);
    atomicAdd(&observations[row], 1u);
    if (mismatch) atomicAdd(&errors[row], 1u);
    if (context >= 0) {
      atomicAdd(&observations[row + 1 + context], 1u);
      if (mismatch) atomicAdd(&errors[row + 1 + context], 1u);
    }
    atomicAdd(&global.cycle_observations[rq * shape.cycle_slots + cycle], 1ull);
    if (mismatch) atomicAdd(&global.cycle_errors[rq * shape.cycle_slots + cycle], 1ull);
  }
};

/// kDense straight into the global tables (when the block tables do not fit in shared memory).
struct GlobalDenseSink {
  const CountingShape& shape;
  DenseTables global;
  __device__ void add(int rg, int q, int context, int cycle, bool mismatch, std::uint64_t) {
    const long long rq = static_cast<long long>(rg) * kQualCount + q;
    atomicAdd(&global.quality_observations[rq], 1ull);
    if (mismatch) atomicAdd(&global.quality_errors[rq], 1ull);
    if (context >= 0) {
      atomicAdd(&global.context_observations[rq * shape.context_slots + context], 1ull);
      if (mismatch) atomicAdd(&global.context_errors[rq * shape.context_slots + context], 1ull);
    }
    atomicAdd(&global.cycle_observations[rq * shape.cycle_slots + cycle], 1ull);
    if (mismatch) atomicAdd(&global.cycle_errors[rq * shape.cycle_slots + cycle], 1ull);
  }
};

template <bool kShared>
__global__ void count_dense_kernel(CountingShape shape, DeviceChunk chunk,
                                   DeviceReference reference, DenseTables tables) {
  if constexpr (kShared) {
    extern __shared__ unsigned block_tables[];
    const int entries = shape.read_groups * kQualCount * (1 + shape.context_slots);
    for (int i = threadIdx.x; i < 2 * entries; i += blockDim.x) block_tables[i] = 0;
    __syncthreads();
    SharedDenseSink sink{shape, tables, block_tables, block_tables + entries};
    count_reads(shape, chunk, reference, sink);
    __syncthreads();
    for (int i = threadIdx.x; i < entries; i += blockDim.x) {
      const long long rq = i / (1 + shape.context_slots);
      const int slot = i % (1 + shape.context_slots);
      unsigned long long* obs =
          slot == 0 ? tables.quality_observations + rq
                    : tables.context_observations + rq * shape.context_slots + (slot - 1);
      unsigned long long* err = slot == 0
                                    ? tables.quality_errors + rq
                                    : tables.context_errors + rq * shape.context_slots + (slot - 1);
      if (block_tables[i] != 0) atomicAdd(obs, static_cast<unsigned long long>(block_tables[i]));
      if (block_tables[entries + i] != 0)
        atomicAdd(err, static_cast<unsigned long long>(block_tables[entries + i]));
    }
  } else {
    GlobalDenseSink sink{shape, tables};
    count_reads(shape, chunk, reference, sink);
  }
}

/// Bit layout of the sort-reduce keys, from the least significant bit: error (1), covariate key,
/// quality (7), read group, table (2: quality 0, context 1, cycle 2; 3 = unused slot).

}  // namespace

void count_dense_chunk(const CountingShape& shape, const DeviceChunk& chunk,
                       const DeviceReference& reference, const DenseTables& tables,
                       cudaStream_t stream) {
  // Block tables in shared memory when they leave room for two blocks per multiprocessor.
  constexpr std::size_t kMaxSharedBytes = 100 * 1024;
  const std::size_t shared_bytes = 2 * sizeof(unsigned) *
                                   static_cast<std::size_t>(shape.read_groups) * kQualCount *
                                   (1 + static_cast<std::size_t>(shape.context_slots));
  if (shared_bytes <= kMaxSharedBytes) {
    cuda::check(
        cudaFuncSetAttribute(count_dense_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared_bytes)),
        "allow shared memory for the count tables");
    const int blocks =
        cuda::resident_blocks(count_dense_kernel<true>, kWarpKernelThreads, shared_bytes);
    count_dense_kernel<true>
        <<<blocks, kWarpKernelThreads, shared_bytes, stream>>>(shape, chunk, reference, tables);
  } else {
    const int blocks = cuda::resident_blocks(count_dense_kernel<false>, kWarpKernelThreads);
    count_dense_kernel<false>
        <<<blocks, kWarpKernelThreads, 0, stream>>>(shape, chunk, reference, tables);
  }
  cuda::check_launch("count_dense_kernel");
}

}  // namespace gpp::kernels::bqsr::detail
