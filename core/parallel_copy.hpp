// Large host-to-host copies with oneTBB: staging reads into page-locked buffers for the GPU is
// memory-bound, and one thread reaches only a fraction of the host's memory bandwidth.
#pragma once

#include <cstddef>

namespace gpp {

/// memcpy(to, from, bytes) in pieces of `piece_bytes` on the oneTBB threads (one memcpy when the
/// copy is no larger than a piece).
void parallel_copy(void* to, const void* from, std::size_t bytes,
                   std::size_t piece_bytes = std::size_t{4} << 20);

}  // namespace gpp
