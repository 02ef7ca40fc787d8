// CUDA backend of BlockInflater: one warp per block (kernels/inflate_block.hpp: the lanes decode
// in step and share the writes; the tables in shared memory), thousands of blocks at once. A call goes through the GPU in parts, each in a
// slot of its own (page-locked buffers, device buffers, stream): while the GPU copies in,
// inflates and copies out the parts in flight, the host packs the next part's streams into its
// slot and moves the oldest part's bytes to their places, checking each block as it goes.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <future>
#include <string>
#include <vector>

#include "kernels/bgzf_inflate.hpp"
#include "kernels/cuda_check.cuh"
#include "kernels/error.hpp"
#include "kernels/first_failure.hpp"
#include "kernels/inflate_block.hpp"

namespace gpp::kernels::detail {

namespace {

constexpr std::size_t kMaxBlockBytes = 0x10000;  // a BGZF block's contents (its payload is smaller)
constexpr std::size_t kPartBlocks = 256;         // blocks per part
constexpr std::size_t kPartBytes = kPartBlocks * kMaxBlockBytes;  // streams, and contents, per part
constexpr std::size_t kSlots = 16;               // parts in flight
constexpr int kDecodersPerBlock = 4;             // warps per CTA, each with its tables in shared memory

struct BlockPlace {
  std::uint64_t in_offset;   // in the part's packed streams
  std::uint64_t out_offset;  // in the part's packed output
  std::uint32_t in_size;
  std::uint32_t out_size;
};

__global__ void inflate_kernel(const std::uint8_t* in, const BlockPlace* places, std::size_t count, std::uint8_t* out,
                               inflate::Status* status) {
  __shared__ inflate::Tables tables[kDecodersPerBlock];
  const unsigned warp = threadIdx.x / 32;
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) * kDecodersPerBlock + warp;
  if (b >= count) return;  // the whole warp
  const BlockPlace place = places[b];
  const inflate::Lanes lanes{static_cast<int>(threadIdx.x % 32), 32};
  const inflate::Status result = inflate::inflate_stream(in + place.in_offset, place.in_size, out + place.out_offset,
                                                         place.out_size, tables[warp], lanes);
  if (lanes.first()) status[b] = result;
}

// One part in flight.
struct Slot {
  cuda::PinnedBuffer<std::uint8_t> host_in{kPartBytes}, host_out{kPartBytes};
  cuda::PinnedBuffer<BlockPlace> host_places{kPartBlocks};
  cuda::PinnedBuffer<inflate::Status> host_status{kPartBlocks};
  cuda::DeviceBuffer<std::uint8_t> in{kPartBytes}, out{kPartBytes};
  cuda::DeviceBuffer<BlockPlace> places{kPartBlocks};
  cuda::DeviceBuffer<inflate::Status> status{kPartBlocks};
  cuda::Stream stream;
  cuda::Event started, inflated;
  std::size_t first = 0, count = 0;  // the part: blocks first .. first + count of the call
  std::size_t out_bytes = 0;
};

// The slots are allocated on another thread (tenths of a second: made early, they are ready
// when the first call comes).
struct Pipeline {
  std::future<void> setup;
  std::vector<std::unique_ptr<Slot>> slots;
  ~Pipeline() {
    if (setup.valid()) setup.wait();
  }
  Pipeline& ready() {
    if (setup.valid()) setup.get();
    return *this;
  }
};

// Packs blocks first .. first + count into `slot` and starts inflating them.
void launch(Slot& slot, const InflateBatch& batch, std::size_t first, std::size_t count) {
  using cuda::check;
  slot.first = first;
  slot.count = count;
  std::uint64_t in_bytes = 0, out_bytes = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t b = first + k;
    slot.host_places.data()[k] = {in_bytes, out_bytes, batch.in_sizes[b], batch.out_sizes[b]};
    in_bytes += batch.in_sizes[b];
    out_bytes += batch.out_sizes[b];
  }
  slot.out_bytes = out_bytes;
  oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
    std::copy_n(batch.data + batch.in_offsets[first + k], batch.in_sizes[first + k],
                slot.host_in.data() + slot.host_places.data()[k].in_offset);
  });
  const cudaStream_t stream = slot.stream.get();
  check(cudaMemcpyAsync(slot.places.data(), slot.host_places.data(), count * sizeof(BlockPlace),
                        cudaMemcpyHostToDevice, stream),
        "copy block places to the GPU");
  check(cudaMemcpyAsync(slot.in.data(), slot.host_in.data(), in_bytes, cudaMemcpyHostToDevice, stream),
        "copy compressed blocks to the GPU");
  check(cudaEventRecord(slot.started.get(), stream), "record event");
  inflate_kernel<<<static_cast<unsigned>((count + kDecodersPerBlock - 1) / kDecodersPerBlock), kDecodersPerBlock * 32,
                   0, stream>>>(slot.in.data(), slot.places.data(), count, slot.out.data(), slot.status.data());
  cuda::check_launch("inflate_kernel");
  check(cudaEventRecord(slot.inflated.get(), stream), "record event");
  check(cudaMemcpyAsync(slot.host_status.data(), slot.status.data(), count * sizeof(inflate::Status),
                        cudaMemcpyDeviceToHost, stream),
        "copy block status from the GPU");
  check(cudaMemcpyAsync(slot.host_out.data(), slot.out.data(), out_bytes, cudaMemcpyDeviceToHost, stream),
        "copy inflated blocks from the GPU");
}

// Waits for the slot's part, moves its bytes to their places and checks them; returns the first
// bad block of the call (or `none`) and adds the kernel's seconds.
std::size_t drain(Slot& slot, const InflateBatch& batch, const BlockInflater::BlockCheck& check, std::size_t none,
                  double& kernel_seconds) {
  cuda::check(cudaStreamSynchronize(slot.stream.get()), "inflate blocks on the GPU");
  float ms = 0;
  cuda::check(cudaEventElapsedTime(&ms, slot.started.get(), slot.inflated.get()), "time the inflate kernel");
  kernel_seconds += ms / 1000.0;
  FirstFailure first_bad(none);
  oneapi::tbb::parallel_for(std::size_t{0}, slot.count, [&](std::size_t k) {
    const std::size_t b = slot.first + k;
    const BlockPlace& place = slot.host_places.data()[k];
    bool ok = slot.host_status.data()[k] == inflate::Status::kOk;
    if (ok) {
      std::copy_n(slot.host_out.data() + place.out_offset, place.out_size, batch.out + batch.out_offsets[b]);
      ok = !check || check(b);
    }
    if (!ok) first_bad.report(b);
  });
  return first_bad.get();
}

}  // namespace

std::shared_ptr<void> make_inflate_pipeline_cuda() {
  auto pipeline = std::make_shared<Pipeline>();
  pipeline->setup = std::async(std::launch::async, [&p = *pipeline] {
    for (std::size_t k = 0; k < kSlots; ++k) p.slots.push_back(std::make_unique<Slot>());
  });
  return pipeline;
}

void inflate_wait_ready_cuda(void* state) { static_cast<Pipeline*>(state)->ready(); }

std::size_t inflate_blocks_cuda(const InflateBatch& batch, const BlockInflater::BlockCheck& check, void* state,
                                double& kernel_seconds) {
  Pipeline& pipeline = static_cast<Pipeline*>(state)->ready();
  const std::size_t none = batch.count;
  std::size_t first_bad = none;
  std::size_t launched = 0, drained = 0;  // parts
  for (std::size_t first = 0; first < batch.count;) {
    // The part: up to kPartBlocks blocks whose streams fit in its buffer.
    std::size_t end = first, in_bytes = 0;
    for (; end < batch.count && end - first < kPartBlocks && in_bytes + batch.in_sizes[end] <= kPartBytes; ++end) {
      if (batch.out_sizes[end] > kMaxBlockBytes) {
        throw Error("GPU inflate: block " + std::to_string(end) + " holds more than 64 KiB");
      }
      in_bytes += batch.in_sizes[end];
    }
    if (end == first) throw Error("GPU inflate: block " + std::to_string(first) + " has a stream of more than 64 MiB");
    Slot& slot = *pipeline.slots[launched % kSlots];
    if (launched - drained == kSlots) {
      first_bad = std::min(first_bad, drain(slot, batch, check, none, kernel_seconds));
      ++drained;
    }
    launch(slot, batch, first, end - first);
    ++launched;
    first = end;
  }
  for (; drained < launched; ++drained) {
    first_bad = std::min(first_bad, drain(*pipeline.slots[drained % kSlots], batch, check, none, kernel_seconds));
  }
  return first_bad;
}

}  // namespace gpp::kernels::detail
