// The PairHMM backends behind PairHmm: batch validation, result layout, engine factories, and the
// CPU emulations of the CUDA wavefronts that tests use where no GPU is present.
// Not part of the family's public API: only its own sources and white-box tests include this.
#pragma once

#include "kernels/pairhmm/pairhmm.hpp"

namespace gpp::kernels {
namespace detail {
/// Throws gpp::Error naming the first inconsistency of `batch`: validate_pairhmm_batch_shape, then
/// validate_pairhmm_offsets over every read and haplotype.
void validate_pairhmm_batch(const PairHmmBatchView& batch);
/// What PairHmm::compute checks before the engine starts (it walks the groups, not the reads):
/// column sizes, offsets that start at 0 and end at their column's size, groups within the reads
/// and haplotypes.
void validate_pairhmm_batch_shape(const PairHmmBatchView& batch);
/// Reads [read_begin, read_end) and haplotypes [hap_begin, hap_end) are not empty. An engine
/// checks a range before it reads the range's columns: the CUDA engine chunk by chunk, just
/// before packing it, so that the GPU starts sooner and the packing finds the offsets in cache.
void validate_pairhmm_offsets(const PairHmmBatchView& batch, std::size_t read_begin,
                              std::size_t read_end, std::size_t hap_begin, std::size_t hap_end);
/// result_offset(g) for every group, plus the total as the last entry.
std::vector<std::uint64_t> pairhmm_result_offsets(std::span<const PairHmmGroup> groups);

std::unique_ptr<PairHmm::Engine> make_pairhmm_cpu_engine(PairHmmPrecision precision,
                                                         const PairHmmTuning& tuning);
std::unique_ptr<PairHmm::Engine> make_pairhmm_cuda_engine(PairHmmPrecision precision,
                                                          const PairHmmTuning& tuning);

/// CUDA builds: the fp32 wavefront of the CUDA kernels run on the CPU (one simulated subwarp of
/// `threads` threads x `rows` rows, reads longer than a tile through the multi-tile boundary
/// logic), in result order; pairs the GPU would recompute in fp64 are NaN. For tests without a GPU.
/// Shapes: rows 8 or 14 (5-operation form), 16 or 20 (fused form).
/// CUDA builds: the fp64 kernel's wavefront (tiles, boundary rescaling) run on the CPU for every
/// pair, in result order. For tests without a GPU.
std::vector<double> pairhmm_emulate_cuda_fp64(const PairHmmBatchView& batch);
std::vector<double> pairhmm_emulate_cuda_wavefront(const PairHmmBatchView& batch, int threads,
                                                   int rows, bool fused);
}  // namespace detail

}  // namespace gpp::kernels
