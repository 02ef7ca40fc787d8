// The engines' tuning for this process: the tuned defaults of kernels::PairHmmTuning and
// kernels::SwTuning, with the overrides of measurements and experiments taken from the environment.
// This is the only place that reads them (the kernels take their settings as arguments):
//
//   GPP_PAIRHMM_CPU_SIMD=generic|avx2|avx512   widest CPU PairHMM sweep
//   GPP_PAIRHMM_ITEM_COLUMNS=N                 GPU work item: a read against >= N haplotype bases
//   GPP_PAIRHMM_CHUNKS=N, GPP_PAIRHMM_FIRST_CHUNK=M   GPU chunks of 1/N of a batch (first 1/M)
//   GPP_PAIRHMM_BIN_STREAMS=N                  GPU streams for the length bins (1..8)
//   GPP_PAIRHMM_TILES=narrow                   GPU single-tile kernels of <= 12 rows per thread
//   GPP_PAIRHMM_PROFILE=1|2                    GPU: per-bin kernel times and timeline | timeline
//   GPP_SW_CPU_ISA=avx512|avx2|baseline|scalar widest CPU Smith-Waterman unit
//   GPP_SW_GPU_BUDGET_MB=N, GPP_SW_GPU_MAX_PAIR_MB=N  GPU traceback bytes per chunk / per pair
//   GPP_SW_PROFILE=1                           Smith-Waterman phases on stderr
//
// They reach `pairhmm` and `sw`, the PairHMM of `call` and `run`, and the benchmark programs.
// A value that is not a number is ignored (the default stays).
#pragma once

#include "kernels/pairhmm/pairhmm.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::pipeline {

/// kernels::PairHmmTuning{} with the GPP_PAIRHMM_* overrides.
kernels::PairHmmTuning pairhmm_tuning();

/// kernels::SwTuning{} with the GPP_SW_* overrides.
kernels::SwTuning smith_waterman_tuning();

}  // namespace gpp::pipeline
