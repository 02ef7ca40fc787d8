// BaseRecalibrator's and ApplyBQSR's arguments, declared once for every command that counts
// (`bqsr`, `run`) or applies a recalibration (`applybqsr`, `run`, `call --bqsr-recal-file`), so
// that an option added here reaches them all.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/phase_times.hpp"
#include "kernels/device/device.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/bqsr/covariates.hpp"

namespace gpp::pipeline {

struct BaseRecalibratorArguments {
  stages::bqsr::CovariateOptions covariates;
  bool enable_baq = false;
  bool indel_tables = false;
  std::string counting_method = "dense";
  /// -OQ: the OQ tag's qualities are counted (the commands substitute them in their batches,
  /// stages::bqsr::substitute_original_qualities, before counting).
  bool use_original_qualities = false;

  /// The counting options these arguments select, on `backend`, within `memory_bytes`
  /// (--max-memory).
  stages::bqsr::CountingOptions counting(kernels::Backend backend, PhaseTimes* times,
                                         std::uint64_t memory_bytes) const;
};

/// Declares GATK BaseRecalibrator's options (context sizes, low-quality tail, maximum cycle,
/// quantizing levels, --enable-baq, --compute-indel-bqsr-tables) and --counting-method on `app`.
void add_base_recalibrator_options(CLI::App& app, BaseRecalibratorArguments& arguments);

/// Declares GATK ApplyBQSR's options (--quantize-quals, --static-quantized-quals,
/// --round-down-quantized, --emit-original-quals, --preserve-qscores-less-than,
/// --global-qscore-prior, --allow-missing-read-group, and --use-original-qualities unless
/// `with_original_qualities` is false: `run` takes BaseRecalibrator's, which sets both).
void add_apply_bqsr_options(CLI::App& app, stages::bqsr::ApplyOptions& options,
                            bool with_original_qualities = true);

}  // namespace gpp::pipeline
