// CUDA backend of deflate_blocks: one warp compresses one block (kernels/deflate_block.hpp),
// thousands side by side: its 32 lanes find the matches of 32 positions at once, parse them side
// by side, lane 0 builds the codes, then the 32 lanes code the tokens side by side. The streams are
// then packed back to back on the GPU so that only the compressed bytes cross PCIe.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <vector>

#include "core/error.hpp"
#include "kernels/bgzf/bgzf_deflate.hpp"
#include "kernels/bgzf/detail/deflate_backends.hpp"
#include "kernels/bgzf/detail/deflate_block.hpp"
#include "kernels/device/cuda/cuda_check.cuh"

namespace gpp::kernels::detail {

namespace {

constexpr std::size_t kSlotBlocks = 4096;  // blocks per batch at most: 256 MiB of input
constexpr std::size_t kSlotStride =
    deflate::kMaxInput;  // the largest block stride and output capacity
// Batches in flight: enough warps for the whole GPU (one batch is 4096), while the host fills the
// next; fewer where device memory is short (each slot holds about 2 GiB).
constexpr std::size_t kMaxSlots = 3;
// Blocks per batch at the least, however little page-locked memory the pipeline may hold.
constexpr std::size_t kFewestSlotBlocks = 64;
static_assert((kMaxSlots + 1) * kSlotBlocks * kSlotStride == BlockDeflater::kMostGpuHostBytes,
              "the page-locked memory of the most slots");
// Encoders (warps) per CTA; each has its frequency and code tables in shared memory, its hash
// buckets and tokens in global memory.
constexpr int kEncodersPerBlock = 8;
constexpr int kThreadsPerBlock = kEncodersPerBlock * 32;
constexpr std::size_t kSharedBytes = kEncodersPerBlock * deflate::kHotScratchBytes;

// The eight bytes at `p` (little-endian) from the three aligned words around them; reads up to p
// + 12.
__device__ inline std::uint64_t bytes8_at(const std::uint8_t* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const auto* w = reinterpret_cast<const std::uint32_t*>(address & ~std::uintptr_t{3});
  const unsigned shift = static_cast<unsigned>(address & 3) * 8;
  const std::uint32_t w0 = __ldg(w), w1 = __ldg(w + 1), w2 = __ldg(w + 2);
  return __funnelshift_r(w0, w1, shift) | static_cast<std::uint64_t>(__funnelshift_r(w1, w2, shift))
                                              << 32;
}

// deflate::longest_match for one lane's position, same result (of the candidates within reach
// whose first four bytes are the position's, the longest common prefix, capped, and the first of
// the longest), with the waits for scattered loads shared: the candidates compare eight bytes a
// round, all together (their loads first, then the comparisons), so a lane waits once per round,
// not once per candidate and round. Apart, the lanes that part at a comparison would also go
// through the remaining candidates apart, each group waiting for its own loads. Near the block's
// end (where eight bytes and the words around them do not fit), one candidate at a time.
__device__ std::uint32_t longest_match_in_warp(const std::uint8_t* in, std::size_t size,
                                               std::size_t pos,
                                               const std::uint16_t (&candidates)[deflate::kWays]) {
  const std::size_t longest = min(size - pos, std::size_t{258});
  if (longest < 12) return deflate::longest_match(in, size, pos, candidates);
  unsigned matching = 0;  // candidates whose common prefix is still growing
#pragma unroll
  for (int k = 0; k < deflate::kWays; ++k) {
    if (candidates[k] != deflate::kNoPosition && pos - candidates[k] <= 32768) matching |= 1u << k;
  }
  std::uint32_t length[deflate::kWays] = {};
  std::size_t at = 0;
  for (; matching != 0 && at + 12 <= longest;
       at += 8) {  // the words read end at or before `longest`
    const std::uint64_t here = bytes8_at(in + pos + at);
    std::uint64_t there[deflate::kWays];
#pragma unroll
    for (int k = 0; k < deflate::kWays; ++k)
      there[k] = (matching >> k & 1) ? bytes8_at(in + candidates[k] + at) : here;
#pragma unroll
    for (int k = 0; k < deflate::kWays; ++k) {
      if (there[k] != here) {
        length[k] = static_cast<std::uint32_t>(at) +
                    (__ffsll(static_cast<long long>(there[k] ^ here)) - 1) / 8;
        matching &= ~(1u << k);
      }
    }
  }
  std::uint32_t best = 0;
  std::uint32_t best_distance = 0;
#pragma unroll
  for (int k = 0; k < deflate::kWays; ++k) {
    if (matching >> k & 1) {  // the last bytes
      length[k] = static_cast<std::uint32_t>(
          deflate::detail::common_length(in + candidates[k], in + pos, at, longest));
    }
    if (length[k] >= 4 && length[k] > best) {  // shorter: the first four bytes differ
      best = length[k];
      best_distance = static_cast<std::uint32_t>(pos - candidates[k]);
    }
  }
  return best << 16 | best_distance;
}

// deflate::find_matches with the lanes of one warp, 32 positions at a time, same result: a
// position's candidates are the latest earlier lanes of its window with its hash, then its
// bucket as the window found it; the last lane of each hash leaves the bucket as the serial
// loop would after that lane's position.
__device__ void find_matches_in_warp(const std::uint8_t* in, std::size_t size,
                                     const deflate::Scratch& scratch) {
  const unsigned lane = threadIdx.x % 32;
  std::uint64_t* buckets = scratch.buckets;
  for (std::size_t h = lane; h < deflate::kHashEntries; h += 32) buckets[h] = ~std::uint64_t{0};
  __syncwarp();
  const unsigned below = (1u << lane) - 1;
  // A lane's position in a round of 32: its bytes, hash, the lanes sharing the hash, its bucket.
  struct Step {
    std::size_t pos;
    bool active;
    std::uint32_t value, hash;
    unsigned peers;
    std::uint64_t bucket;
  };
  auto look_up = [&](std::size_t start) {
    Step s;
    s.pos = start + lane;
    s.active = s.pos + 4 <= size;
    s.value = s.active ? deflate::detail::word_at(in + s.pos) : 0;
    // Lanes past the end take a hash of their own, shared with no one.
    s.hash = s.active ? deflate::hash4(s.value)
                      : static_cast<std::uint32_t>(deflate::kHashEntries) + lane;
    s.peers = __match_any_sync(0xFFFFFFFFu, s.hash);
    s.bucket = s.active ? buckets[s.hash] : ~std::uint64_t{0};
    return s;
  };
  Step step = look_up(0);
  for (std::size_t start = 0; start < size; start += 32) {
    std::uint16_t candidates[deflate::kWays];
    unsigned earlier = step.peers & below;
    int taken = 0;
    for (int k = 0; k < deflate::kWays; ++k) {
      if (earlier != 0) {
        const int latest = 31 - __clz(earlier);
        earlier &= ~(1u << latest);
        candidates[k] = static_cast<std::uint16_t>(start + latest);
      } else {
        candidates[k] = static_cast<std::uint16_t>(step.bucket >> (16 * taken++));
      }
    }
    __syncwarp();  // every lane holds its bucket before any bucket is replaced
    if (step.active && (step.peers >> lane) == 1u) {  // the last lane of its hash
      buckets[step.hash] = step.pos | static_cast<std::uint64_t>(candidates[0]) << 16 |
                           static_cast<std::uint64_t>(candidates[1]) << 32 |
                           static_cast<std::uint64_t>(candidates[2]) << 48;
    }
    __syncwarp();
    // The next round's buckets are on their way while this round's matches are measured.
    const Step next = look_up(start + 32);
    if (step.active) {
      scratch.tokens[step.pos] = longest_match_in_warp(in, size, step.pos, candidates);
    } else if (step.pos < size) {
      scratch.tokens[step.pos] = 0;  // the last three positions
    }
    __syncwarp();
    step = next;
  }
}

// deflate::parse_lazy with the lanes of one warp, same tokens and counts. Each position's token
// (lazy_token) depends only on the matches there and at the next two positions, so the lanes
// decide 32 positions at a time, in place. The parse is then the chain of positions that each
// token leads to (token_span further on). Each lane follows that chain from the start of its 32nd
// of the block, marking the positions it visits; a chain that starts elsewhere soon meets it, so
// the lane re-walks from where the chain before it left that 32nd, up to the meeting point (the
// marks before it are cleared, those on the way set), or to the end of its 32nd, in which case
// the lane after must re-walk too: rounds until no lane's entry changes. A ballot over the marks
// then places every token at its rank.
__device__ std::size_t parse_in_warp(const std::uint8_t* in, std::size_t size,
                                     const deflate::Scratch& scratch) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  constexpr std::uint32_t kOnPath = 0x40000000u;  // free in both token kinds
  const unsigned lane = threadIdx.x % 32;
  std::uint32_t* tokens = scratch.tokens;
  for (std::size_t start = 0; start < size; start += 32) {
    const std::size_t pos = start + lane;
    const std::uint32_t token = pos < size ? deflate::lazy_token(in, size, tokens, pos) : 0;
    __syncwarp();  // every lane has read the matches it needs (the next two lanes' too)
    if (pos < size) tokens[pos] = token;
  }
  __syncwarp();
  const std::size_t share = (size + 31) / 32;
  const std::size_t begin = min(size, lane * share);
  const std::size_t end = min(size, begin + share);
  // Marks the chain from `from` up to `to` (set or clear), returns where it stopped.
  auto walk = [&](std::size_t from, std::size_t to, bool mark) {
    while (from < to) {
      const std::uint32_t token = tokens[from];
      tokens[from] = mark ? token | kOnPath : token & ~kOnPath;
      from += deflate::token_span(token);
    }
    return from;
  };
  std::size_t exit = walk(begin, end, true);
  std::size_t marked_from = begin;  // the entry the marks in this lane's 32nd follow
  for (;;) {
    std::size_t entry = __shfl_up_sync(kAll, exit, 1);
    if (lane == 0) entry = 0;
    const bool stale = entry != marked_from;
    if (!__any_sync(kAll, stale)) break;
    if (stale) {
      std::size_t meet = entry;  // the first marked position on the new chain, or its exit
      while (meet < end && !(tokens[meet] & kOnPath)) meet += deflate::token_span(tokens[meet]);
      walk(marked_from, min(meet, end), false);
      walk(entry, meet, true);
      if (meet >= end) exit = meet;
      marked_from = entry;
    }
  }
  __syncwarp();

  for (int k = lane; k < deflate::kLitLenSymbols; k += 32) scratch.lit_freq[k] = 0;
  for (int k = lane; k < deflate::kDistanceSymbols; k += 32) scratch.dist_freq[k] = 0;
  __syncwarp();
  const unsigned below = (1u << lane) - 1;
  std::size_t count = 0;
  for (std::size_t start = 0; start < size; start += 32) {
    const std::size_t pos = start + lane;
    const std::uint32_t token = pos < size ? tokens[pos] : 0;
    const unsigned on_path =
        __ballot_sync(kAll, (token & kOnPath) != 0);  // after every lane's read
    if (token & kOnPath) {
      const std::uint32_t plain = token & ~kOnPath;
      tokens[count + __popc(on_path & below)] = plain;  // at or before `pos`: read already
      deflate::count_token(plain, scratch, [](std::uint32_t* counter) { atomicAdd(counter, 1u); });
    }
    count += __popc(on_path);
  }
  if (lane == 0) ++scratch.lit_freq[deflate::detail::kEndOfBlock];
  __syncwarp();
  return count;
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

// deflate::encode_matches with the lanes of one warp, same bytes: the lanes parse, lane 0 builds
// the codes and writes the block header (deflate::write_block_header); then each lane codes a 32nd
// of the tokens, at the bit offset a prefix sum of the lanes' bit counts gives it, into the bucket
// memory (free once the matches are found), and the lanes copy the stream after the header.
__device__ void encode_in_warp(const std::uint8_t* in, std::size_t size, std::uint8_t* out,
                               std::size_t capacity, const deflate::Scratch& scratch,
                               std::uint32_t* out_size) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  const unsigned lane = threadIdx.x % 32;
  unsigned long long token_count = 0, header_size = 0, pending = 0;
  int pending_bits = 0;
  token_count = parse_in_warp(in, size, scratch);
  if (lane == 0) {
    deflate::detail::BitWriter w{out, capacity};
    deflate::write_block_header(scratch, w);
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
  for (unsigned long long t = lo; t < hi; ++t)
    bits += deflate::token_bits(scratch.tokens[t], scratch);
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
  for (unsigned long long t = lo; t < hi; ++t)
    deflate::put_token(scratch.tokens[t], scratch, writer);
  if (lane == 31) deflate::put_end_of_block(scratch, writer);
  writer.finish();
  __syncwarp();
  const auto* stream = reinterpret_cast<const std::uint8_t*>(words);
  for (unsigned long long i = lane; i < total - header_size; i += 32)
    out[header_size + i] = stream[i];
  if (lane == 0) *out_size = static_cast<std::uint32_t>(total);
}

__global__ void __launch_bounds__(kThreadsPerBlock, 4)
    deflate_kernel(const std::uint8_t* data, std::size_t stride, const std::uint32_t* sizes,
                   std::size_t count, std::uint8_t* out, std::size_t capacity,
                   std::uint32_t* out_sizes, std::uint32_t* tokens, std::uint64_t* buckets) {
  // Shared memory, per CTA: frequencies (u32), codes (u16), code lengths (u8).
  extern __shared__ std::uint32_t shared[];
  const unsigned e = threadIdx.x / 32;  // encoder within the CTA
  const std::size_t b = blockIdx.x * static_cast<std::size_t>(kEncodersPerBlock) + e;
  if (b >= count) return;  // the whole warp
  constexpr int kSymbols = deflate::kLitLenSymbols + deflate::kDistanceSymbols;
  std::uint32_t* freq = shared + e * kSymbols;
  std::uint16_t* codes =
      reinterpret_cast<std::uint16_t*>(shared + kEncodersPerBlock * kSymbols) + e * kSymbols;
  std::uint8_t* lengths = reinterpret_cast<std::uint8_t*>(shared + kEncodersPerBlock * kSymbols) +
                          kEncodersPerBlock * kSymbols * sizeof(std::uint16_t) + e * kSymbols;
  const deflate::Scratch scratch{
      buckets + b * deflate::kHashEntries,  freq, freq + deflate::kLitLenSymbols, codes, lengths,
      tokens + b * (deflate::kMaxInput + 1)};
  const std::uint8_t* in = data + b * stride;
  find_matches_in_warp(in, sizes[b], scratch);
  encode_in_warp(in, sizes[b], out + b * capacity, capacity, scratch, out_sizes + b);
}

// One CTA per stream: copies it to its place in the packed output.
__global__ void pack_kernel(const std::uint8_t* out, std::size_t capacity,
                            const std::uint32_t* sizes, const std::uint64_t* offsets,
                            std::uint8_t* packed) {
  const std::size_t b = blockIdx.x;
  const std::uint8_t* src = out + b * capacity;
  std::uint8_t* dst = packed + offsets[b];
  for (std::uint32_t i = threadIdx.x; i < sizes[b]; i += blockDim.x) dst[i] = src[i];
}

// One batch in flight: its blocks go in, its streams come out, on its own stream, while the
// host fills the next batch and consumes the last.
struct Slot {
  cuda::PinnedBuffer<std::uint8_t>
      host_in;  // for data outside page-locked memory (allocated on first use)
  cuda::PinnedBuffer<std::uint32_t> host_sizes{kSlotBlocks}, host_out_sizes{kSlotBlocks};
  // The encoder reads a block's bytes as aligned words (deflate::detail::word_at), up to 8 bytes
  // past a position it reads: the last block is followed by that much room.
  cuda::DeviceBuffer<std::uint8_t> data{kSlotBlocks * kSlotStride + 8},
      out{kSlotBlocks * kSlotStride}, packed{kSlotBlocks * kSlotStride};
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
    kSlotBlocks * (3 * sizeof(std::uint32_t) + 2 * sizeof(std::uint64_t) +
                   (deflate::kMaxInput + 1) * sizeof(std::uint32_t) +
                   deflate::kHashEntries * sizeof(std::uint64_t));

// Exclusive prefix sum of the stream sizes (a few thousand: one thread is enough).
__global__ void offsets_kernel(const std::uint32_t* sizes, std::size_t count,
                               std::uint64_t* offsets) {
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < count; ++b) {
    offsets[b] = total;
    total += sizes[b];
  }
}

std::shared_ptr<std::uint8_t[]> allocate_pinned(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 1);
  return std::shared_ptr<std::uint8_t[]>(static_cast<std::uint8_t*>(cuda::allocate_pinned(bytes)),
                                         [bytes](std::uint8_t* q) { cuda::free_pinned(q, bytes); });
}

// The slots and a page-locked staging buffer for the caller's data are allocated on another
// thread (tenths of a second: made early, they are ready when the first batch comes). Their
// page-locked host memory — the staging buffer (a batch for every slot) and one buffer the
// batches' streams come back into, one batch at a time — stays within the pipeline's allowance:
// fewer slots first, then fewer blocks per batch.
struct Pipeline {
  explicit Pipeline(std::uint64_t host_bytes_) : host_bytes(host_bytes_) {}
  const std::uint64_t host_bytes;
  std::future<void> setup;
  std::size_t blocks = kSlotBlocks;  // per batch
  std::vector<std::unique_ptr<Slot>> slots;
  cuda::PinnedBuffer<std::uint8_t> host_packed;  // the oldest batch's streams, packed
  std::size_t oldest = 0, in_flight = 0;         // slots in use: oldest, oldest + 1, ... (mod size)
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
    if (slot.host_in.size() < count * batch.stride)
      slot.host_in = cuda::PinnedBuffer<std::uint8_t>(count * batch.stride);
    oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t b) {
      std::copy_n(batch.data + b * batch.stride, batch.sizes[b],
                  slot.host_in.data() + b * batch.stride);
    });
    source = slot.host_in.data();
  }
  std::copy_n(batch.sizes, count, slot.host_sizes.data());
  check(cudaMemcpyAsync(slot.data.data(), source, count * batch.stride, cudaMemcpyHostToDevice,
                        stream),
        "copy blocks to the GPU");
  check(cudaMemcpyAsync(slot.sizes.data(), slot.host_sizes.data(), count * sizeof(std::uint32_t),
                        cudaMemcpyHostToDevice, stream),
        "copy block sizes to the GPU");
  check(cudaEventRecord(slot.started.get(), stream), "record event");
  deflate_kernel<<<static_cast<unsigned>((count + kEncodersPerBlock - 1) / kEncodersPerBlock),
                   kThreadsPerBlock, kSharedBytes, stream>>>(
      slot.data.data(), batch.stride, slot.sizes.data(), count, slot.out.data(), batch.out_capacity,
      slot.out_sizes.data(), slot.tokens.data(), slot.buckets.data());
  cuda::check_launch("deflate_kernel");
  check(cudaEventRecord(slot.compressed.get(), stream), "record event");
  offsets_kernel<<<1, 1, 0, stream>>>(slot.out_sizes.data(), count, slot.offsets.data());
  cuda::check_launch("offsets_kernel");
  pack_kernel<<<static_cast<unsigned>(count), 256, 0, stream>>>(
      slot.out.data(), batch.out_capacity, slot.out_sizes.data(), slot.offsets.data(),
      slot.packed.data());
  cuda::check_launch("pack_kernel");
  check(cudaMemcpyAsync(slot.host_out_sizes.data(), slot.out_sizes.data(),
                        count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream),
        "copy stream sizes from the GPU");
}

// Waits for the slot's batch, brings its streams back through `host_packed` and puts them in
// place; adds the seconds its compression kernel took and the wait for the GPU.
void drain(Slot& slot, cuda::PinnedBuffer<std::uint8_t>& host_packed, GpuSeconds& seconds) {
  using cuda::check;
  const DeflateBatch& batch = slot.batch;
  const auto start = std::chrono::steady_clock::now();
  check(cudaStreamSynchronize(slot.stream.get()), "compress blocks on the GPU");
  std::vector<std::uint64_t> offsets(batch.count);
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < batch.count; ++b) {
    offsets[b] = total;
    total += slot.host_out_sizes.data()[b];
  }
  check(cudaMemcpy(host_packed.data(), slot.packed.data(), total, cudaMemcpyDeviceToHost),
        "copy compressed blocks from the GPU");
  seconds.waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  oneapi::tbb::parallel_for(std::size_t{0}, batch.count, [&](std::size_t b) {
    const std::uint32_t size = slot.host_out_sizes.data()[b];
    batch.out_sizes[b] = size;
    std::copy_n(host_packed.data() + offsets[b], size, batch.out + b * batch.out_stride);
  });
  float ms = 0;
  check(cudaEventElapsedTime(&ms, slot.started.get(), slot.compressed.get()),
        "time the compression kernel");
  seconds.kernels += ms / 1000.0;
}

}  // namespace

std::shared_ptr<void> make_deflate_pipeline_cuda(std::uint64_t host_bytes) {
  auto pipeline = std::make_shared<Pipeline>(host_bytes);
  pipeline->setup = std::async(std::launch::async, [&p = *pipeline] {
    cuda::check(cudaFuncSetAttribute(deflate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(kSharedBytes)),
                "allow the deflate kernel its shared memory");
    // At most half of what is available (free, within --gpu-memory), and always one slot (its
    // allocation reports a shortage).
    std::size_t slots =
        std::clamp<std::size_t>(device_memory_available() / 2 / kSlotDeviceBytes, 1, kMaxSlots);
    const auto host_bytes = [&] { return (slots + 1) * p.blocks * kSlotStride; };
    while (slots > 1 && host_bytes() > p.host_bytes) --slots;
    while (p.blocks > kFewestSlotBlocks && host_bytes() > p.host_bytes) p.blocks /= 2;
    for (std::size_t k = 0; k < slots; ++k) p.slots.push_back(std::make_unique<Slot>());
    p.host_packed = cuda::PinnedBuffer<std::uint8_t>(p.blocks * kSlotStride);
    p.staging_bytes = slots * p.blocks * kSlotStride;  // a batch for every slot
    p.staging = allocate_pinned(p.staging_bytes);
  });
  return pipeline;
}

std::size_t deflate_max_blocks_cuda(void* state) {
  return static_cast<Pipeline*>(state)->ready().blocks;
}

void deflate_wait_ready_cuda(void* state) { static_cast<Pipeline*>(state)->ready(); }

std::size_t deflate_max_in_flight_cuda(void* state) {
  return static_cast<Pipeline*>(state)->ready().slots.size();
}

std::shared_ptr<std::uint8_t[]> allocate_host_cuda(std::size_t bytes, void* state) {
  Pipeline& pipeline = static_cast<Pipeline*>(state)->ready();
  // The staging buffer made in advance, to one holder at a time; otherwise a new one.
  if (bytes <= pipeline.staging_bytes && !pipeline.staging_lent->exchange(true)) {
    return std::shared_ptr<std::uint8_t[]>(
        pipeline.staging.get(),
        [keep = pipeline.staging, lent = pipeline.staging_lent](std::uint8_t*) { *lent = false; });
  }
  return allocate_pinned(bytes);
}

void deflate_submit_cuda(const DeflateBatch& batch, void* state) {
  Pipeline& pipeline = static_cast<Pipeline*>(state)->ready();
  if (batch.stride > kSlotStride || batch.out_capacity > kSlotStride ||
      batch.count > pipeline.blocks || pipeline.in_flight == pipeline.slots.size()) {
    throw Error("GPU deflate: internal error: batch beyond the pipeline's limits");
  }
  Slot& slot = *pipeline.slots[(pipeline.oldest + pipeline.in_flight) % pipeline.slots.size()];
  launch(slot, batch);
  ++pipeline.in_flight;
}

void deflate_wait_oldest_cuda(void* state, GpuSeconds& seconds) {
  Pipeline& pipeline = static_cast<Pipeline*>(state)->ready();
  if (pipeline.in_flight == 0) throw Error("GPU deflate: internal error: nothing in flight");
  Slot& slot = *pipeline.slots[pipeline.oldest];
  pipeline.oldest = (pipeline.oldest + 1) % pipeline.slots.size();
  --pipeline.in_flight;
  if (slot.batch.count > 0) drain(slot, pipeline.host_packed, seconds);
}

}  // namespace gpp::kernels::detail
