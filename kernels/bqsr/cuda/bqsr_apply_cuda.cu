// CUDA backend of ApplyBQSR's per-base work: one warp per read. The lanes find the low-quality
// tails with ballots, then each lane recalibrates every 32nd base with the rules of
// bqsr_core.hpp. Compiled with -fmad=false (and the core adds with __dadd_rn): the qualities come
// from the same double additions as on the host, bit for bit.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/bqsr/bqsr.hpp"
#include "kernels/bqsr/cuda/bqsr_cuda_common.cuh"
#include "kernels/bqsr/detail/backends.hpp"
#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/device/cuda/cuda_staging.cuh"

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

class CudaRecalibration {
 public:
  explicit CudaRecalibration(const RecalibrationModel& model)
      : y2_(cuda::to_device(model.y2)),
        context_delta_(cuda::to_device(model.context_delta)),
        cycle_delta_(cuda::to_device(model.cycle_delta)),
        quantized_(cuda::to_device(model.quantized)),
        static_map_(cuda::to_device(model.static_map)),
        model_{PosteriorTables{y2_.data(), context_delta_.data(), cycle_delta_.data(),
                               quantized_.data(), static_map_.data(), model.context_slots,
                               model.cycle_slots, model.preserve_below},
               model.context_size, model.low_quality_tail},
        blocks_(cuda::resident_blocks(recalibrate_kernel, kWarpKernelThreads)) {}

  void recalibrate(const ApplyReads& reads, std::span<std::uint8_t> out) {
    const std::size_t n = reads.read_group.size();
    if (n == 0) return;
    // Launch ranges: consecutive reads with at most kBasesPerLaunch bases (or one longer read).
    std::vector<std::pair<std::size_t, std::size_t>> launches;
    for (std::size_t first = 0; first < n;) {
      std::size_t last = first + 1;
      while (last < n && reads.offsets[last + 1] - reads.offsets[first] <= kBasesPerLaunch) ++last;
      launches.emplace_back(first, last);
      first = last;
    }
    try {
      for (std::size_t l = 0; l < launches.size(); ++l)
        launch(reads, launches[l], slots_[l % 2], out);
      for (Slot& slot : slots_) collect(slot, out);
    } catch (...) {
      for (Slot& slot : slots_) {  // nothing may still write into `out` once this returns
        cudaStreamSynchronize(slot.stream.get());
        slot.bases = 0;
      }
      throw;
    }
  }

 private:
  // Two slots: while the GPU works on one range, the CPU stages the next and unstages the one
  // before (page-locked buffers, copies with oneTBB). Kept from call to call.
  struct Slot {
    cuda::Stream stream;
    cuda::StagedUpload upload;
    cuda::DeviceBuffer<std::uint8_t> device_out;
    cuda::PinnedBuffer<std::uint8_t> staged_out;
    std::uint64_t origin = 0;
    std::uint64_t bases = 0;  ///< 0: nothing in flight
  };

  static void collect(Slot& slot, std::span<std::uint8_t> out) {
    if (slot.bases == 0) return;
    cuda::check(cudaStreamSynchronize(slot.stream.get()), "recalibrate qualities on the GPU");
    parallel_copy(out.data() + slot.origin, slot.staged_out.data(), slot.bases);
    slot.bases = 0;
  }

  void launch(const ApplyReads& reads, std::pair<std::size_t, std::size_t> range, Slot& slot,
              std::span<std::uint8_t> out) {
    const auto [first, last] = range;
    collect(slot, out);
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
    recalibrate_kernel<<<blocks_, kWarpKernelThreads, 0, slot.stream.get()>>>(
        model_, up.device<char>(d_bases), up.device<std::uint8_t>(d_quals),
        up.device<std::uint64_t>(d_offsets), origin, up.device<std::int32_t>(d_read_group),
        up.device<std::uint8_t>(d_strand), slot.device_out.data(), count);
    cuda::check_launch("recalibrate_kernel");
    cuda::check(cudaMemcpyAsync(slot.staged_out.data(), slot.device_out.data(), bases,
                                cudaMemcpyDeviceToHost, slot.stream.get()),
                "copy recalibrated qualities from the GPU");
    slot.origin = origin;
    slot.bases = bases;
  }

  cuda::DeviceBuffer<double> y2_, context_delta_, cycle_delta_;
  cuda::DeviceBuffer<std::int32_t> quantized_, static_map_;
  DeviceModel model_;
  int blocks_;
  Slot slots_[2];
};

CudaRecalibration* make_cuda_recalibration(const RecalibrationModel& model) {
  return std::make_unique<CudaRecalibration>(model).release();
}

void recalibrate_cuda(CudaRecalibration& recalibration, const ApplyReads& reads,
                      std::span<std::uint8_t> out) {
  recalibration.recalibrate(reads, out);
}

void destroy_cuda_recalibration(CudaRecalibration* recalibration) { delete recalibration; }

}  // namespace gpp::kernels::bqsr::detail
