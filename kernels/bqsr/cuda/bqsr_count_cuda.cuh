// Shared by the CUDA counting files: the chunk as the device sees it, and the warp-per-read walk
// that finds the bases to count (one warp per clipped read: the warp walks the clipped CIGAR; in
// each read-consuming operation every lane takes every 32nd base, tests it against the reference
// (aligned operations only), skips non-ACGT, low-quality and known-site bases, and computes its
// context and cycle keys with the rules of bqsr_core.hpp).
#pragma once

#include <cuda_runtime.h>

#include "kernels/bqsr/bqsr.hpp"
#include "kernels/bqsr/cuda/bqsr_cuda_common.cuh"

namespace gpp::kernels::bqsr::detail {

struct DeviceChunk {
  const char* bases;
  const std::uint8_t* quals;
  const std::uint64_t* first_base;
  const std::uint32_t* length;
  const std::int32_t* read_group;
  const std::uint8_t* strand;
  const std::int32_t* contig;
  const std::int64_t* ref_start;
  const std::uint32_t* cigar_offset;
  const std::uint32_t* cigar;
  const std::uint32_t* known_offset;
  const std::uint32_t* known;
  std::size_t reads;
};

struct DeviceReference {
  const char* const* bases;    ///< per contig (null for a contig not given)
  const std::int64_t* length;  ///< per contig
};

__device__ __forceinline__ bool consumes_read(std::uint32_t op) {
  return op == 0 || op == 1 || op == 4 || op == 7 || op == 8;
}
__device__ __forceinline__ bool consumes_reference(std::uint32_t op) {
  return op == 0 || op == 2 || op == 3 || op == 7 || op == 8;
}

/// Walks the reads of the chunk assigned to this warp and hands every counted base to `sink`:
/// sink.add(rg, q, context_key, cycle_key, mismatch, base position in the chunk).
template <typename Sink>
__device__ void count_reads(const CountingShape& shape, const DeviceChunk& chunk,
                            const DeviceReference& reference, Sink& sink) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * (blockDim.x / 32);
  for (std::size_t r = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
       r < chunk.reads; r += warps) {
    const int length = static_cast<int>(chunk.length[r]);
    const std::uint64_t first = chunk.first_base[r];
    const char* bases = chunk.bases + first;
    const std::uint8_t* quals = chunk.quals + first;
    const GoodBases good = warp_good_bases(quals, length, shape.low_quality_tail, lane);
    const int rg = chunk.read_group[r];
    const std::uint8_t strand = chunk.strand[r];
    const int contig = chunk.contig[r];
    const char* ref = reference.bases[contig];
    const std::int64_t ref_length = reference.length[contig];
    const std::uint32_t known_begin = chunk.known_offset[r];
    const std::uint32_t known_end = chunk.known_offset[r + 1];
    int read_pos = 0;
    std::int64_t ref_pos = chunk.ref_start[r];
    for (std::uint32_t c = chunk.cigar_offset[r]; c < chunk.cigar_offset[r + 1]; ++c) {
      const std::uint32_t op = chunk.cigar[c] & 0xF;
      const int op_length = static_cast<int>(chunk.cigar[c] >> 4);
      if (consumes_read(op)) {
        const bool aligned = consumes_reference(op);  // M, =, X among read-consuming ops
        for (int k = lane; k < op_length; k += 32) {
          const int offset = read_pos + k;
          const int b = base_code(bases[offset]);
          const int q = quals[offset];
          if (b < 0 || q < kMinUsableQ) continue;
          bool known = false;
          for (std::uint32_t j = known_begin; j < known_end; ++j)
            known |= static_cast<std::uint32_t>(offset) >= chunk.known[2 * j] &&
                     static_cast<std::uint32_t>(offset) < chunk.known[2 * j + 1];
          if (known) continue;
          bool mismatch = false;
          if (aligned) {
            const std::int64_t p = ref_pos + k;
            mismatch = b != base_code(p < ref_length ? ref[p] : 'N');
          }
          const int context = context_key_at(bases, length, good, strand & kReverseStrand,
                                             shape.context_size, offset);
          sink.add(rg, q < kQualCount ? q : kQualCount - 1, context,
                   cycle_key_at(length, strand, offset), mismatch, first + offset);
        }
        read_pos += op_length;
      }
      if (consumes_reference(op)) ref_pos += op_length;
    }
  }
}

/// The dense count tables in device memory (layout of CovariateCounts).
struct DenseTables {
  unsigned long long* quality_observations;
  unsigned long long* quality_errors;
  unsigned long long* context_observations;
  unsigned long long* context_errors;
  unsigned long long* cycle_observations;
  unsigned long long* cycle_errors;
};

/// kDense: counts the chunk's bases into `tables` by atomic increments (asynchronous on `stream`).
void count_dense_chunk(const CountingShape& shape, const DeviceChunk& chunk,
                       const DeviceReference& reference, const DenseTables& tables,
                       cudaStream_t stream);

/// kSortReduce: keys of the chunk's `bases` bases sorted and run-length encoded on the GPU, runs
/// added to `counts` on the host (waits for the GPU).
void count_sorted_chunk(const CountingShape& shape, const DeviceChunk& chunk,
                        const DeviceReference& reference, std::size_t bases, cudaStream_t stream,
                        CovariateCounts& counts);

}  // namespace gpp::kernels::bqsr::detail
