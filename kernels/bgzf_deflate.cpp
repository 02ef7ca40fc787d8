// CPU backend and dispatch of deflate_blocks.
#include "kernels/bgzf_deflate.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <vector>

#include "kernels/deflate_block.hpp"
#include "kernels/error.hpp"

namespace gpp::kernels {

BlockDeflater::BlockDeflater(Backend backend) : backend_(backend) {
  if (backend != Backend::kGpu) return;
#if defined(GPP_WITH_CUDA)
  gpu_buffers_ = detail::make_deflate_buffers_cuda();
#else
  throw Error("GPU compression requested, but this build has no CUDA");
#endif
}

void BlockDeflater::deflate(const DeflateBatch& batch) {
#if defined(GPP_WITH_CUDA)
  if (backend_ == Backend::kGpu) {
    kernel_seconds_ = detail::deflate_blocks_cuda(batch, gpu_buffers_.get());
    return;
  }
#endif
  struct Buffers {
    std::vector<std::uint64_t> buckets = std::vector<std::uint64_t>(deflate::kHashEntries);
    std::vector<std::uint32_t> freq = std::vector<std::uint32_t>(deflate::kLitLenSymbols + deflate::kDistanceSymbols);
    std::vector<std::uint16_t> codes = std::vector<std::uint16_t>(deflate::kLitLenSymbols + deflate::kDistanceSymbols);
    std::vector<std::uint8_t> lengths = std::vector<std::uint8_t>(deflate::kLitLenSymbols + deflate::kDistanceSymbols);
    std::vector<std::uint32_t> tokens = std::vector<std::uint32_t>(deflate::kMaxInput + 1);
  };
  oneapi::tbb::enumerable_thread_specific<Buffers> buffers;
  oneapi::tbb::parallel_for(std::size_t{0}, batch.count, [&](std::size_t b) {
    Buffers& local = buffers.local();
    batch.out_sizes[b] = static_cast<std::uint32_t>(
        deflate::deflate_block(batch.data + b * batch.stride, batch.sizes[b], batch.out + b * batch.out_stride,
                               batch.out_capacity,
                               {local.buckets.data(), local.freq.data(), local.freq.data() + deflate::kLitLenSymbols,
                                local.codes.data(), local.lengths.data(), local.tokens.data()}));
  });
}

}  // namespace gpp::kernels
