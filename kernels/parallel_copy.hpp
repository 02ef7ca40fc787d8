// Large host-to-host copies with oneTBB: staging reads into page-locked buffers for the GPU is
// memory-bound, and one thread reaches only a fraction of the host's memory bandwidth.
#pragma once

#include <cstddef>

namespace gpp::kernels {

/// memcpy(to, from, bytes) in pieces of a few MiB on the oneTBB threads.
void parallel_copy(void* to, const void* from, std::size_t bytes);

}  // namespace gpp::kernels
