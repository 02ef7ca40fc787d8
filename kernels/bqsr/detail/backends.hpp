// The BQSR backends behind kernels::bqsr: host model functions and the CUDA recalibrator and
// counter. Not part of the family's public API: only its own sources and white-box tests include
// this.
#pragma once

#include "kernels/bqsr/bqsr.hpp"

namespace gpp::kernels::bqsr {
namespace detail {
/// Dense tables of `shape`, zeroed.
CovariateCounts empty_counts(const CountingShape& shape);
void recalibrate_qualities_host(const RecalibrationModel& model, const ApplyReads& reads,
                                std::span<std::uint8_t> out);
void count_chunk_host(const CountingShape& shape, std::span<const std::span<const char>> contigs,
                      const CountingChunk& chunk, CovariateCounts& counts);
#ifdef GPP_WITH_CUDA
/// The CUDA recalibration's device state; defined in bqsr_apply_cuda.cu, released with
/// destroy_cuda_recalibration.
class CudaRecalibration;
CudaRecalibration* make_cuda_recalibration(const RecalibrationModel& model);
void recalibrate_cuda(CudaRecalibration& recalibration, const ApplyReads& reads,
                      std::span<std::uint8_t> out);
void destroy_cuda_recalibration(CudaRecalibration* recalibration);
/// The CUDA counter's device state; defined in bqsr_count_cuda.cu. make_cuda_counter's result is
/// owned by the caller and released with destroy_cuda_counter.
class CudaCovariateCounter;
CudaCovariateCounter* make_cuda_counter(const CountingShape& shape, std::size_t contig_count,
                                        CountingMethod method);
void set_contig_cuda(CudaCovariateCounter& counter, std::size_t t, std::span<const char> bases);
void count_chunk_cuda(CudaCovariateCounter& counter, const CountingChunk& chunk);
CovariateCounts finish_cuda(CudaCovariateCounter& counter);
void destroy_cuda_counter(CudaCovariateCounter* counter);
#endif
}  // namespace detail

}  // namespace gpp::kernels::bqsr
