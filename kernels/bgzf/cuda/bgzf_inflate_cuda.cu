// CUDA backend of BlockInflater: one warp per block (kernels/inflate_block.hpp: the lanes decode
// in step and share the writes; the tables in shared memory), thousands of blocks at once. Each
// part submitted goes through a slot of its own (page-locked buffers, device buffers, stream):
// while the GPU copies in, inflates and copies out the parts in flight, the host packs the next
// part's streams into a free slot and moves the oldest part's bytes to their places, checking
// each block as it goes. Given the blocks' CRC-32s, the warp that inflates a block checks it.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <mutex>
#include <vector>

#include "core/error.hpp"
#include "core/first_failure.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"
#include "kernels/bgzf/detail/crc32.hpp"
#include "kernels/bgzf/detail/inflate_backends.hpp"
#include "kernels/bgzf/detail/inflate_block.hpp"
#include "kernels/device/cuda/cuda_check.cuh"

namespace gpp::kernels::detail {

namespace {

constexpr std::size_t kPartBlocks = BlockInflater::kPartBlocks;
constexpr std::size_t kPartBytes =
    BlockInflater::kPartStreamBytes;  // streams, and contents, per part
static_assert(kPartBytes >= kPartBlocks * BlockInflater::kMaxBlockBytes);
constexpr std::size_t kSlots = BlockInflater::kMaxGpuParts;
constexpr int kDecodersPerBlock = 4;  // warps per CTA, each with its tables in shared memory

struct BlockPlace {
  std::uint64_t in_offset;   // in the part's packed streams
  std::uint64_t out_offset;  // in the part's packed output
  std::uint32_t in_size;
  std::uint32_t out_size;
};

// The CRC-32 of `size` bytes at `data`, in lane 0: each lane a 32nd of them, the lanes' CRCs then
// joined in pairs, then pairs of pairs.
__device__ std::uint32_t warp_crc32(const std::uint8_t* data, std::uint32_t size,
                                    const crc32::Table& table, int lane) {
  const std::uint32_t slice = (size + 31) / 32;
  const std::uint32_t begin = min(size, static_cast<std::uint32_t>(lane) * slice);
  std::uint32_t length = min(size, begin + slice) - begin;
  std::uint32_t crc = crc32::update(0, data + begin, length, table);
  for (int step = 1; step < 32; step *= 2) {
    const std::uint32_t next_crc = __shfl_down_sync(0xFFFFFFFFu, crc, step);
    const std::uint32_t next_length = __shfl_down_sync(0xFFFFFFFFu, length, step);
    if (lane % (2 * step) == 0) {
      crc = crc32::combine(crc, next_crc, next_length, table);
      length += next_length;
    }
  }
  return crc;
}

// `crcs` (null: none given): block b must inflate to bytes of CRC-32 crcs[b].
__global__ void inflate_kernel(const std::uint8_t* in, const BlockPlace* places, std::size_t count,
                               const std::uint32_t* crcs, std::uint8_t* out,
                               inflate::Status* status) {
  __shared__ inflate::Tables tables[kDecodersPerBlock];
  __shared__ crc32::Table crc_table;
  if (crcs != nullptr) {
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
      crc_table.byte[b] = crc32::byte_step(b);
    if (threadIdx.x == 0) crc32::fill_powers(crc_table);
    __syncthreads();
  }
  const unsigned warp = threadIdx.x / 32;
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) * kDecodersPerBlock + warp;
  if (b >= count) return;  // the whole warp
  const BlockPlace place = places[b];
  const inflate::Lanes lanes{static_cast<int>(threadIdx.x % 32), 32};
  inflate::Status result =
      inflate::inflate_stream(in + place.in_offset, place.in_size, out + place.out_offset,
                              place.out_size, tables[warp], lanes);
  result = static_cast<inflate::Status>(
      __shfl_sync(0xFFFFFFFFu, static_cast<unsigned>(result), 0));  // one status for the warp
  if (crcs != nullptr && result == inflate::Status::kOk) {
    __syncwarp();  // every lane's writes of the contents seen by all
    const std::uint32_t crc =
        warp_crc32(out + place.out_offset, place.out_size, crc_table, lanes.index);
    if (lanes.first() && crc != crcs[b]) result = inflate::Status::kBadChecksum;
  }
  if (lanes.first()) status[b] = result;
}

// One part in flight.
struct Slot {
  cuda::PinnedBuffer<std::uint8_t> host_in{kPartBytes}, host_out{kPartBytes};
  cuda::PinnedBuffer<BlockPlace> host_places{kPartBlocks};
  cuda::PinnedBuffer<inflate::Status> host_status{kPartBlocks};
  cuda::PinnedBuffer<std::uint32_t> host_crcs{kPartBlocks};
  cuda::DeviceBuffer<std::uint8_t> in{kPartBytes}, out{kPartBytes};
  cuda::DeviceBuffer<BlockPlace> places{kPartBlocks};
  cuda::DeviceBuffer<inflate::Status> status{kPartBlocks};
  cuda::DeviceBuffer<std::uint32_t> crcs{kPartBlocks};
  cuda::Stream stream;
  cuda::Event started, inflated;
  std::size_t count = 0;  // blocks of the part in the slot
  std::size_t out_bytes = 0;
};

// Parts in flight: 16, fewer where an eighth of the available device memory (under --gpu-memory)
// holds fewer slots; at least 2. Decided once per process; an inflater may use fewer
// (BlockInflater's max_in_flight).
std::size_t slot_count() {
  static const std::size_t count =
      std::clamp<std::size_t>(device_memory_available() / 8 / (2 * kPartBytes), 2, kSlots);
  return count;
}

// The slots are allocated on another thread, one after the other (tenths of a second for all of
// them): a part waits only for its own slot, so the first parts go through while the last slots
// are being made.
struct Pipeline {
  explicit Pipeline(std::size_t slots) : slot_count(slots) {}
  const std::size_t slot_count;
  std::future<void> setup;
  std::array<std::unique_ptr<Slot>, kSlots> slots;
  std::size_t made = 0;  // slots[0, made) exist; guarded by `mutex`
  std::exception_ptr failed;
  std::mutex mutex;
  std::condition_variable slot_made;
  std::size_t submitted = 0, landed = 0;  // parts; slot p % slot_count holds part p
  ~Pipeline() {
    if (setup.valid()) setup.wait();
  }
  Slot& slot(std::size_t k) {
    std::unique_lock lock(mutex);
    slot_made.wait(lock, [&] { return made > k || failed; });
    if (made <= k) std::rethrow_exception(failed);
    return *slots[k];
  }
  void wait_ready() { slot(slot_count - 1); }
  // Whether the slot of the next part submitted exists.
  bool ready() {
    const std::lock_guard lock(mutex);
    return made > submitted % slot_count || made == slot_count;
  }
};

// Packs `part` into `slot` and starts inflating it.
void launch(Slot& slot, const InflateBatch& part) {
  using cuda::check;
  const std::size_t count = part.count;
  slot.count = count;
  std::uint64_t in_bytes = 0, out_bytes = 0;
  for (std::size_t k = 0; k < count; ++k) {
    slot.host_places.data()[k] = {in_bytes, out_bytes, part.in_sizes[k], part.out_sizes[k]};
    in_bytes += part.in_sizes[k];
    out_bytes += part.out_sizes[k];
  }
  slot.out_bytes = out_bytes;
  oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
    std::copy_n(part.data + part.in_offsets[k], part.in_sizes[k],
                slot.host_in.data() + slot.host_places.data()[k].in_offset);
  });
  if (count == 0) return;
  const cudaStream_t stream = slot.stream.get();
  check(cudaMemcpyAsync(slot.places.data(), slot.host_places.data(), count * sizeof(BlockPlace),
                        cudaMemcpyHostToDevice, stream),
        "copy block places to the GPU");
  check(cudaMemcpyAsync(slot.in.data(), slot.host_in.data(), in_bytes, cudaMemcpyHostToDevice,
                        stream),
        "copy compressed blocks to the GPU");
  if (part.crcs != nullptr) {
    std::copy_n(part.crcs, count, slot.host_crcs.data());
    check(cudaMemcpyAsync(slot.crcs.data(), slot.host_crcs.data(), count * sizeof(std::uint32_t),
                          cudaMemcpyHostToDevice, stream),
          "copy block checksums to the GPU");
  }
  check(cudaEventRecord(slot.started.get(), stream), "record event");
  inflate_kernel<<<static_cast<unsigned>((count + kDecodersPerBlock - 1) / kDecodersPerBlock),
                   kDecodersPerBlock * 32, 0, stream>>>(
      slot.in.data(), slot.places.data(), count, part.crcs != nullptr ? slot.crcs.data() : nullptr,
      slot.out.data(), slot.status.data());
  cuda::check_launch("inflate_kernel");
  check(cudaEventRecord(slot.inflated.get(), stream), "record event");
  check(cudaMemcpyAsync(slot.host_status.data(), slot.status.data(),
                        count * sizeof(inflate::Status), cudaMemcpyDeviceToHost, stream),
        "copy block status from the GPU");
  check(cudaMemcpyAsync(slot.host_out.data(), slot.out.data(), out_bytes, cudaMemcpyDeviceToHost,
                        stream),
        "copy inflated blocks from the GPU");
}

// Waits for the slot's part, moves its bytes to their places and checks them; returns the first
// bad block of the part (or its count) and adds the kernel's seconds and the wait.
std::size_t drain(Slot& slot, std::uint8_t* out, const std::uint64_t* out_offsets,
                  const BlockInflater::BlockCheck& check, GpuSeconds& seconds) {
  if (slot.count == 0) return 0;
  const auto start = std::chrono::steady_clock::now();
  cuda::check(cudaStreamSynchronize(slot.stream.get()), "inflate blocks on the GPU");
  seconds.waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  float ms = 0;
  cuda::check(cudaEventElapsedTime(&ms, slot.started.get(), slot.inflated.get()),
              "time the inflate kernel");
  seconds.kernels += ms / 1000.0;
  if (out == nullptr) return slot.count;
  FirstFailure first_bad(slot.count);
  oneapi::tbb::parallel_for(std::size_t{0}, slot.count, [&](std::size_t k) {
    const BlockPlace& place = slot.host_places.data()[k];
    bool ok = slot.host_status.data()[k] == inflate::Status::kOk;
    if (ok) {
      std::copy_n(slot.host_out.data() + place.out_offset, place.out_size, out + out_offsets[k]);
      ok = !check || check(k);
    }
    if (!ok) first_bad.report(k);
  });
  return first_bad.get();
}

}  // namespace

std::shared_ptr<void> make_inflate_pipeline_cuda(std::size_t slots) {
  auto pipeline = std::make_shared<Pipeline>(slots);
  pipeline->setup = std::async(std::launch::async, [&p = *pipeline] {
    try {
      for (std::size_t k = 0; k < p.slot_count; ++k) {
        auto slot = std::make_unique<Slot>();
        const std::lock_guard lock(p.mutex);
        p.slots[k] = std::move(slot);
        p.made = k + 1;
        p.slot_made.notify_all();
      }
    } catch (...) {
      const std::lock_guard lock(p.mutex);
      p.failed = std::current_exception();
      p.slot_made.notify_all();
    }
  });
  return pipeline;
}

void inflate_wait_ready_cuda(void* state) { static_cast<Pipeline*>(state)->wait_ready(); }

bool inflate_ready_cuda(void* state) { return static_cast<Pipeline*>(state)->ready(); }

std::size_t inflate_slots_cuda() { return slot_count(); }

std::size_t inflate_slots_cuda(const void* state) {
  return static_cast<const Pipeline*>(state)->slot_count;
}

void submit_blocks_cuda(const InflateBatch& part, void* state) {
  Pipeline& pipeline = *static_cast<Pipeline*>(state);
  if (pipeline.submitted - pipeline.landed == pipeline.slot_count)
    throw Error("GPU inflate: more parts submitted than slots");
  launch(pipeline.slot(pipeline.submitted % pipeline.slot_count), part);
  ++pipeline.submitted;
}

std::size_t land_blocks_cuda(std::uint8_t* out, const std::uint64_t* out_offsets,
                             const BlockInflater::BlockCheck& check, void* state,
                             GpuSeconds& seconds) {
  Pipeline& pipeline = *static_cast<Pipeline*>(state);
  if (pipeline.landed == pipeline.submitted) throw Error("GPU inflate: nothing to land");
  Slot& slot = pipeline.slot(pipeline.landed++ % pipeline.slot_count);
  return drain(slot, out, out_offsets, check, seconds);
}

}  // namespace gpp::kernels::detail
