// BaseRecalibrator's arguments, declared once for every command that recalibrates (`bqsr` and
// `run`), so that an option added here reaches both.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/phase_times.hpp"
#include "kernels/device/device.hpp"
#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/bqsr/covariates.hpp"

namespace gpp::pipeline {

struct BaseRecalibratorArguments {
  stages::bqsr::CovariateOptions covariates;
  bool enable_baq = false;
  bool indel_tables = false;
  std::string counting_method = "dense";

  /// The counting options these arguments select, on `backend`.
  stages::bqsr::CountingOptions counting(kernels::Backend backend, PhaseTimes* times) const;
};

/// Declares GATK BaseRecalibrator's options (context sizes, low-quality tail, maximum cycle,
/// quantizing levels, --enable-baq, --compute-indel-bqsr-tables) and --counting-method on `app`.
void add_base_recalibrator_options(CLI::App& app, BaseRecalibratorArguments& arguments);

}  // namespace gpp::pipeline
