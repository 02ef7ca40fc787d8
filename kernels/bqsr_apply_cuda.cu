// CUDA backend of ApplyBQSR's per-base work: one warp per read. The lanes find the low-quality
// tails with ballots, then each lane recalibrates every 32nd base with the rules of
// bqsr_core.hpp. Compiled with -fmad=false (and the core adds with __dadd_rn): the qualities come
// from the same double additions as on the host, bit for bit.
#include <algorithm>

#include "kernels/bqsr.hpp"
#include "kernels/bqsr_cuda_common.cuh"
#include "kernels/cuda_check.cuh"

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
constexpr std::uint64_t kBasesPerLaunch = std::uint64_t{1} << 28;

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
  std::uint64_t max_bases = 0;
  std::size_t max_reads = 0;
  std::vector<std::pair<std::size_t, std::size_t>> launches;
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first + 1;
    while (last < n && reads.offsets[last + 1] - reads.offsets[first] <= kBasesPerLaunch) ++last;
    launches.emplace_back(first, last);
    max_bases = std::max(max_bases, reads.offsets[last] - reads.offsets[first]);
    max_reads = std::max(max_reads, last - first);
    first = last;
  }
  cuda::Stream stream;
  cuda::DeviceBuffer<char> d_bases(max_bases);
  cuda::DeviceBuffer<std::uint8_t> d_quals(max_bases), d_out(max_bases);
  cuda::DeviceBuffer<std::uint64_t> d_offsets(max_reads + 1);
  cuda::DeviceBuffer<std::int32_t> d_read_group(max_reads);
  cuda::DeviceBuffer<std::uint8_t> d_strand(max_reads);
  const int blocks = cuda::resident_blocks(recalibrate_kernel, kWarpKernelThreads);
  for (const auto& [first, last] : launches) {
    const std::uint64_t origin = reads.offsets[first];
    const std::uint64_t bases = reads.offsets[last] - origin;
    const std::size_t count = last - first;
    cuda::copy_to_device(d_bases.data(), reads.bases.data() + origin, bases, stream);
    cuda::copy_to_device(d_quals.data(), reads.quals.data() + origin, bases, stream);
    cuda::copy_to_device(d_offsets.data(), reads.offsets.data() + first, count + 1, stream);
    cuda::copy_to_device(d_read_group.data(), reads.read_group.data() + first, count, stream);
    cuda::copy_to_device(d_strand.data(), reads.strand.data() + first, count, stream);
    recalibrate_kernel<<<blocks, kWarpKernelThreads, 0, stream.get()>>>(
        device_model, d_bases.data(), d_quals.data(), d_offsets.data(), origin, d_read_group.data(),
        d_strand.data(), d_out.data(), count);
    cuda::check_launch("recalibrate_kernel");
    check(cudaMemcpyAsync(out.data() + origin, d_out.data(), bases, cudaMemcpyDeviceToHost,
                          stream.get()),
          "copy recalibrated qualities from the GPU");
  }
  check(cudaStreamSynchronize(stream.get()), "recalibrate qualities on the GPU");
}

}  // namespace gpp::kernels::bqsr::detail
