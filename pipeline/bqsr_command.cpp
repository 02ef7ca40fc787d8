// gpu-pipeline bqsr: GATK BaseRecalibrator (recalibration table identical).
#include <memory>
#include <vector>

#include "pipeline/commands.hpp"

namespace gpp::pipeline {

namespace {
struct BqsrOptions {
  std::string input;
  std::string reference;
  std::vector<std::string> known_sites;
  std::string output;
  std::vector<std::string> intervals;
};
}  // namespace

Command add_bqsr_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<BqsrOptions>();
  CLI::App* app = root.add_subcommand("bqsr", "Build a BQSR table as GATK BaseRecalibrator does");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM");
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA");
  app->add_option("--known-sites,--knownSites", options->known_sites, "known sites VCF (repeatable)");
  add_output_option(*app, options->output, "recalibration table (GATKReport)", false);
  app->add_option("-L,--intervals", options->intervals, "intervals (repeatable)");
  add_common_options(*app, common);
  return {app, [] { not_implemented("bqsr"); }};
}

}  // namespace gpp::pipeline
