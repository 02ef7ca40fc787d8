// CUDA backend of deflate_blocks: one thread compresses one block (kernels/deflate_block.hpp),
// thousands side by side; the streams are then packed back to back on the GPU so that only the
// compressed bytes cross PCIe.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <vector>

#include "kernels/bgzf_deflate.hpp"
#include "kernels/cuda_check.cuh"
#include "kernels/deflate_block.hpp"

namespace gpp::kernels::detail {

namespace {

constexpr std::size_t kChunkBlocks = 16384;  // 1 GiB of input per round
// Few encoders per SM, each with its hash, frequency and code tables in shared memory, and each
// in its own warp (lane 0): encoders in the lanes of one warp diverge at every byte and ran one
// after the other (both thousands of threads with tables in global memory and 11 encoders in one
// warp measured ~1.7 GB/s on an H200).
constexpr int kEncodersPerBlock = 11;
constexpr int kThreadsPerBlock = kEncodersPerBlock * 32;
constexpr std::size_t kSharedBytes = kEncodersPerBlock * deflate::kHotScratchBytes;

__global__ void deflate_kernel(const std::uint8_t* data, std::size_t stride, const std::uint32_t* sizes,
                               std::size_t count, std::uint8_t* out, std::size_t capacity,
                               std::uint32_t* out_sizes, std::uint32_t* tokens) {
  // Shared memory, per CTA: frequencies (u32), codes (u16), hash tables (u16), code lengths (u8).
  extern __shared__ std::uint32_t shared[];
  if (threadIdx.x % 32 != 0) return;
  const unsigned e = threadIdx.x / 32;  // encoder within the CTA
  const std::size_t b = blockIdx.x * static_cast<std::size_t>(kEncodersPerBlock) + e;
  if (b >= count) return;
  constexpr int kSymbols = deflate::kLitLenSymbols + deflate::kDistanceSymbols;
  std::uint32_t* freq = shared + e * kSymbols;
  std::uint16_t* codes_base = reinterpret_cast<std::uint16_t*>(shared + kEncodersPerBlock * kSymbols);
  std::uint16_t* codes = codes_base + e * kSymbols;
  std::uint16_t* hash_base = codes_base + kEncodersPerBlock * kSymbols;
  std::uint16_t* hash = hash_base + e * deflate::kHashEntries;
  std::uint8_t* lengths =
      reinterpret_cast<std::uint8_t*>(hash_base + kEncodersPerBlock * deflate::kHashEntries) + e * kSymbols;
  const deflate::Scratch scratch{hash, freq, freq + deflate::kLitLenSymbols, codes, lengths,
                                 tokens + b * (deflate::kMaxInput + 1)};
  out_sizes[b] = static_cast<std::uint32_t>(
      deflate::deflate_block(data + b * stride, sizes[b], out + b * capacity, capacity, scratch));
}

// One CTA per stream: copies it to its place in the packed output.
__global__ void pack_kernel(const std::uint8_t* out, std::size_t capacity, const std::uint32_t* sizes,
                            const std::uint64_t* offsets, std::uint8_t* packed) {
  const std::size_t b = blockIdx.x;
  const std::uint8_t* src = out + b * capacity;
  std::uint8_t* dst = packed + offsets[b];
  for (std::uint32_t i = threadIdx.x; i < sizes[b]; i += blockDim.x) dst[i] = src[i];
}

// Device buffers for `blocks` blocks of `stride` input bytes and `capacity` output bytes,
// reallocated only when a batch needs more.
struct Buffers {
  std::size_t blocks = 0, stride = 0, capacity = 0;
  cuda::DeviceBuffer<std::uint8_t> data, out, packed;
  cuda::DeviceBuffer<std::uint32_t> sizes, out_sizes, tokens;
  cuda::DeviceBuffer<std::uint64_t> offsets;
  std::vector<std::uint64_t> host_offsets;
  std::vector<std::uint8_t> host_packed;

  void reserve(std::size_t n, std::size_t in_stride, std::size_t out_capacity) {
    if (n <= blocks && in_stride <= stride && out_capacity <= capacity) return;
    blocks = std::max(n, blocks);
    stride = std::max(in_stride, stride);
    capacity = std::max(out_capacity, capacity);
    data = cuda::DeviceBuffer<std::uint8_t>(blocks * stride);
    out = cuda::DeviceBuffer<std::uint8_t>(blocks * capacity);
    packed = cuda::DeviceBuffer<std::uint8_t>(blocks * capacity);
    sizes = cuda::DeviceBuffer<std::uint32_t>(blocks);
    out_sizes = cuda::DeviceBuffer<std::uint32_t>(blocks);
    tokens = cuda::DeviceBuffer<std::uint32_t>(blocks * (deflate::kMaxInput + 1));
    offsets = cuda::DeviceBuffer<std::uint64_t>(blocks);
    host_offsets.resize(blocks);
  }
};

}  // namespace

std::shared_ptr<void> make_deflate_buffers_cuda() {
  cuda::check(cudaFuncSetAttribute(deflate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(kSharedBytes)),
              "allow the deflate kernel its shared memory");
  return std::make_shared<Buffers>();
}

double deflate_blocks_cuda(const DeflateBatch& batch, void* state) {
  using cuda::check;
  if (batch.count == 0) return 0;
  double kernel_seconds = 0;
  cuda::Event before, after;
  Buffers& buffers = *static_cast<Buffers*>(state);
  const std::size_t chunk = std::min(batch.count, kChunkBlocks);
  const std::size_t capacity = batch.out_capacity;
  buffers.reserve(chunk, batch.stride, capacity);
  auto& data = buffers.data;
  auto& out = buffers.out;
  auto& packed = buffers.packed;
  auto& sizes = buffers.sizes;
  auto& out_sizes = buffers.out_sizes;
  auto& offsets = buffers.offsets;
  auto& host_offsets = buffers.host_offsets;
  auto& host_packed = buffers.host_packed;
  for (std::size_t start = 0; start < batch.count; start += chunk) {
    const std::size_t n = std::min(chunk, batch.count - start);
    check(cudaMemcpy(data.data(), batch.data + start * batch.stride, n * batch.stride, cudaMemcpyHostToDevice),
          "copy blocks to the GPU");
    check(cudaMemcpy(sizes.data(), batch.sizes + start, n * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
          "copy block sizes to the GPU");
    check(cudaEventRecord(before.get()), "record event");
    deflate_kernel<<<static_cast<unsigned>((n + kEncodersPerBlock - 1) / kEncodersPerBlock), kThreadsPerBlock,
                     kSharedBytes>>>(data.data(), batch.stride, sizes.data(), n, out.data(), capacity,
                                     out_sizes.data(), buffers.tokens.data());
    cuda::check_launch("deflate_kernel");
    check(cudaEventRecord(after.get()), "record event");
    std::uint32_t* result_sizes = batch.out_sizes + start;
    check(cudaMemcpy(result_sizes, out_sizes.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
          "compress blocks on the GPU");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, before.get(), after.get()), "time the compression kernel");
    kernel_seconds += ms / 1000.0;
    std::uint64_t total = 0;
    for (std::size_t b = 0; b < n; ++b) {
      host_offsets[b] = total;
      total += result_sizes[b];
    }
    check(cudaMemcpy(offsets.data(), host_offsets.data(), n * sizeof(std::uint64_t), cudaMemcpyHostToDevice),
          "copy stream offsets to the GPU");
    pack_kernel<<<static_cast<unsigned>(n), 256>>>(out.data(), capacity, out_sizes.data(), offsets.data(),
                                                    packed.data());
    cuda::check_launch("pack_kernel");
    host_packed.resize(total);
    check(cudaMemcpy(host_packed.data(), packed.data(), total, cudaMemcpyDeviceToHost),
          "copy compressed blocks from the GPU");
    oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t b) {
      std::copy_n(host_packed.data() + host_offsets[b], result_sizes[b], batch.out + (start + b) * batch.out_stride);
    });
  }
  return kernel_seconds;
}

}  // namespace gpp::kernels::detail
