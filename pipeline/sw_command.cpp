// gpu-pipeline sw: GATK Smith-Waterman alignments (offset and CIGAR) for a table of pairs.
#include <memory>

#include "pipeline/commands.hpp"

namespace gpp::pipeline {

namespace {
struct SwOptions {
  std::string input;
  std::string output;
};
}  // namespace

Command add_sw_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<SwOptions>();
  CLI::App* app = root.add_subcommand("sw", "Align sequence pairs with GATK's Smith-Waterman");
  app->add_option("-I,--input", options->input, "pairs TSV: ref alt match mismatch open extend mode");
  app->add_option("-O,--output", options->output, "offset and CIGAR per pair");
  add_common_options(*app, common);
  return {app, [] { not_implemented("sw"); }};
}

}  // namespace gpp::pipeline
