// Large host-to-host copies with oneTBB: staging reads into page-locked buffers for the GPU, or
// keeping inflated BAM records, is memory-bound, and one thread reaches only a fraction of the
// host's memory bandwidth. Header-only, so io/ can use it too.
#pragma once

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <cstddef>
#include <cstring>

namespace gpp::kernels {

/// memcpy(to, from, bytes) in pieces of a few MiB on the oneTBB threads.
inline void parallel_copy(void* to, const void* from, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t{4} << 20;
  if (bytes <= kPiece) {
    if (bytes != 0) std::memcpy(to, from, bytes);
    return;
  }
  auto* out = static_cast<unsigned char*>(to);
  const auto* in = static_cast<const unsigned char*>(from);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, (bytes + kPiece - 1) / kPiece),
      [&](const oneapi::tbb::blocked_range<std::size_t>& pieces) {
        for (std::size_t p = pieces.begin(); p != pieces.end(); ++p) {
          const std::size_t begin = p * kPiece;
          const std::size_t size = begin + kPiece < bytes ? kPiece : bytes - begin;
          std::memcpy(out + begin, in + begin, size);
        }
      });
}

}  // namespace gpp::kernels
