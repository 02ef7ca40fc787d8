// ApplyBQSR through the batch kernels (kernels/bqsr.hpp): the per-read decisions are made here
// (read group key, reads without qualities, -OQ, the cycle bound), the per-base work runs in the
// kernel of the chosen backend (kGpu: CUDA; kCpu: the kernels' host model, for tests).
#pragma once

#include <cstdint>

#include "io/read_batch.hpp"
#include "kernels/device.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/apply_setup.hpp"

namespace gpp::stages::bqsr {

/// New qualities of every record of `reads` into `qual` (layout of reads.qual), identical to the
/// CPU path of apply_recalibration.
void recalibrate_with_kernels(const io::ReadBatch& reads, const ApplySetup& setup,
                              const ApplyOptions& options, kernels::Backend backend,
                              io::Column<std::uint8_t>& qual, PhaseTimes* times = nullptr);

}  // namespace gpp::stages::bqsr
