// gpu-pipeline applybqsr: GATK ApplyBQSR (qualities identical).
#include <memory>

#include "pipeline/commands.hpp"

namespace gpp::pipeline {

namespace {
struct ApplyBqsrOptions {
  std::string input;
  std::string recal_table;
  std::string output;
};
}  // namespace

Command add_applybqsr_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<ApplyBqsrOptions>();
  CLI::App* app = root.add_subcommand("applybqsr", "Recalibrate base qualities as GATK ApplyBQSR does");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM");
  app->add_option("--bqsr-recal-file,--in-recal-file", options->recal_table, "recalibration table");
  add_output_option(*app, options->output, "output BAM", true);
  add_common_options(*app, common);
  return {app, [] { not_implemented("applybqsr"); }};
}

}  // namespace gpp::pipeline
