// Backend dispatch of the BQSR kernels; see bqsr.hpp.
#include "kernels/bqsr/bqsr.hpp"

#include <string>

#include "core/error.hpp"
#include "kernels/bqsr/detail/backends.hpp"

namespace gpp::kernels::bqsr {

#ifndef GPP_WITH_CUDA
namespace {
[[noreturn]] void no_cuda() {
  throw Error("bqsr: the GPU backend is not part of this build (built without CUDA)");
}
}  // namespace
#endif

struct QualityRecalibration::Impl {
  RecalibrationModel model;
#ifdef GPP_WITH_CUDA
  std::unique_ptr<detail::CudaRecalibration, void (*)(detail::CudaRecalibration*)> cuda{
      nullptr, detail::destroy_cuda_recalibration};
#endif
};

QualityRecalibration::QualityRecalibration(const RecalibrationModel& model, Backend backend)
    : impl_(std::make_unique<Impl>()) {
  impl_->model = model;
  if (backend == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    impl_->cuda.reset(detail::make_cuda_recalibration(model));
#else
    no_cuda();
#endif
  }
}

QualityRecalibration::~QualityRecalibration() = default;

void QualityRecalibration::recalibrate(const ApplyReads& reads, std::span<std::uint8_t> out) {
  if (out.size() != reads.quals.size() || reads.bases.size() != reads.quals.size() ||
      reads.offsets.size() != reads.read_group.size() + 1 ||
      reads.strand.size() != reads.read_group.size())
    throw Error("bqsr: recalibrate_qualities: inconsistent read arrays");
#ifdef GPP_WITH_CUDA
  if (impl_->cuda) {
    detail::recalibrate_cuda(*impl_->cuda, reads, out);
    return;
  }
#endif
  detail::recalibrate_qualities_host(impl_->model, reads, out);
}

void recalibrate_qualities(const RecalibrationModel& model, const ApplyReads& reads,
                           std::span<std::uint8_t> out, Backend backend) {
  QualityRecalibration(model, backend).recalibrate(reads, out);
}

struct CovariateCounter::Impl {
  CountingShape shape;
  std::vector<std::span<const char>> contigs;
  CovariateCounts host_counts;
#ifdef GPP_WITH_CUDA
  std::unique_ptr<detail::CudaCovariateCounter, void (*)(detail::CudaCovariateCounter*)> cuda{
      nullptr, detail::destroy_cuda_counter};
#endif
};

CovariateCounter::CovariateCounter(const CountingShape& shape, std::size_t contig_count,
                                   Backend backend, CountingMethod method)
    : impl_(std::make_unique<Impl>()) {
  impl_->shape = shape;
  impl_->contigs.resize(contig_count);
  if (backend == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    impl_->cuda.reset(detail::make_cuda_counter(shape, contig_count, method));
    return;
#else
    (void)method;
    no_cuda();
#endif
  }
  impl_->host_counts = detail::empty_counts(shape);
}

CovariateCounter::~CovariateCounter() = default;

void CovariateCounter::set_contig(std::size_t t, std::span<const char> bases) {
  if (t >= impl_->contigs.size())
    throw Error("bqsr: CovariateCounter::set_contig: no contig " + std::to_string(t));
  impl_->contigs[t] = bases;
#ifdef GPP_WITH_CUDA
  if (impl_->cuda) detail::set_contig_cuda(*impl_->cuda, t, bases);
#endif
}

void CovariateCounter::count(const CountingChunk& chunk) {
  if (chunk.bases.size() != chunk.quals.size() || chunk.first_base.size() != chunk.size() ||
      chunk.read_group.size() != chunk.size() || chunk.strand.size() != chunk.size() ||
      chunk.contig.size() != chunk.size() || chunk.ref_start.size() != chunk.size() ||
      chunk.cigar_offset.size() != chunk.size() + 1 ||
      chunk.known_offset.size() != chunk.size() + 1)
    throw Error("bqsr: CovariateCounter::count: inconsistent chunk arrays");
  if (chunk.bases.size() >= (std::size_t{1} << 32))
    throw Error("bqsr: CovariateCounter::count: more than 2^32 - 1 bases in one chunk");
#ifdef GPP_WITH_CUDA
  if (impl_->cuda) {
    detail::count_chunk_cuda(*impl_->cuda, chunk);
    return;
  }
#endif
  detail::count_chunk_host(impl_->shape, impl_->contigs, chunk, impl_->host_counts);
}

CovariateCounts CovariateCounter::finish() {
#ifdef GPP_WITH_CUDA
  if (impl_->cuda) return detail::finish_cuda(*impl_->cuda);
#endif
  return std::move(impl_->host_counts);
}

}  // namespace gpp::kernels::bqsr
