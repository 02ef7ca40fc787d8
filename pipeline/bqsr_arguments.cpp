#include "pipeline/bqsr_arguments.hpp"

namespace gpp::pipeline {

stages::bqsr::CountingOptions BaseRecalibratorArguments::counting(kernels::Backend backend,
                                                                  PhaseTimes* times) const {
  return {.indel_tables = indel_tables,
          .enable_baq = enable_baq,
          .method = counting_method == "sort-reduce" ? stages::bqsr::CountingMethod::kSortReduce
                                                     : stages::bqsr::CountingMethod::kDense,
          .backend = backend,
          .times = times};
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
}

}  // namespace gpp::pipeline
