// DEFLATE compression of many BGZF block payloads in one call (kernels/deflate_block.hpp's
// encoder), on the CPU (oneTBB) or the GPU (one warp per block). What `--gpu-write` uses to
// take BAM compression off the CPU; the output inflates with any DEFLATE decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "kernels/device/device.hpp"

namespace gpp::kernels {

/// Block b's `sizes[b]` bytes (at most 64 KiB) at data + b * stride (the data spans count * stride
/// bytes) become a raw DEFLATE stream at out + b * out_stride of at most `out_capacity` bytes;
/// out_sizes[b] = 0 when it did not fit.
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

/**
 * @brief Compresses batches on one backend; the GPU keeps its buffers from one batch to the next.
 *
 * Used as a stream, the GPU stays busy while the host prepares the next batch and consumes the
 * last one: submit() starts a batch of at most max_blocks() blocks and returns; wait_oldest()
 * completes the oldest batch not yet waited for (its out and out_sizes are then filled). At most
 * max_in_flight() batches are submitted and not waited for; their buffers stay untouched by the
 * caller until then. Batches whose data lies in memory from allocate_host() go to the GPU
 * without a host copy. The GPU buffers, and a staging buffer for one caller at a time, are
 * allocated on another thread from construction on: made early, they are ready when needed.
 * The CPU backend compresses in submit() itself.
 */
class BlockDeflater {
 public:
  /// Page-locked host memory the GPU pipeline takes at most (besides what data from outside
  /// allocate_host() is copied through, and what allocate_host() gives a second holder at once).
  static constexpr std::uint64_t kMostGpuHostBytes = std::uint64_t{1} << 30;

  /// A deflater on `backend`; on the GPU its page-locked host buffers (a staging batch for each
  /// batch in flight and one for the streams coming back, 64 KiB a block: kMostGpuHostBytes for
  /// three batches of 4,096 blocks) stay within `gpu_host_bytes`: fewer batches in flight first
  /// (down to one), then fewer blocks per batch (down to 64).
  explicit BlockDeflater(Backend backend,
                         std::uint64_t gpu_host_bytes = std::numeric_limits<std::uint64_t>::max());
  ~BlockDeflater();
  BlockDeflater(const BlockDeflater&) = delete;
  BlockDeflater& operator=(const BlockDeflater&) = delete;

  /// Compresses a batch of any size before returning.
  void deflate(const DeflateBatch& batch);

  std::size_t max_blocks() const;
  std::size_t max_in_flight() const;
  /// Host memory for batch data: page-locked on the GPU backend.
  std::shared_ptr<std::uint8_t[]> allocate_host(std::size_t bytes) const;
  void submit(const DeflateBatch& batch);
  void wait_oldest();

  /// Waits until the buffers are made; rethrows an error in making them.
  void wait_ready() const;

  Backend backend() const { return backend_; }
  /// GPU: seconds spent in the compression kernels of the batches completed so far (0 on the CPU).
  double kernel_seconds() const { return gpu_seconds_.kernels; }
  /// GPU: the kernels' seconds and the host's waits for them so far (0 on the CPU).
  GpuSeconds gpu_seconds() const { return gpu_seconds_; }

 private:
  Backend backend_;
  std::shared_ptr<void> gpu_pipeline_;
  std::size_t submitted_ = 0;  // submitted and not yet waited for
  GpuSeconds gpu_seconds_;
};

/// One batch, without keeping buffers.
inline void deflate_blocks(const DeflateBatch& batch, Backend backend) {
  BlockDeflater(backend).deflate(batch);
}

}  // namespace gpp::kernels
