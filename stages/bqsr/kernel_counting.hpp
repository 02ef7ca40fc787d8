// BaseRecalibrator counting through the batch kernels (kernels/bqsr.hpp): the per-read transforms
// (filters, CIGAR consolidation, adaptor and soft-clip clipping, known-site ranges) run here on
// the CPU and produce compact per-read descriptors; the per-base work (covariate keys, the
// reference mismatch test, skipping, accumulation) runs in the kernel of the chosen backend
// (kGpu: CUDA; kCpu: the kernels' host model, for tests). Mismatch (M) events only, no BAQ:
// count_covariates keeps the other configurations on the CPU.
#pragma once

#include <memory>
#include <vector>

#include "core/phase_times.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "kernels/bqsr/bqsr.hpp"
#include "stages/bqsr/base_recalibrator.hpp"

namespace gpp::stages::bqsr {

/// BaseRecalibrator counting through the kernels, a batch of reads at a time; finish() gives the
/// finalized tables count_covariates gives without indel tables and BAQ, byte for byte.
class KernelCounting {
 public:
  /// @throws gpp::Error when the header has no read group
  KernelCounting(const io::Header& header, const CovariateOptions& options,
                 kernels::Backend backend, kernels::bqsr::CountingMethod method,
                 PhaseTimes* times = nullptr);
  ~KernelCounting();
  KernelCounting(const KernelCounting&) = delete;
  KernelCounting& operator=(const KernelCounting&) = delete;

  /// Bytes of the dense counts the kernels keep for `read_groups` (on the host, and as much on
  /// the device): 16 bytes a bin, every bin of every read group and quality.
  static std::uint64_t count_bytes(int read_groups, const CovariateOptions& options);

  /// Counts `reads`. Every contig they are on must be loaded in `genome`, whose bases must stay
  /// where they are until finish().
  void add(const io::ReadBatch& reads, const GenomeContext& genome);
  RecalTables finish();

 private:
  const io::Header& header_;
  CovariateOptions options_;
  ReadGroupKeys keys_;
  PhaseTimes* times_;
  kernels::bqsr::CountingShape shape_{};
  std::unique_ptr<kernels::bqsr::CovariateCounter> counter_;
  std::vector<bool> contig_given_;  // contigs whose bases the counter has
};

/// One KernelCounting over all of `reads`.
RecalTables count_covariates_with_kernels(const io::ReadBatch& reads, const io::Header& header,
                                          const GenomeContext& genome,
                                          const CovariateOptions& options, kernels::Backend backend,
                                          kernels::bqsr::CountingMethod method,
                                          PhaseTimes* times = nullptr);

}  // namespace gpp::stages::bqsr
