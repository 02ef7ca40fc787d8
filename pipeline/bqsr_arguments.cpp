#include "pipeline/bqsr_arguments.hpp"

#include <cmath>
#include <string>

namespace gpp::pipeline {

stages::bqsr::CountingOptions BaseRecalibratorArguments::counting(
    kernels::Backend backend, PhaseTimes* times, std::uint64_t memory_bytes) const {
  return {.indel_tables = indel_tables,
          .enable_baq = enable_baq,
          .method = counting_method == "sort-reduce" ? stages::bqsr::CountingMethod::kSortReduce
                                                     : stages::bqsr::CountingMethod::kDense,
          .backend = backend,
          .times = times,
          .memory_bytes = memory_bytes};
}

void add_base_recalibrator_options(CLI::App& app, BaseRecalibratorArguments& arguments) {
  auto& c = arguments.covariates;
  app.add_option("--mismatches-context-size", c.mismatches_context_size,
                 "context size for mismatches (GATK default 2)")
      ->check(CLI::Range(1, 13));
  app.add_option("--indels-context-size", c.indels_context_size,
                 "context size for indels (GATK default 3)")
      ->check(CLI::Range(1, 13));
  app.add_option("--low-quality-tail", c.low_quality_tail,
                 "quality of read tails treated as N in contexts (default 2)")
      ->check(CLI::Range(0, 93));
  app.add_option("--maximum-cycle-value", c.maximum_cycle_value,
                 "largest cycle allowed (default 500)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--quantizing-levels", c.quantizing_levels,
                 "levels of the quantization map (default 16)")
      ->check(CLI::Range(1, 94));
  app.add_flag("--enable-baq", arguments.enable_baq, "BAQ-weighted errors (GATK 3 behaviour)");
  app.add_flag("--compute-indel-bqsr-tables,--indels", arguments.indel_tables,
               "also count insertion and deletion events");
  app.add_option("--counting-method", arguments.counting_method,
                 "how counts are accumulated: dense (default) or sort-reduce (same table)")
      ->check(CLI::IsMember({"dense", "sort-reduce"}));
  app.add_flag("--use-original-qualities", arguments.use_original_qualities,
               "count the qualities of the OQ tag where a read has one (also -OQ)");
}

void add_apply_bqsr_options(CLI::App& app, stages::bqsr::ApplyOptions& options,
                            bool with_original_qualities) {
  app.add_option("--quantize-quals", options.quantize_quals,
                 "quantize to N levels (0: off, the default; -1: the table's map)");
  // Qualities written to a BAM: SAM's 0..93 (255 would read as no qualities at all).
  app.add_option("--static-quantized-quals", options.static_quantized_quals,
                 "round to these qualities (repeatable)")
      ->check(CLI::Range(0, 93));
  app.add_flag("--round-down-quantized", options.round_down_quantized,
               "round down to the static qualities");
  app.add_flag("--emit-original-quals", options.emit_original_quals,
               "store the old qualities in OQ");
  app.add_option("--preserve-qscores-less-than", options.preserve_qscores_less_than,
                 "leave qualities below this (default 6)")
      ->check(CLI::Range(0, 94));
  app.add_option("--global-qscore-prior", options.global_qscore_prior,
                 "prior used instead of the read group's reported quality")
      ->check(CLI::Validator(
          [](const std::string& text) {
            // A quality: the prior is off at 0 and below (GATK's -1 default), at most 93.
            double value = 0;
            try {
              value = std::stod(text);
            } catch (const std::exception&) {
              return std::string("not a number: " + text);
            }
            return std::isfinite(value) && value <= 93 ? std::string()
                                                       : "a quality of at most 93: " + text;
          },
          "Q"));
  if (with_original_qualities) {
    app.add_flag("--use-original-qualities", options.use_original_qualities,
                 "recalibrate the OQ qualities (also -OQ)");
  }
  app.add_flag("--allow-missing-read-group", options.allow_missing_read_group,
               "only quantize reads whose read group is not in the table");
}

}  // namespace gpp::pipeline
