// CPU backend and dispatch of deflate_blocks.
#include "kernels/bgzf/bgzf_deflate.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "kernels/bgzf/detail/deflate_backends.hpp"
#include "kernels/bgzf/detail/deflate_block.hpp"

namespace gpp::kernels {

namespace {

// The CPU backend compresses as it is handed a batch; its "stream" is one batch deep.
constexpr std::size_t kCpuMaxBlocks = 4096;

void deflate_on_cpu(const DeflateBatch& batch) {
  struct Buffers {
    std::vector<std::uint64_t> buckets = std::vector<std::uint64_t>(deflate::kHashEntries);
    std::vector<std::uint32_t> freq =
        std::vector<std::uint32_t>(deflate::kLitLenSymbols + deflate::kDistanceSymbols);
    std::vector<std::uint16_t> codes =
        std::vector<std::uint16_t>(deflate::kLitLenSymbols + deflate::kDistanceSymbols);
    std::vector<std::uint8_t> lengths =
        std::vector<std::uint8_t>(deflate::kLitLenSymbols + deflate::kDistanceSymbols);
    std::vector<std::uint32_t> tokens = std::vector<std::uint32_t>(deflate::kMaxInput + 1);
  };
  oneapi::tbb::enumerable_thread_specific<Buffers> buffers;
  oneapi::tbb::parallel_for(std::size_t{0}, batch.count, [&](std::size_t b) {
    Buffers& local = buffers.local();
    batch.out_sizes[b] = static_cast<std::uint32_t>(deflate::deflate_block(
        batch.data + b * batch.stride, batch.sizes[b], batch.out + b * batch.out_stride,
        batch.out_capacity,
        {local.buckets.data(), local.freq.data(), local.freq.data() + deflate::kLitLenSymbols,
         local.codes.data(), local.lengths.data(), local.tokens.data()}));
  });
}

}  // namespace

BlockDeflater::BlockDeflater(Backend backend, std::uint64_t gpu_host_bytes) : backend_(backend) {
  if (backend != Backend::kGpu) return;
#if defined(GPP_WITH_CUDA)
  gpu_pipeline_ = detail::make_deflate_pipeline_cuda(gpu_host_bytes);
#else
  (void)gpu_host_bytes;
  throw Error("GPU compression requested, but this build has no CUDA");
#endif
}

BlockDeflater::~BlockDeflater() {
  // Batches still on the GPU write into their callers' buffers: finish them first.
  try {
    while (submitted_ > 0) wait_oldest();
  } catch (...) {
  }
}

std::size_t BlockDeflater::max_blocks() const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) return detail::deflate_max_blocks_cuda(gpu_pipeline_.get());
#endif
  return kCpuMaxBlocks;
}

std::size_t BlockDeflater::max_in_flight() const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) return detail::deflate_max_in_flight_cuda(gpu_pipeline_.get());
#endif
  return 1;
}

void BlockDeflater::wait_ready() const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) detail::deflate_wait_ready_cuda(gpu_pipeline_.get());
#endif
}

std::shared_ptr<std::uint8_t[]> BlockDeflater::allocate_host(std::size_t bytes) const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) return detail::allocate_host_cuda(bytes, gpu_pipeline_.get());
#endif
  return std::make_shared_for_overwrite<std::uint8_t[]>(bytes);
}

void BlockDeflater::submit(const DeflateBatch& batch) {
  if (batch.count > max_blocks() || submitted_ >= max_in_flight()) {
    throw Error("BlockDeflater: internal error: batch too large or too many batches in flight");
  }
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) {
    detail::deflate_submit_cuda(batch, gpu_pipeline_.get());
    ++submitted_;
    return;
  }
#endif
  deflate_on_cpu(batch);
  ++submitted_;
}

void BlockDeflater::wait_oldest() {
  if (submitted_ == 0) throw Error("BlockDeflater: internal error: no batch to wait for");
  --submitted_;
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) detail::deflate_wait_oldest_cuda(gpu_pipeline_.get(), gpu_seconds_);
#endif
}

void BlockDeflater::deflate(const DeflateBatch& batch) {
  const std::size_t step = max_blocks();
  for (std::size_t start = 0; start < batch.count; start += step) {
    if (submitted_ == max_in_flight()) wait_oldest();
    DeflateBatch part = batch;
    part.data = batch.data + start * batch.stride;
    part.sizes = batch.sizes + start;
    part.count = std::min(step, batch.count - start);
    part.out = batch.out + start * batch.out_stride;
    part.out_sizes = batch.out_sizes + start;
    submit(part);
  }
  while (submitted_ > 0) wait_oldest();
}

}  // namespace gpp::kernels
