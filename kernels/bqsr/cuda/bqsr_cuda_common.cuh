// Pieces shared by the CUDA BQSR kernels: warp-per-read launch shape, the low-quality tails found
// with ballots, and checked host<->device copies.
#pragma once

#include <cuda_runtime.h>

#include <span>

#include "kernels/bqsr/bqsr_rules.hpp"
#include "kernels/device/cuda/cuda_check.cuh"

namespace gpp::kernels::bqsr::detail {

/// Threads per block of the warp-per-read kernels.
inline constexpr int kWarpKernelThreads = 256;

/// good_bases() of one read with the 32 lanes of a warp (all lanes call it with the same read).
__device__ inline GoodBases warp_good_bases(const std::uint8_t* quals, int length,
                                            int low_quality_tail, int lane) {
  GoodBases g{length, -1};
  for (int c = 0; c < length; c += 32) {
    const int k = c + lane;
    const unsigned found = __ballot_sync(0xffffffffu, k < length && quals[k] > low_quality_tail);
    if (found != 0) {
      g.first_good = c + __ffs(static_cast<int>(found)) - 1;
      break;
    }
  }
  if (g.first_good == length) return g;  // the whole read is a tail
  for (int c = length - 1; c >= 0; c -= 32) {
    const int k = c - lane;
    const unsigned found = __ballot_sync(0xffffffffu, k >= 0 && quals[k] > low_quality_tail);
    if (found != 0) {
      g.last_good = c - (__ffs(static_cast<int>(found)) - 1);
      break;
    }
  }
  return g;
}

}  // namespace gpp::kernels::bqsr::detail

namespace gpp::kernels::cuda {

/// Asynchronous copy of `count` elements to the device on `stream`.
template <typename T>
void copy_to_device(T* device, const T* host, std::size_t count, const Stream& stream) {
  if (count == 0) return;
  check(cudaMemcpyAsync(device, host, count * sizeof(T), cudaMemcpyHostToDevice, stream.get()),
        "copy to the GPU");
}

/// A device copy of `host` (synchronous).
template <typename T>
DeviceBuffer<T> to_device(std::span<const T> host) {
  DeviceBuffer<T> buffer(host.size());
  if (!host.empty())
    check(cudaMemcpy(buffer.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice),
          "copy to the GPU");
  return buffer;
}

/// Blocks of `threads` threads that fit on the device at once (grid-stride launches).
template <typename Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t dynamic_shared_bytes = 0) {
  int device = 0, sms = 0, per_sm = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
        "query multiprocessors");
  check(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared_bytes),
      "query occupancy");
  return sms * (per_sm > 0 ? per_sm : 1);
}

}  // namespace gpp::kernels::cuda
