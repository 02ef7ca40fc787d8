// gpu-pipeline pairhmm: GATK PairHMM log10 likelihoods for a batch file.
#include <memory>

#include "pipeline/commands.hpp"

namespace gpp::pipeline {

namespace {
struct PairHmmOptions {
  std::string input;
  std::string output;
  std::string precision = "auto";
};
}  // namespace

Command add_pairhmm_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<PairHmmOptions>();
  CLI::App* app = root.add_subcommand("pairhmm", "Score read/haplotype batches with GATK's PairHMM");
  app->add_option("-I,--input", options->input, "batch file (R H, R read lines, H haplotypes)");
  app->add_option("-O,--output", options->output, "scores (log10, one line per read)");
  app->add_option("--precision", options->precision, "auto, float or double")
      ->check(CLI::IsMember({"auto", "float", "double"}));
  add_common_options(*app, common);
  return {app, [] { not_implemented("pairhmm"); }};
}

}  // namespace gpp::pipeline
