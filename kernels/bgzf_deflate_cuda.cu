// CUDA backend of deflate_blocks: one warp compresses one block (kernels/deflate_block.hpp),
// thousands side by side: its 32 lanes find the matches of 32 positions at once, then lane 0
// parses and encodes them. The streams are then packed back to back on the GPU so that only the
// compressed bytes cross PCIe.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <vector>

#include "kernels/bgzf_deflate.hpp"
#include "kernels/cuda_check.cuh"
#include "kernels/deflate_block.hpp"

namespace gpp::kernels::detail {

namespace {

constexpr std::size_t kSlotBlocks = 4096;  // blocks per pipeline slot: 256 MiB of input
// Encoders (warps) per CTA; each has its frequency and code tables in shared memory, its hash
// buckets and tokens in global memory.
constexpr int kEncodersPerBlock = 8;
constexpr int kThreadsPerBlock = kEncodersPerBlock * 32;
constexpr std::size_t kSharedBytes = kEncodersPerBlock * deflate::kHotScratchBytes;

// deflate::find_matches with the lanes of one warp, 32 positions at a time, same result: a
// position's candidates are the latest earlier lanes of its window with its hash, then its
// bucket as the window found it; the last lane of each hash leaves the bucket as the serial
// loop would after that lane's position.
__device__ void find_matches_in_warp(const std::uint8_t* in, std::size_t size, const deflate::Scratch& scratch) {
  const unsigned lane = threadIdx.x % 32;
  std::uint64_t* buckets = scratch.buckets;
  for (std::size_t h = lane; h < deflate::kHashEntries; h += 32) buckets[h] = ~std::uint64_t{0};
  __syncwarp();
  const unsigned below = (1u << lane) - 1;
  for (std::size_t start = 0; start < size; start += 32) {
    const std::size_t pos = start + lane;
    const bool active = pos + 4 <= size;
    // Lanes past the end take a hash of their own, shared with no one.
    const std::uint32_t h = active ? deflate::hash4(deflate::load32(in + pos))
                                   : static_cast<std::uint32_t>(deflate::kHashEntries) + lane;
    const unsigned peers = __match_any_sync(0xFFFFFFFFu, h);
    const std::uint64_t bucket = active ? buckets[h] : ~std::uint64_t{0};
    __syncwarp();  // every lane holds its bucket before any bucket is replaced
    std::uint16_t candidates[deflate::kWays];
    unsigned earlier = peers & below;
    int taken = 0;
    for (int k = 0; k < deflate::kWays; ++k) {
      if (earlier != 0) {
        const int latest = 31 - __clz(earlier);
        earlier &= ~(1u << latest);
        candidates[k] = static_cast<std::uint16_t>(start + latest);
      } else {
        candidates[k] = static_cast<std::uint16_t>(bucket >> (16 * taken++));
      }
    }
    if (active) {
      scratch.tokens[pos] = deflate::longest_match(in, size, pos, candidates);
      if ((peers >> lane) == 1u) {  // the last lane of its hash
        buckets[h] = pos | static_cast<std::uint64_t>(candidates[0]) << 16 |
                     static_cast<std::uint64_t>(candidates[1]) << 32 | static_cast<std::uint64_t>(candidates[2]) << 48;
      }
    } else if (pos < size) {
      scratch.tokens[pos] = 0;
    }
    __syncwarp();
  }
}

__global__ void deflate_kernel(const std::uint8_t* data, std::size_t stride, const std::uint32_t* sizes,
                               std::size_t count, std::uint8_t* out, std::size_t capacity,
                               std::uint32_t* out_sizes, std::uint32_t* tokens, std::uint64_t* buckets) {
  // Shared memory, per CTA: frequencies (u32), codes (u16), code lengths (u8).
  extern __shared__ std::uint32_t shared[];
  const unsigned e = threadIdx.x / 32;  // encoder within the CTA
  const std::size_t b = blockIdx.x * static_cast<std::size_t>(kEncodersPerBlock) + e;
  if (b >= count) return;  // the whole warp
  constexpr int kSymbols = deflate::kLitLenSymbols + deflate::kDistanceSymbols;
  std::uint32_t* freq = shared + e * kSymbols;
  std::uint16_t* codes = reinterpret_cast<std::uint16_t*>(shared + kEncodersPerBlock * kSymbols) + e * kSymbols;
  std::uint8_t* lengths = reinterpret_cast<std::uint8_t*>(shared + kEncodersPerBlock * kSymbols) +
                          kEncodersPerBlock * kSymbols * sizeof(std::uint16_t) + e * kSymbols;
  const deflate::Scratch scratch{buckets + b * deflate::kHashEntries, freq, freq + deflate::kLitLenSymbols, codes,
                                 lengths, tokens + b * (deflate::kMaxInput + 1)};
  const std::uint8_t* in = data + b * stride;
  find_matches_in_warp(in, sizes[b], scratch);
  if (threadIdx.x % 32 != 0) return;
  out_sizes[b] = static_cast<std::uint32_t>(deflate::encode_matches(in, sizes[b], out + b * capacity, capacity, scratch));
}

// One CTA per stream: copies it to its place in the packed output.
__global__ void pack_kernel(const std::uint8_t* out, std::size_t capacity, const std::uint32_t* sizes,
                            const std::uint64_t* offsets, std::uint8_t* packed) {
  const std::size_t b = blockIdx.x;
  const std::uint8_t* src = out + b * capacity;
  std::uint8_t* dst = packed + offsets[b];
  for (std::uint32_t i = threadIdx.x; i < sizes[b]; i += blockDim.x) dst[i] = src[i];
}

// One slot of the pipeline: its chunk's blocks go in, its streams come out, on its own stream,
// while the other slot's chunk is being filled or drained on the host.
struct Slot {
  std::size_t stride = 0, capacity = 0;
  cuda::PinnedBuffer<std::uint8_t> host_in, host_packed;
  cuda::PinnedBuffer<std::uint32_t> host_sizes, host_out_sizes;
  cuda::DeviceBuffer<std::uint8_t> data, out, packed;
  cuda::DeviceBuffer<std::uint32_t> sizes, out_sizes, tokens;
  cuda::DeviceBuffer<std::uint64_t> buckets;
  cuda::DeviceBuffer<std::uint64_t> offsets;
  cuda::Stream stream;
  cuda::Event started, compressed;
  std::size_t start = 0, count = 0;  // the chunk in flight (count 0: none)

  Slot(std::size_t in_stride, std::size_t out_capacity)
      : stride(in_stride), capacity(out_capacity), host_in(kSlotBlocks * in_stride),
        host_packed(kSlotBlocks * out_capacity), host_sizes(kSlotBlocks), host_out_sizes(kSlotBlocks),
        data(kSlotBlocks * in_stride), out(kSlotBlocks * out_capacity), packed(kSlotBlocks * out_capacity),
        sizes(kSlotBlocks), out_sizes(kSlotBlocks), tokens(kSlotBlocks * (deflate::kMaxInput + 1)),
        buckets(kSlotBlocks * deflate::kHashEntries),
        offsets(kSlotBlocks) {}
};

// Exclusive prefix sum of the stream sizes (a few thousand: one thread is enough).
__global__ void offsets_kernel(const std::uint32_t* sizes, std::size_t count, std::uint64_t* offsets) {
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < count; ++b) {
    offsets[b] = total;
    total += sizes[b];
  }
}

struct Pipeline {
  std::vector<std::unique_ptr<Slot>> slots;
};

// Starts compressing blocks [start, start + count) of `batch` in `slot`.
void launch(Slot& slot, const DeflateBatch& batch, std::size_t start, std::size_t count) {
  using cuda::check;
  slot.start = start;
  slot.count = count;
  oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t b) {
    std::copy_n(batch.data + (start + b) * batch.stride, batch.sizes[start + b], slot.host_in.data() + b * slot.stride);
  });
  std::copy_n(batch.sizes + start, count, slot.host_sizes.data());
  const cudaStream_t stream = slot.stream.get();
  check(cudaMemcpyAsync(slot.data.data(), slot.host_in.data(), count * slot.stride, cudaMemcpyHostToDevice, stream),
        "copy blocks to the GPU");
  check(cudaMemcpyAsync(slot.sizes.data(), slot.host_sizes.data(), count * sizeof(std::uint32_t),
                        cudaMemcpyHostToDevice, stream),
        "copy block sizes to the GPU");
  check(cudaEventRecord(slot.started.get(), stream), "record event");
  deflate_kernel<<<static_cast<unsigned>((count + kEncodersPerBlock - 1) / kEncodersPerBlock), kThreadsPerBlock,
                   kSharedBytes, stream>>>(slot.data.data(), slot.stride, slot.sizes.data(), count, slot.out.data(),
                                           batch.out_capacity, slot.out_sizes.data(), slot.tokens.data(),
                                           slot.buckets.data());
  cuda::check_launch("deflate_kernel");
  check(cudaEventRecord(slot.compressed.get(), stream), "record event");
  offsets_kernel<<<1, 1, 0, stream>>>(slot.out_sizes.data(), count, slot.offsets.data());
  cuda::check_launch("offsets_kernel");
  pack_kernel<<<static_cast<unsigned>(count), 256, 0, stream>>>(slot.out.data(), batch.out_capacity,
                                                                 slot.out_sizes.data(), slot.offsets.data(),
                                                                 slot.packed.data());
  cuda::check_launch("pack_kernel");
  check(cudaMemcpyAsync(slot.host_out_sizes.data(), slot.out_sizes.data(), count * sizeof(std::uint32_t),
                        cudaMemcpyDeviceToHost, stream),
        "copy stream sizes from the GPU");
}

// Waits for the slot's chunk, brings its streams back and puts them in place; returns the
// seconds its compression kernel took.
double drain(Slot& slot, const DeflateBatch& batch) {
  using cuda::check;
  if (slot.count == 0) return 0;
  check(cudaStreamSynchronize(slot.stream.get()), "compress blocks on the GPU");
  std::vector<std::uint64_t> offsets(slot.count);
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < slot.count; ++b) {
    offsets[b] = total;
    total += slot.host_out_sizes.data()[b];
  }
  check(cudaMemcpy(slot.host_packed.data(), slot.packed.data(), total, cudaMemcpyDeviceToHost),
        "copy compressed blocks from the GPU");
  oneapi::tbb::parallel_for(std::size_t{0}, slot.count, [&](std::size_t b) {
    const std::uint32_t size = slot.host_out_sizes.data()[b];
    batch.out_sizes[slot.start + b] = size;
    std::copy_n(slot.host_packed.data() + offsets[b], size, batch.out + (slot.start + b) * batch.out_stride);
  });
  float ms = 0;
  check(cudaEventElapsedTime(&ms, slot.started.get(), slot.compressed.get()), "time the compression kernel");
  slot.count = 0;
  return ms / 1000.0;
}

}  // namespace

std::shared_ptr<void> make_deflate_buffers_cuda() {
  cuda::check(cudaFuncSetAttribute(deflate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(kSharedBytes)),
              "allow the deflate kernel its shared memory");
  return std::make_shared<Pipeline>();
}

double deflate_blocks_cuda(const DeflateBatch& batch, void* state) {
  if (batch.count == 0) return 0;
  Pipeline& pipeline = *static_cast<Pipeline*>(state);
  if (pipeline.slots.empty() || pipeline.slots[0]->stride < batch.stride ||
      pipeline.slots[0]->capacity < batch.out_capacity) {
    pipeline.slots.clear();
    for (int k = 0; k < 2; ++k) pipeline.slots.push_back(std::make_unique<Slot>(batch.stride, batch.out_capacity));
  }
  // Two slots: while one chunk is on the GPU, the host fills the next and drains the last.
  double kernel_seconds = 0;
  std::size_t chunk = 0;
  for (std::size_t start = 0; start < batch.count; start += kSlotBlocks, ++chunk) {
    Slot& slot = *pipeline.slots[chunk % 2];
    kernel_seconds += drain(slot, batch);
    launch(slot, batch, start, std::min(kSlotBlocks, batch.count - start));
  }
  for (const auto& slot : pipeline.slots) kernel_seconds += drain(*slot, batch);
  return kernel_seconds;
}

}  // namespace gpp::kernels::detail
