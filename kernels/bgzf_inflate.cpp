// CPU backend and dispatch of BlockInflater.
#include "kernels/bgzf_inflate.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "kernels/error.hpp"
#include "kernels/first_failure.hpp"
#include "kernels/inflate_block.hpp"

namespace gpp::kernels {

namespace {

std::size_t inflate_on_cpu(const InflateBatch& batch, const BlockInflater::BlockCheck& check) {
  FirstFailure first_bad(batch.count);
  oneapi::tbb::enumerable_thread_specific<inflate::Tables> tables;
  oneapi::tbb::parallel_for(std::size_t{0}, batch.count, [&](std::size_t b) {
    const bool ok = inflate::inflate_stream(batch.data + batch.in_offsets[b], batch.in_sizes[b],
                                            batch.out + batch.out_offsets[b], batch.out_sizes[b],
                                            tables.local()) == inflate::Status::kOk &&
                    (!check || check(b));
    if (!ok) first_bad.report(b);
  });
  return first_bad.get();
}

}  // namespace

BlockInflater::BlockInflater(Backend backend) : backend_(backend) {
  if (backend != Backend::kGpu) return;
#if defined(GPP_WITH_CUDA)
  gpu_pipeline_ = detail::make_inflate_pipeline_cuda();
#else
  throw Error("GPU decompression requested, but this build has no CUDA");
#endif
}

BlockInflater::~BlockInflater() = default;

void BlockInflater::wait_ready() const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) detail::inflate_wait_ready_cuda(gpu_pipeline_.get());
#endif
}

std::size_t BlockInflater::inflate(const InflateBatch& batch, const BlockCheck& check) {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) return detail::inflate_blocks_cuda(batch, check, gpu_pipeline_.get(), kernel_seconds_);
#endif
  return inflate_on_cpu(batch, check);
}

}  // namespace gpp::kernels
