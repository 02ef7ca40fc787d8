// CUDA backend of ApplyBQSR's per-base work: one warp per read. The lanes find the low-quality
// tails with ballots, then each lane recalibrates every 32nd base with the rules of
// bqsr_core.hpp. Compiled with -fmad=false (and the core adds with __dadd_rn): the qualities come
// from the same double additions as on the host, bit for bit.
#include <algorithm>

#include "kernels/bqsr.hpp"
#include "kernels/bqsr_cuda_common.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/cuda_staging.cuh"

namespace gpp::kernels::bqsr::detail {

namespace {

struct DeviceModel {
  PosteriorTables tables;
  int context_size;
  int low_quality_tail;
};

__global__ void recalibrate_kernel(DeviceModel model, const char* bases, const std::uint8_t* quals,
                                   const std::uint64_t* offsets, std::uint64_t origin,
                                   const std::int32_t* read_group, const std::uint8_t* strand,
                                   std::uint8_t* out, std::size_t reads) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * (blockDim.x / 32);
  for (std::size_t r = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
       r < reads; r += warps) {
    const std::uint64_t begin = offsets[r] - origin;
    const int length = static_cast<int>(offsets[r + 1] - offsets[r]);
    const std::uint8_t* q = quals + begin;
    std::uint8_t* result = out + begin;
    const std::int32_t rg = read_group[r];
    if (rg == kKeepQualities) {
      for (int k = lane; k < length; k += 32) result[k] = q[k];
      continue;
    }
    if (rg == kQuantizeOnly) {
      for (int k = lane; k < length; k += 32)
        result[k] = static_cast<std::uint8_t>(
            model.tables.quantized[q[k] < kQualCount ? q[k] : kQualCount - 1]);
      continue;
    }
    const GoodBases good = warp_good_bases(q, length, model.low_quality_tail, lane);
    const char* b = bases + begin;
    const std::uint8_t s = strand[r];
    for (int k = lane; k < length; k += 32) {
      const int context =
          context_key_at(b, length, good, s & kReverseStrand, model.context_size, k);
      result[k] = recalibrated_quality(model.tables, rg, q[k], context, cycle_key_at(length, s, k));
    }
  }
}

/// Reads per launch: bounded by bases so that device buffers stay small.
constexpr std::uint64_t kBasesPerLaunch = std::uint64_t{1} << 26;

}  // namespace

void recalibrate_qualities_cuda(const RecalibrationModel& model, const ApplyReads& reads,
                                std::span<std::uint8_t> out) {
  using cuda::check;
  const std::size_t n = reads.read_group.size();
  if (n == 0) return;
  const cuda::DeviceBuffer<double> y2 = cuda::to_device(model.y2);
  const cuda::DeviceBuffer<double> context_delta = cuda::to_device(model.context_delta);
  const cuda::DeviceBuffer<double> cycle_delta = cuda::to_device(model.cycle_delta);
  const cuda::DeviceBuffer<std::int32_t> quantized = cuda::to_device(model.quantized);
  const cuda::DeviceBuffer<std::int32_t> static_map = cuda::to_device(model.static_map);
  const DeviceModel device_model{
      PosteriorTables{y2.data(), context_delta.data(), cycle_delta.data(), quantized.data(),
                      static_map.data(), model.context_slots, model.cycle_slots,
                      model.preserve_below},
      model.context_size, model.low_quality_tail};

  // Launch ranges: consecutive reads with at most kBasesPerLaunch bases (or one longer read).
  std::vector<std::pair<std::size_t, std::size_t>> launches;
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first + 1;
    while (last < n && reads.offsets[last + 1] - reads.offsets[first] <= kBasesPerLaunch) ++last;
    launches.emplace_back(first, last);
    first = last;
  }
  // Two slots: while the GPU works on one range, the CPU stages the next and unstages the one
  // before (page-locked buffers, copies with oneTBB).
  struct Slot {
    cuda::Stream stream;
    cuda::StagedUpload upload;
    cuda::DeviceBuffer<std::uint8_t> device_out;
    cuda::PinnedBuffer<std::uint8_t> staged_out;
    std::uint64_t origin = 0;
    std::uint64_t bases = 0;  ///< 0: nothing in flight
  };
  Slot slots[2];
  auto collect = [&](Slot& slot) {
    if (slot.bases == 0) return;
    check(cudaStreamSynchronize(slot.stream.get()), "recalibrate qualities on the GPU");
    parallel_copy(out.data() + slot.origin, slot.staged_out.data(), slot.bases);
    slot.bases = 0;
  };
  const int blocks = cuda::resident_blocks(recalibrate_kernel, kWarpKernelThreads);
  for (std::size_t l = 0; l < launches.size(); ++l) {
    const auto [first, last] = launches[l];
    Slot& slot = slots[l % 2];
    collect(slot);
    const std::uint64_t origin = reads.offsets[first];
    const std::uint64_t bases = reads.offsets[last] - origin;
    const std::size_t count = last - first;
    cuda::StagedUpload& up = slot.upload;
    const std::size_t d_bases = up.add(reads.bases.subspan(origin, bases));
    const std::size_t d_quals = up.add(reads.quals.subspan(origin, bases));
    const std::size_t d_offsets = up.add(reads.offsets.subspan(first, count + 1));
    const std::size_t d_read_group = up.add(reads.read_group.subspan(first, count));
    const std::size_t d_strand = up.add(reads.strand.subspan(first, count));
    up.upload(slot.stream);
    cuda::reserve(slot.device_out, bases);
    cuda::reserve(slot.staged_out, bases);
    recalibrate_kernel<<<blocks, kWarpKernelThreads, 0, slot.stream.get()>>>(
        device_model, up.device<char>(d_bases), up.device<std::uint8_t>(d_quals),
        up.device<std::uint64_t>(d_offsets), origin, up.device<std::int32_t>(d_read_group),
        up.device<std::uint8_t>(d_strand), slot.device_out.data(), count);
    cuda::check_launch("recalibrate_kernel");
    check(cudaMemcpyAsync(slot.staged_out.data(), slot.device_out.data(), bases,
                          cudaMemcpyDeviceToHost, slot.stream.get()),
          "copy recalibrated qualities from the GPU");
    slot.origin = origin;
    slot.bases = bases;
  }
  for (Slot& slot : slots) collect(slot);
}

}  // namespace gpp::kernels::bqsr::detail
