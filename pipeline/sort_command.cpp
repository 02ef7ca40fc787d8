// gpu-pipeline sort: coordinate order identical to `samtools sort`, indexed output.
#include <memory>

#include "io/alignment_writer.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/log.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace gpp::pipeline {

namespace {

struct SortOptions {
  std::string input;
  std::string output;
  std::string reference;
  std::string sort_order = "coordinate";
};

void run_sort(const SortOptions& options, const CommonOptions& common) {
  if (options.sort_order != "coordinate") {
    not_implemented("sort --sort-order " + options.sort_order);
  }
  const kernels::Backend backend = choose_backend(common);
  io::Header header;
  const io::ReadBatch reads = load_alignments(options.input, options.reference, common, header);
  const auto order = stages::sort::coordinate_order(reads, backend);
  io::Header sorted_header = header.clone();
  sorted_header.set_sort_order("coordinate");
  save_alignments(options.output, sorted_header, reads, order, options.reference, common, true);
}

}  // namespace

Command add_sort_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<SortOptions>();
  CLI::App* app = root.add_subcommand("sort", "Sort alignments in samtools coordinate order");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM")->required();
  add_output_option(*app, options->output, "output BAM/SAM/CRAM (BAM and CRAM are indexed)", true)
      ->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA (for CRAM)");
  app->add_option("--sort-order", options->sort_order, "coordinate or queryname")
      ->check(CLI::IsMember({"coordinate", "queryname"}));
  add_common_options(*app, common);
  return {app, [options, &common] { run_sort(*options, common); }};
}

}  // namespace gpp::pipeline
