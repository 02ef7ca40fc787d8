// DEFLATE compression of many BGZF block payloads in one call (kernels/deflate_block.hpp's
// encoder), on the CPU (oneTBB) or the GPU (one warp per block). What `--gpu-write` uses to
// take BAM compression off the CPU; the output inflates with any DEFLATE decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/device.hpp"

namespace gpp::kernels {

/// Block b's `sizes[b]` bytes (at most 64 KiB) at data + b * stride become a raw DEFLATE stream
/// at out + b * out_stride of at most `out_capacity` bytes; out_sizes[b] = 0 when it did not fit.
struct DeflateBatch {
  const std::uint8_t* data = nullptr;
  std::size_t stride = 0;
  const std::uint32_t* sizes = nullptr;
  std::size_t count = 0;
  std::uint8_t* out = nullptr;
  std::size_t out_stride = 0;
  std::size_t out_capacity = 0;
  std::uint32_t* out_sizes = nullptr;
};

/// Compresses batches on one backend; the GPU keeps its buffers from one batch to the next.
class BlockDeflater {
 public:
  explicit BlockDeflater(Backend backend);
  void deflate(const DeflateBatch& batch);
  Backend backend() const { return backend_; }
  /// GPU: seconds spent in the compression kernels during the last deflate() (0 on the CPU).
  double last_kernel_seconds() const { return kernel_seconds_; }

 private:
  Backend backend_;
  std::shared_ptr<void> gpu_buffers_;
  double kernel_seconds_ = 0;
};

/// One batch, without keeping buffers.
inline void deflate_blocks(const DeflateBatch& batch, Backend backend) { BlockDeflater(backend).deflate(batch); }

namespace detail {
std::shared_ptr<void> make_deflate_buffers_cuda();
/// Returns the seconds spent in the compression kernels.
double deflate_blocks_cuda(const DeflateBatch& batch, void* buffers);
}  // namespace detail

}  // namespace gpp::kernels
