// gpu-pipeline call: germline small variants with the HaplotypeCaller model (VCF/gVCF).
#include <memory>
#include <vector>

#include "pipeline/commands.hpp"

namespace gpp::pipeline {

namespace {
struct CallOptions {
  std::string input;
  std::string reference;
  std::string output;
  std::vector<std::string> intervals;
  bool gvcf = false;
  std::string emit_ref_confidence = "NONE";
};
}  // namespace

Command add_call_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<CallOptions>();
  CLI::App* app =
      root.add_subcommand("call", "Call germline SNPs and indels as GATK HaplotypeCaller does");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM");
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA");
  add_output_option(*app, options->output, "output VCF (.vcf.gz gets a .tbi)", false);
  app->add_option("-L,--intervals", options->intervals, "intervals (repeatable)");
  app->add_option("--emit-ref-confidence,--ERC", options->emit_ref_confidence,
                  "NONE, GVCF or BP_RESOLUTION")
      ->check(CLI::IsMember({"NONE", "GVCF", "BP_RESOLUTION"}));
  app->add_flag("--gvcf", options->gvcf, "write a gVCF (same as --emit-ref-confidence GVCF)");
  add_common_options(*app, common);
  return {app, [] { not_implemented("call"); }};
}

}  // namespace gpp::pipeline
