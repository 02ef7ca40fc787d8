// The CUDA side of BlockDeflater: the GPU pipeline the deflater drives (bgzf_deflate_cuda.cu).
// Not part of the family's public API: only its own sources and white-box tests include this.
#pragma once

#include "kernels/bgzf/bgzf_deflate.hpp"

namespace gpp::kernels {
namespace detail {
/// A pipeline holding about `host_bytes` of page-locked host memory at most (BlockDeflater's).
std::shared_ptr<void> make_deflate_pipeline_cuda(std::uint64_t host_bytes);
std::size_t deflate_max_blocks_cuda(void* pipeline);
std::size_t deflate_max_in_flight_cuda(void* pipeline);
void deflate_wait_ready_cuda(void* pipeline);
std::shared_ptr<std::uint8_t[]> allocate_host_cuda(std::size_t bytes, void* pipeline);
void deflate_submit_cuda(const DeflateBatch& batch, void* pipeline);
/// Completes the oldest batch; adds its kernel's seconds and the wait for it to `seconds`.
void deflate_wait_oldest_cuda(void* pipeline, GpuSeconds& seconds);
}  // namespace detail

}  // namespace gpp::kernels
