// Inflating many BGZF block payloads in one call (kernels/inflate_block.hpp's decoder), on the
// GPU (one warp per block, thousands at once) or, for tests, the CPU. What reading BAM on the GPU
// backend uses to take decompression off the CPU: the bytes are those of any DEFLATE decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/device/device.hpp"

namespace gpp::kernels {

/// Block b's raw DEFLATE stream, in_sizes[b] bytes at data + in_offsets[b], inflates to exactly
/// out_sizes[b] bytes at out + out_offsets[b] (at most 64 KiB); with `crcs`, to bytes whose CRC-32
/// is crcs[b] (a BGZF block's footer), checked where they are inflated.
struct InflateBatch {
  const std::uint8_t* data = nullptr;
  const std::uint64_t* in_offsets = nullptr;
  const std::uint32_t* in_sizes = nullptr;
  std::size_t count = 0;
  std::uint8_t* out = nullptr;
  const std::uint64_t* out_offsets = nullptr;
  const std::uint32_t* out_sizes = nullptr;
  const std::uint32_t* crcs = nullptr;
};

/**
 * @brief Inflates batches on one backend; the GPU keeps its buffers from one call to the next.
 *
 * Blocks go through in parts (up to kPartBlocks blocks whose streams sum to at most
 * kPartStreamBytes). A reader that inflates ahead of its use submits parts, up to in_flight() at a
 * time, and lands the oldest when it wants its bytes: on the GPU each part has a slot of its own
 * (page-locked buffers, device buffers, stream), so the GPU inflates the parts in flight while the
 * caller lands others. inflate() does a whole batch that way. The GPU buffers are allocated on
 * another thread from construction on. One caller at a time.
 */
class BlockInflater {
 public:
  static constexpr std::size_t kMaxBlockBytes = 0x10000;  ///< a BGZF block's contents, at most
  static constexpr std::size_t kPartBlocks = 256;
  static constexpr std::size_t kPartStreamBytes = kPartBlocks * kMaxBlockBytes;
  /// Parts in flight on the GPU, at most (fewer where the device memory is short).
  static constexpr std::size_t kMaxGpuParts = 16;

  /// An inflater on `backend` with at most `max_in_flight` parts in flight on the GPU (at least 2,
  /// at most gpu_parts_in_flight()): each holds 2 x kPartStreamBytes of page-locked host memory.
  explicit BlockInflater(Backend backend, std::size_t max_in_flight = SIZE_MAX);
  ~BlockInflater();
  BlockInflater(const BlockInflater&) = delete;
  BlockInflater& operator=(const BlockInflater&) = delete;

  /// Called for each block once its bytes are in place (from any thread, blocks in any order);
  /// false marks the block bad (a failed checksum).
  using BlockCheck = std::function<bool(std::size_t block)>;

  /// Inflates every block of `batch`; returns the first block that is not a valid DEFLATE stream
  /// of its size, has another CRC-32 than batch.crcs gives or fails `check`, or batch.count when
  /// none. The bytes of a bad block are unspecified. No parts may be in flight.
  std::size_t inflate(const InflateBatch& batch, const BlockCheck& check = {});

  /// Parts submitted and not yet landed, at most.
  std::size_t in_flight() const;
  /// in_flight() of a GPU inflater made with `max_in_flight`, before one is made (0 in a build
  /// without CUDA).
  static std::size_t gpu_parts_in_flight(std::size_t max_in_flight = SIZE_MAX);
  /// Whether submit() would go ahead now rather than wait for the GPU buffers of its part to be
  /// made (they are made one part's at a time; false for good from a failed one on); the CPU
  /// backend always is.
  bool ready() const;
  /// Starts inflating `part` (its out and out_offsets are not used; its crcs, when given, are
  /// checked on the inflated bytes): at most kPartBlocks blocks of at most kMaxBlockBytes
  /// contents, streams summing to at most kPartStreamBytes, and fewer than in_flight() parts
  /// waiting. The streams (and CRCs) are copied before it returns.
  void submit(const InflateBatch& part);
  /// Waits for the oldest submitted part and puts its block k at out + out_offsets[k], calling
  /// `check(k)` once it is there; returns the part's first bad block (bad DEFLATE, another CRC-32
  /// than the part's crcs, or failing `check`), or its count when none.
  /// With out == nullptr the part's bytes are dropped.
  std::size_t land(std::uint8_t* out, const std::uint64_t* out_offsets,
                   const BlockCheck& check = {});

  /// Waits until the GPU buffers are made; rethrows an error in making them.
  void wait_ready() const;

  Backend backend() const { return backend_; }
  /// GPU: seconds spent in the inflate kernels so far (0 on the CPU).
  double kernel_seconds() const { return gpu_seconds_.kernels; }
  /// GPU: the kernels' seconds and the host's waits for them so far (0 on the CPU).
  GpuSeconds gpu_seconds() const { return gpu_seconds_; }

 private:
  struct CpuPart;
  Backend backend_;
  std::shared_ptr<void> gpu_pipeline_;
  std::vector<CpuPart> cpu_parts_;  // oldest first
  GpuSeconds gpu_seconds_;
};

}  // namespace gpp::kernels
