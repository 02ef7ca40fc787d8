// BaseRecalibrator counting through the batch kernels (kernels/bqsr.hpp): the per-read transforms
// (filters, CIGAR consolidation, adaptor and soft-clip clipping, known-site ranges) run here on
// the CPU and produce compact per-read descriptors; the per-base work (covariate keys, the
// reference mismatch test, skipping, accumulation) runs in the kernel of the chosen backend
// (kGpu: CUDA; kCpu: the kernels' host model, for tests). Mismatch (M) events only, no BAQ:
// count_covariates keeps the other configurations on the CPU.
#pragma once

#include "io/header.hpp"
#include "io/read_batch.hpp"
#include "kernels/bqsr.hpp"
#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/phase_times.hpp"

namespace gpp::stages::bqsr {

/// The finalized tables count_covariates gives without indel tables and BAQ, byte for byte.
RecalTables count_covariates_with_kernels(const io::ReadBatch& reads, const io::Header& header,
                                          const GenomeContext& genome,
                                          const CovariateOptions& options, kernels::Backend backend,
                                          kernels::bqsr::CountingMethod method,
                                          PhaseTimes* times = nullptr);

}  // namespace gpp::stages::bqsr
