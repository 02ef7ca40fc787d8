// Inflating many BGZF block payloads in one call (kernels/inflate_block.hpp's decoder), on the
// GPU (one warp per block, thousands at once) or, for tests, the CPU. What reading BAM on the GPU
// backend uses to take decompression off the CPU: the bytes are those of any DEFLATE decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "kernels/device.hpp"

namespace gpp::kernels {

/// Block b's raw DEFLATE stream, in_sizes[b] bytes at data + in_offsets[b], inflates to exactly
/// out_sizes[b] bytes at out + out_offsets[b] (at most 64 KiB).
struct InflateBatch {
  const std::uint8_t* data = nullptr;
  const std::uint64_t* in_offsets = nullptr;
  const std::uint32_t* in_sizes = nullptr;
  std::size_t count = 0;
  std::uint8_t* out = nullptr;
  const std::uint64_t* out_offsets = nullptr;
  const std::uint32_t* out_sizes = nullptr;
};

/**
 * @brief Inflates batches on one backend; the GPU keeps its buffers from one call to the next.
 *
 * On the GPU a call is cut into parts that go through the GPU one behind the other (the host
 * copies one part's streams in and another's bytes out while the GPU inflates a third), and the
 * GPU buffers are allocated on another thread from construction on. One caller at a time.
 */
class BlockInflater {
 public:
  explicit BlockInflater(Backend backend);
  ~BlockInflater();
  BlockInflater(const BlockInflater&) = delete;
  BlockInflater& operator=(const BlockInflater&) = delete;

  /// Called for each block once its bytes are in place (from any thread, blocks in any order);
  /// false marks the block bad (a failed checksum).
  using BlockCheck = std::function<bool(std::size_t block)>;

  /// Inflates every block of `batch`; returns the first block that is not a valid DEFLATE stream
  /// of its size or fails `check`, or batch.count when none. The bytes of a bad block are unspecified.
  std::size_t inflate(const InflateBatch& batch, const BlockCheck& check = {});

  /// Waits until the GPU buffers are made; rethrows an error in making them.
  void wait_ready() const;

  Backend backend() const { return backend_; }
  /// GPU: seconds spent in the inflate kernels so far (0 on the CPU).
  double kernel_seconds() const { return kernel_seconds_; }

 private:
  Backend backend_;
  std::shared_ptr<void> gpu_pipeline_;
  double kernel_seconds_ = 0;
};

namespace detail {
std::shared_ptr<void> make_inflate_pipeline_cuda();
void inflate_wait_ready_cuda(void* pipeline);
/// Returns the first bad block (or batch.count); adds the kernels' seconds to `kernel_seconds`.
std::size_t inflate_blocks_cuda(const InflateBatch& batch, const BlockInflater::BlockCheck& check, void* pipeline,
                                double& kernel_seconds);
}  // namespace detail

}  // namespace gpp::kernels
