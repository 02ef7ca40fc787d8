// BlockInflater: how io/ hands BGZF blocks to a decompressor elsewhere than the CPU's threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace gpp::io {

/**
 * @brief Where BAM blocks are inflated when not on the CPU's threads (a GPU; the pipeline supplies
 * it, io/ does not know the device). A job's block b holds the raw DEFLATE stream of in_sizes[b]
 * bytes at data + in_offsets[b], which inflates to exactly out_sizes[b] bytes at
 * out + out_offsets[b]; `inflate` calls `check(b)` for each block once its bytes are in place
 * (false: a bad checksum) and returns the first bad block, or job.count when none.
 */
struct BlockInflater {
  struct Job {
    const std::uint8_t* data;
    const std::uint64_t* in_offsets;
    const std::uint32_t* in_sizes;
    std::size_t count;
    std::uint8_t* out;
    const std::uint64_t* out_offsets;
    const std::uint32_t* out_sizes;
  };
  using Check = std::function<bool(std::size_t block)>;
  std::function<std::size_t(const Job&, const Check& check)> inflate;
  explicit operator bool() const { return static_cast<bool>(inflate); }
};

}  // namespace gpp::io
