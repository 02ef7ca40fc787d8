// ApplyBQSR through the batch kernels (kernels/bqsr.hpp): the per-read decisions are made here
// (read group key, reads without qualities, -OQ, the cycle bound), the per-base work runs in the
// kernel of the chosen backend (kGpu: CUDA; kCpu: the kernels' host model, for tests).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "io/reads/read_batch.hpp"
#include "kernels/bqsr/bqsr.hpp"
#include "kernels/device/device.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/apply_setup.hpp"

namespace gpp::stages::bqsr {

/// New qualities of batch after batch of records through the kernels, identical to the CPU path
/// of apply_recalibration. The kernel model (and the GPU's buffers) are made once. `setup` must
/// outlive this object; one caller at a time.
class KernelRecalibration {
 public:
  KernelRecalibration(const ApplySetup& setup, const ApplyOptions& options,
                      kernels::Backend backend);
  ~KernelRecalibration();
  KernelRecalibration(const KernelRecalibration&) = delete;
  KernelRecalibration& operator=(const KernelRecalibration&) = delete;

  /// New qualities of every record of `reads` into `qual` (layout of reads.qual).
  void recalibrate(const io::ReadBatch& reads, io::Column<std::uint8_t>& qual,
                   PhaseTimes* times = nullptr);

 private:
  const ApplySetup& setup_;
  ApplyOptions options_;
  std::vector<std::int32_t> quantized_, static_map_;
  std::unique_ptr<kernels::bqsr::QualityRecalibration> engine_;
};

/// One KernelRecalibration over `reads`.
void recalibrate_with_kernels(const io::ReadBatch& reads, const ApplySetup& setup,
                              const ApplyOptions& options, kernels::Backend backend,
                              io::Column<std::uint8_t>& qual, PhaseTimes* times = nullptr);

}  // namespace gpp::stages::bqsr
