// InflateOffload: how io/ hands BGZF blocks to a decompressor elsewhere than the CPU's threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace gpp::io {

/**
 * @brief Where BAM blocks are inflated when not on the CPU's threads (a GPU; the pipeline supplies
 * it, io/ does not know the device). The reader submits parts ahead of its use of them and lands
 * each, oldest first, when it wants its bytes: the other side inflates the parts in flight
 * meanwhile.
 *
 * A part's block k holds the raw DEFLATE stream of in_sizes[k] bytes at data + in_offsets[k],
 * which inflates to exactly out_sizes[k] bytes (at most 64 KiB); a part has at most max_blocks
 * blocks whose streams sum to at most max_stream_bytes, and at most in_flight parts wait to be
 * landed. `submit` copies the streams (and the CRCs) before it returns. `land` puts the oldest
 * part's block k at out + out_offsets[k], calls `check(k)` once its bytes are there (false: a bad
 * checksum) and returns the part's first bad block (bad DEFLATE, another CRC-32 than the part's
 * crcs, or failing the check), or its count when none; with out == nullptr it drops the part.
 * `ready`, when given, says whether parts can go in now: while it is false and none is in flight,
 * the reader inflates on the CPU's threads (a GPU still starting).
 */
struct InflateOffload {
  struct Part {
    const std::uint8_t* data;
    const std::uint64_t* in_offsets;
    const std::uint32_t* in_sizes;
    const std::uint32_t* out_sizes;
    std::size_t count;
    const std::uint32_t* crcs = nullptr;  ///< block k must inflate to bytes of CRC-32 crcs[k]
  };
  using Check = std::function<bool(std::size_t block)>;
  std::function<void(const Part&)> submit;
  std::function<std::size_t(std::uint8_t* out, const std::uint64_t* out_offsets,
                            const Check& check)>
      land;
  std::function<bool()> ready;
  std::size_t max_blocks = 0;
  std::size_t max_stream_bytes = 0;
  std::size_t in_flight = 0;
  explicit operator bool() const { return static_cast<bool>(submit); }
};

}  // namespace gpp::io
