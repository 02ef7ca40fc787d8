// gpu-pipeline sort: coordinate order identical to `samtools sort` (indexed output), or query-name
// order identical to `samtools sort -n`.
#include <memory>

#include "io/bam/alignment_writer.hpp"
#include "io/output_file.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/spill_sort.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "stages/sort/queryname_sort.hpp"

namespace gpp::pipeline {

namespace {

struct SortOptions {
  std::string input;
  std::string output;
  std::string reference;
  std::string sort_order = "coordinate";
};

// Memory per byte of BAM input when sorting it whole: the records as read, their columns and
// the order (measured 3.7-4.1; CRAM counts double).
constexpr double kSortBytesPerBamByte = 5;

void run_sort(const SortOptions& options, const CommonOptions& common) {
  io::check_outputs_distinct({options.input, options.reference}, {options.output});
  const bool by_name = options.sort_order == "queryname";
  if (!fits_in_memory(options.input, memory_budget(common), kSortBytesPerBamByte)) {
    spill_sort({.input = options.input,
                .output = options.output,
                .reference = options.reference,
                .by_name = by_name},
               common);
    return;
  }
  GpuSession& gpu = gpu_session(common);
  gpu.start(/*bam_output=*/true);  // beside the reading
  io::Header header;
  // Records are only reordered: BAM input is kept as read and copied to the output.
  const io::ReadBatch reads =
      load_alignments(options.input, options.reference, common, header, true);
  const kernels::Backend backend = gpu.started_backend();
  // Names do not pack into fixed-width keys: query-name order is sorted on the CPU.
  const auto order = by_name ? stages::sort::queryname_order(reads)
                             : stages::sort::coordinate_order(reads, backend);
  io::Header sorted_header = header.clone();
  sorted_header.set_sort_order(options.sort_order);
  save_alignments(options.output, sorted_header, reads, order, options.reference, common, !by_name)
      ->commit();
}

}  // namespace

Command add_sort_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<SortOptions>();
  CLI::App* app = root.add_subcommand("sort", "Sort alignments in samtools coordinate order");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM")->required();
  add_output_option(*app, options->output, "output BAM/SAM/CRAM (BAM and CRAM are indexed)",
                    "--out-bam")
      ->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA (for CRAM)");
  app->add_option("--sort-order", options->sort_order, "coordinate or queryname")
      ->check(CLI::IsMember({"coordinate", "queryname"}));
  add_common_options(*app, common);
  return {app, [options, &common] { run_sort(*options, common); }};
}

}  // namespace gpp::pipeline
