// CUDA backend of deflate_blocks: one warp compresses one block (kernels/deflate_block.hpp),
// thousands side by side: its 32 lanes find the matches of 32 positions at once, lane 0 parses
// them and builds the codes, then the 32 lanes code the tokens side by side. The streams are then
// packed back to back on the GPU so that only the compressed bytes cross PCIe.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <vector>

#include "kernels/bgzf_deflate.hpp"
#include "kernels/cuda_check.cuh"
#include "kernels/deflate_block.hpp"
#include "kernels/error.hpp"

namespace gpp::kernels::detail {

namespace {

constexpr std::size_t kSlotBlocks = 4096;  // blocks per batch: 256 MiB of input
constexpr std::size_t kSlotStride = deflate::kMaxInput;  // the largest block stride and output capacity
// Batches in flight: enough warps for the whole GPU (one batch is 4096), while the host fills the
// next; fewer where device memory is short (each slot holds about 2 GiB).
constexpr std::size_t kMaxSlots = 3;
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

// A lane's share of the token stream, written from a bit offset into a zeroed word buffer whose
// edge words it shares with its neighbours (hence atomicOr). Values come at most 16 bits at a time.
struct LaneBits {
  std::uint32_t* words;
  std::size_t word;       // the word being filled
  std::uint64_t acc = 0;  // its pending bits, lowest first
  int count = 0;          // how many (those below a lane's start offset are zero)
  __device__ void put(std::uint32_t value, int n) {
    acc |= static_cast<std::uint64_t>(value) << count;
    count += n;
    if (count >= 32) {
      atomicOr(words + word++, static_cast<std::uint32_t>(acc));
      acc >>= 32;
      count -= 32;
    }
  }
  __device__ void finish() {
    if (count > 0) atomicOr(words + word, static_cast<std::uint32_t>(acc));
  }
};

// deflate::encode_matches with the lanes of one warp, same bytes: lane 0 parses, builds the codes
// and writes the block header (deflate::encode_header); then each lane codes a 32nd of the tokens,
// at the bit offset a prefix sum of the lanes' bit counts gives it, into the bucket memory (free
// once the matches are found), and the lanes copy the stream after the header.
__device__ void encode_in_warp(const std::uint8_t* in, std::size_t size, std::uint8_t* out, std::size_t capacity,
                               const deflate::Scratch& scratch, std::uint32_t* out_size) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  const unsigned lane = threadIdx.x % 32;
  unsigned long long token_count = 0, header_size = 0, pending = 0;
  int pending_bits = 0;
  if (lane == 0) {
    deflate::detail::BitWriter w{out, capacity};
    token_count = deflate::encode_header(in, size, scratch, w);
    header_size = w.size;
    pending = w.bits;
    pending_bits = w.count;
  }
  __syncwarp();  // the tokens and the code tables are written
  token_count = __shfl_sync(kAll, token_count, 0);
  header_size = __shfl_sync(kAll, header_size, 0);
  pending = __shfl_sync(kAll, pending, 0);
  pending_bits = __shfl_sync(kAll, pending_bits, 0);

  const unsigned long long per_lane = (token_count + 31) / 32;
  const unsigned long long lo = min(token_count, lane * per_lane);
  const unsigned long long hi = min(token_count, lo + per_lane);
  unsigned long long bits = 0;
  for (unsigned long long t = lo; t < hi; ++t) bits += deflate::token_bits(scratch.tokens[t], scratch);
  if (lane == 31) bits += scratch.lengths[deflate::detail::kEndOfBlock];
  unsigned long long inclusive = bits;
  for (unsigned d = 1; d < 32; d <<= 1) {
    const unsigned long long below = __shfl_up_sync(kAll, inclusive, d);
    if (lane >= d) inclusive += below;
  }
  const unsigned long long stream_bits = pending_bits + __shfl_sync(kAll, inclusive, 31);
  const unsigned long long total = header_size + (stream_bits + 7) / 8;
  if (total > capacity) {  // does not fit (the bucket memory holds at most 64 KiB either)
    if (lane == 0) *out_size = 0;
    return;
  }
  auto* words = reinterpret_cast<std::uint32_t*>(scratch.buckets);
  for (unsigned long long w = lane; w < (stream_bits + 31) / 32; w += 32) words[w] = 0;
  __syncwarp();
  const unsigned long long start = pending_bits + inclusive - bits;
  LaneBits writer{words, start / 32};
  writer.count = static_cast<int>(start % 32);
  if (lane == 0) {  // the header's last, partial byte comes first
    writer.acc = pending;
    writer.count = pending_bits;
  }
  for (unsigned long long t = lo; t < hi; ++t) deflate::put_token(scratch.tokens[t], scratch, writer);
  if (lane == 31) deflate::put_end_of_block(scratch, writer);
  writer.finish();
  __syncwarp();
  const auto* stream = reinterpret_cast<const std::uint8_t*>(words);
  for (unsigned long long i = lane; i < total - header_size; i += 32) out[header_size + i] = stream[i];
  if (lane == 0) *out_size = static_cast<std::uint32_t>(total);
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
  encode_in_warp(in, sizes[b], out + b * capacity, capacity, scratch, out_sizes + b);
}

// One CTA per stream: copies it to its place in the packed output.
__global__ void pack_kernel(const std::uint8_t* out, std::size_t capacity, const std::uint32_t* sizes,
                            const std::uint64_t* offsets, std::uint8_t* packed) {
  const std::size_t b = blockIdx.x;
  const std::uint8_t* src = out + b * capacity;
  std::uint8_t* dst = packed + offsets[b];
  for (std::uint32_t i = threadIdx.x; i < sizes[b]; i += blockDim.x) dst[i] = src[i];
}

// One batch in flight: its blocks go in, its streams come out, on its own stream, while the
// host fills the next batch and consumes the last.
struct Slot {
  cuda::PinnedBuffer<std::uint8_t> host_in;  // for data outside page-locked memory (allocated on first use)
  cuda::PinnedBuffer<std::uint8_t> host_packed{kSlotBlocks * kSlotStride};
  cuda::PinnedBuffer<std::uint32_t> host_sizes{kSlotBlocks}, host_out_sizes{kSlotBlocks};
  cuda::DeviceBuffer<std::uint8_t> data{kSlotBlocks * kSlotStride}, out{kSlotBlocks * kSlotStride},
      packed{kSlotBlocks * kSlotStride};
  cuda::DeviceBuffer<std::uint32_t> sizes{kSlotBlocks}, out_sizes{kSlotBlocks},
      tokens{kSlotBlocks * (deflate::kMaxInput + 1)};
  cuda::DeviceBuffer<std::uint64_t> buckets{kSlotBlocks * deflate::kHashEntries};
  cuda::DeviceBuffer<std::uint64_t> offsets{kSlotBlocks};
  cuda::Stream stream;
  cuda::Event started, compressed;
  DeflateBatch batch;  // the batch in flight
};

constexpr std::size_t kSlotDeviceBytes =
    3 * kSlotBlocks * kSlotStride +
    kSlotBlocks * (3 * sizeof(std::uint32_t) + 2 * sizeof(std::uint64_t) + (deflate::kMaxInput + 1) * sizeof(std::uint32_t) +
                   deflate::kHashEntries * sizeof(std::uint64_t));

// Exclusive prefix sum of the stream sizes (a few thousand: one thread is enough).
__global__ void offsets_kernel(const std::uint32_t* sizes, std::size_t count, std::uint64_t* offsets) {
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < count; ++b) {
    offsets[b] = total;
    total += sizes[b];
  }
}

std::shared_ptr<std::uint8_t[]> allocate_pinned(std::size_t bytes) {
  std::uint8_t* p = nullptr;
  cuda::check(cudaHostAlloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(bytes, 1), cudaHostAllocDefault),
              "cudaHostAlloc");
  return std::shared_ptr<std::uint8_t[]>(p, [](std::uint8_t* q) { cudaFreeHost(q); });
}

// The slots and a page-locked staging buffer for the caller's data are allocated on another
// thread (tenths of a second: made early, they are ready when the first batch comes).
struct Pipeline {
  std::future<void> setup;
  std::vector<std::unique_ptr<Slot>> slots;
  std::size_t oldest = 0, in_flight = 0;  // slots in use: oldest, oldest + 1, ... (mod size)
  std::shared_ptr<std::uint8_t[]> staging;
  std::size_t staging_bytes = 0;
  std::shared_ptr<std::atomic<bool>> staging_lent = std::make_shared<std::atomic<bool>>(false);

  ~Pipeline() {
    if (setup.valid()) setup.wait();
  }
  // Waits for the setup; rethrows its error.
  Pipeline& ready() {
    if (setup.valid()) setup.get();
    return *this;
  }
};

bool page_locked(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();  // clear the error: plain memory
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

// Starts compressing `batch` in `slot`.
void launch(Slot& slot, const DeflateBatch& batch) {
  using cuda::check;
  slot.batch = batch;
  const std::size_t count = batch.count;
  if (count == 0) return;
  const cudaStream_t stream = slot.stream.get();
  const std::uint8_t* source = batch.data;
  if (!page_locked(batch.data)) {
    if (slot.host_in.size() == 0) slot.host_in = cuda::PinnedBuffer<std::uint8_t>(kSlotBlocks * kSlotStride);
    oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t b) {
      std::copy_n(batch.data + b * batch.stride, batch.sizes[b], slot.host_in.data() + b * batch.stride);
    });
    source = slot.host_in.data();
  }
  std::copy_n(batch.sizes, count, slot.host_sizes.data());
  check(cudaMemcpyAsync(slot.data.data(), source, count * batch.stride, cudaMemcpyHostToDevice, stream),
        "copy blocks to the GPU");
  check(cudaMemcpyAsync(slot.sizes.data(), slot.host_sizes.data(), count * sizeof(std::uint32_t),
                        cudaMemcpyHostToDevice, stream),
        "copy block sizes to the GPU");
  check(cudaEventRecord(slot.started.get(), stream), "record event");
  deflate_kernel<<<static_cast<unsigned>((count + kEncodersPerBlock - 1) / kEncodersPerBlock), kThreadsPerBlock,
                   kSharedBytes, stream>>>(slot.data.data(), batch.stride, slot.sizes.data(), count, slot.out.data(),
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

// Waits for the slot's batch, brings its streams back and puts them in place; returns the
// seconds its compression kernel took.
double drain(Slot& slot) {
  using cuda::check;
  const DeflateBatch& batch = slot.batch;
  check(cudaStreamSynchronize(slot.stream.get()), "compress blocks on the GPU");
  std::vector<std::uint64_t> offsets(batch.count);
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < batch.count; ++b) {
    offsets[b] = total;
    total += slot.host_out_sizes.data()[b];
  }
  check(cudaMemcpy(slot.host_packed.data(), slot.packed.data(), total, cudaMemcpyDeviceToHost),
        "copy compressed blocks from the GPU");
  oneapi::tbb::parallel_for(std::size_t{0}, batch.count, [&](std::size_t b) {
    const std::uint32_t size = slot.host_out_sizes.data()[b];
    batch.out_sizes[b] = size;
    std::copy_n(slot.host_packed.data() + offsets[b], size, batch.out + b * batch.out_stride);
  });
  float ms = 0;
  check(cudaEventElapsedTime(&ms, slot.started.get(), slot.compressed.get()), "time the compression kernel");
  return ms / 1000.0;
}

}  // namespace

std::shared_ptr<void> make_deflate_pipeline_cuda() {
  auto pipeline = std::make_shared<Pipeline>();
  pipeline->setup = std::async(std::launch::async, [&p = *pipeline] {
    cuda::check(cudaFuncSetAttribute(deflate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(kSharedBytes)),
                "allow the deflate kernel its shared memory");
    std::size_t free_bytes = 0, total_bytes = 0;
    cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "query GPU memory");
    // At most half of what is free, and always one slot (its allocation reports a shortage).
    const std::size_t slots = std::clamp<std::size_t>(free_bytes / 2 / kSlotDeviceBytes, 1, kMaxSlots);
    for (std::size_t k = 0; k < slots; ++k) p.slots.push_back(std::make_unique<Slot>());
    p.staging_bytes = slots * kSlotBlocks * kSlotStride;  // a block of every batch in flight
    p.staging = allocate_pinned(p.staging_bytes);
  });
  return pipeline;
}

std::size_t deflate_max_blocks_cuda() { return kSlotBlocks; }

void deflate_wait_ready_cuda(void* state) { static_cast<Pipeline*>(state)->ready(); }

std::size_t deflate_max_in_flight_cuda(void* state) { return static_cast<Pipeline*>(state)->ready().slots.size(); }

std::shared_ptr<std::uint8_t[]> allocate_host_cuda(std::size_t bytes, void* state) {
  Pipeline& pipeline = static_cast<Pipeline*>(state)->ready();
  // The staging buffer made in advance, to one holder at a time; otherwise a new one.
  if (bytes <= pipeline.staging_bytes && !pipeline.staging_lent->exchange(true)) {
    return std::shared_ptr<std::uint8_t[]>(pipeline.staging.get(),
                                           [keep = pipeline.staging, lent = pipeline.staging_lent](std::uint8_t*) {
                                             *lent = false;
                                           });
  }
  return allocate_pinned(bytes);
}

void deflate_submit_cuda(const DeflateBatch& batch, void* state) {
  Pipeline& pipeline = static_cast<Pipeline*>(state)->ready();
  if (batch.stride > kSlotStride || batch.out_capacity > kSlotStride || batch.count > kSlotBlocks ||
      pipeline.in_flight == pipeline.slots.size()) {
    throw Error("GPU deflate: internal error: batch beyond the pipeline's limits");
  }
  Slot& slot = *pipeline.slots[(pipeline.oldest + pipeline.in_flight) % pipeline.slots.size()];
  launch(slot, batch);
  ++pipeline.in_flight;
}

double deflate_wait_oldest_cuda(void* state) {
  Pipeline& pipeline = static_cast<Pipeline*>(state)->ready();
  if (pipeline.in_flight == 0) throw Error("GPU deflate: internal error: nothing in flight");
  Slot& slot = *pipeline.slots[pipeline.oldest];
  pipeline.oldest = (pipeline.oldest + 1) % pipeline.slots.size();
  --pipeline.in_flight;
  return slot.batch.count == 0 ? 0 : drain(slot);
}

}  // namespace gpp::kernels::detail
