// The CUDA side of BlockInflater: the GPU pipeline the inflater drives (bgzf_inflate_cuda.cu).
// Not part of the family's public API: only its own sources and white-box tests include this.
#pragma once

#include "kernels/bgzf/bgzf_inflate.hpp"

namespace gpp::kernels {
namespace detail {
/// A pipeline of `slots` parts in flight (BlockInflater::gpu_parts_in_flight: at least 2, at most
/// inflate_slots_cuda()).
std::shared_ptr<void> make_inflate_pipeline_cuda(std::size_t slots);
void inflate_wait_ready_cuda(void* pipeline);
bool inflate_ready_cuda(void* pipeline);
/// Parts in flight of a pipeline without a cap, and of `pipeline`.
std::size_t inflate_slots_cuda();
std::size_t inflate_slots_cuda(const void* pipeline);
void submit_blocks_cuda(const InflateBatch& part, void* pipeline);
/// As BlockInflater::land; adds the part's kernel seconds and the wait for it to `seconds`.
std::size_t land_blocks_cuda(std::uint8_t* out, const std::uint64_t* out_offsets,
                             const BlockInflater::BlockCheck& check, void* pipeline,
                             GpuSeconds& seconds);
}  // namespace detail

}  // namespace gpp::kernels
