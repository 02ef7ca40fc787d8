// The Smith-Waterman backends behind kernels::SmithWaterman: the CPU and CUDA aligners of a batch.
// Not part of the family's public API: only its own sources and white-box tests include this.
#pragma once

#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::kernels {
namespace detail {
/// One pair's result while a batch is assembled.
struct PairResult {
  std::int32_t offset = SwAlignments::kNoAlignment;
  CigarBuilder cigar;
};
/// Aligns the pairs at `indices` (none empty) into their slots of `results`; returns how many
/// the substring shortcut answered. Also the GPU backend's fallback for oversized pairs.
std::uint64_t smith_waterman_cpu(const SequencePairs& pairs, std::span<const std::uint32_t> indices,
                                 const SwParameters& parameters, OverhangStrategy strategy,
                                 std::span<PairResult> results, const SwTuning& tuning);
/// The CUDA backend's streams and buffers, kept by an aligner between batches.
struct SwGpuWorkspace;
struct SwGpuWorkspaceDeleter {
  void operator()(SwGpuWorkspace* workspace) const;
};
using SwGpuWorkspacePtr = std::unique_ptr<SwGpuWorkspace, SwGpuWorkspaceDeleter>;
/// @throws gpp::Error without a usable GPU
SwGpuWorkspacePtr make_sw_gpu_workspace();
void smith_waterman_cuda(const SequencePairs& pairs, std::span<const std::uint32_t> indices,
                         const SwParameters& parameters, OverhangStrategy strategy,
                         std::span<PairResult> results, SwStats& stats, const SwTuning& tuning,
                         SwGpuWorkspace& workspace);
}  // namespace detail

}  // namespace gpp::kernels
