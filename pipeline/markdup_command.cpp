// gpu-pipeline markdup: Picard MarkDuplicates semantics (flags and metrics identical).
#include <algorithm>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/phase_times.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/output_file.hpp"
#include "io/text/text_output.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/spilled_marking.hpp"
#include "stages/markdup/mark_duplicates.hpp"

namespace gpp::pipeline {

namespace {

struct MarkdupOptions {
  std::vector<std::string> inputs;  ///< -I, repeatable: several are merged as Picard merges them
  std::string output;
  std::string metrics;
  std::string reference;
  bool remove_duplicates = false;
  int optical_pixel_distance = 100;
  std::string read_name_regex;
  std::string assume_sort_order;
};

// Memory per byte of BAM input when marking it whole: the records as read, their columns, the
// read ends and the order (measured 4.1; CRAM counts double).
constexpr double kMarkdupBytesPerBamByte = 5;

stages::markdup::MarkDuplicatesOptions marking_options(const MarkdupOptions& options,
                                                       const io::Header& header,
                                                       PhaseTimes* times) {
  return {.optical_pixel_distance = options.optical_pixel_distance,
          .read_name_regex = options.read_name_regex,
          .queryname_grouped =
              stages::markdup::uses_queryname_semantics(header, options.assume_sort_order),
          .times = times};
}

// Picard's rule for several inputs: they share the first one's sort order unless
// --assume-sort-order says what to take them as ("Files are not compatible with sort order").
void check_sort_orders(const AlignmentInputs& inputs, const MarkdupOptions& options) {
  if (!options.assume_sort_order.empty()) return;
  auto order = [&](std::size_t i) {
    const std::string so = inputs.input_header(i).sort_order();
    return so == "unknown" ? std::string("unsorted") : so;
  };
  for (std::size_t i = 1; i < inputs.paths().size(); ++i) {
    if (order(i) != order(0)) {
      throw Error(inputs.paths()[i] + ": sort order " + order(i) + ", while " + inputs.paths()[0] +
                  " is " + order(0) +
                  "; Picard marks inputs of one sort order (or give --assume-sort-order)");
    }
  }
}

void log_duplicates(std::uint64_t duplicates, std::uint64_t records) {
  log::info("marked " + std::to_string(duplicates) + " of " + std::to_string(records) +
            " records as duplicates");
}

// The metrics appear with the BAM, not before it (a failed or killed run leaves neither).
std::unique_ptr<io::OutputFile> stage_metrics(const MarkdupOptions& options,
                                              const CommonOptions& common, const std::string& start,
                                              const stages::markdup::MarkDuplicatesResult& result) {
  if (options.metrics.empty()) return nullptr;
  return io::stage_text_file(options.metrics, stages::markdup::format_metrics_file(
                                                  common.command_line, start, result.metrics,
                                                  result.single_library, result.histograms));
}

// The input as a whole in memory.
void mark_in_memory(const MarkdupOptions& options, const CommonOptions& common) {
  GpuSession& gpu = gpu_session(common);
  gpu.start(/*bam_output=*/true);  // beside the reading
  const std::string start = started_on();
  io::Header header;
  // Records change only in FLAG: BAM input is kept as read and copied to the output. What the
  // read ends take from each record is computed as it is decoded.
  stages::markdup::EndFeatures features(options.read_name_regex);
  io::ReadBatch reads;
  if (options.inputs.size() == 1) {
    reads = load_alignments(options.inputs[0], options.reference, common, header, true, &features);
  } else {
    AlignmentInputs inputs(options.inputs, streaming_reader_options(common, options.reference));
    check_sort_orders(inputs, options);
    header = inputs.header();
    inputs.read_into(reads, &features);
  }
  const kernels::Backend backend = gpu.started_backend();
  PhaseTimes times;
  stages::markdup::MarkDuplicatesOptions marking = marking_options(options, header, &times);
  marking.features = &features;
  stages::markdup::MarkDuplicatesResult result =
      stages::markdup::mark_duplicates(reads, header, marking, backend);
  log::debug("markdup phases: " + times.summary());
  reads.flag.assign(result.flags.begin(), result.flags.end());

  std::vector<std::uint32_t> kept;
  const std::vector<std::uint32_t>* order = &result.order;
  if (options.remove_duplicates) {
    for (const std::uint32_t i : result.order) {
      if (!(reads.flag[i] & io::flag::kDuplicate)) kept.push_back(i);
    }
    order = &kept;
  }
  log_duplicates(static_cast<std::uint64_t>(std::count_if(
                     result.flags.begin(), result.flags.end(),
                     [](std::uint16_t f) { return (f & io::flag::kDuplicate) != 0; })),
                 result.flags.size());
  io::Header sorted_header = header.clone();
  sorted_header.set_sort_order("coordinate");
  const std::unique_ptr<io::OutputFile> metrics = stage_metrics(options, common, start, result);
  save_alignments(options.output, sorted_header, reads, *order, options.reference, common, true)
      ->commit();
  if (metrics) metrics->commit();
}

// An input larger than --max-memory: records through spilled runs (pipeline/spilled_marking.hpp).
void mark_spilling(const MarkdupOptions& options, const CommonOptions& common) {
  const kernels::Backend backend = gpu_session(common).backend();
  const std::string start = started_on();
  const std::uint64_t budget = memory_budget(common);
  AlignmentInputs reader(options.inputs, streaming_reader_options(common, options.reference));
  check_sort_orders(reader, options);
  const io::Header& header = reader.header();
  PhaseTimes times;
  const stages::markdup::MarkDuplicatesOptions marking_with =
      marking_options(options, header, &times);
  SpilledMarking marking(
      reader, options.read_name_regex, marking_with.queryname_grouped, budget,
      temporary_directory(common, options.output), backend,
      [&common] { return spill_writer_options(common); },
      [&common] { return gpu_session(common).share_inflater(); });
  const stages::markdup::MarkDuplicatesResult result = marking.mark(header, marking_with, backend);
  log::debug("markdup phases: " + times.summary());
  log_duplicates(marking.duplicates(), marking.records());
  io::Header sorted_header = header.clone();
  sorted_header.set_sort_order("coordinate");
  const std::unique_ptr<io::OutputFile> metrics = stage_metrics(options, common, start, result);
  const auto writer =
      open_alignment_output(options.output, sorted_header, options.reference, common, true);
  PhaseTimes writing;
  marking.merge(
      options.remove_duplicates, budget,
      [&](MergedRows& merged) {
        timed_phase(&writing, "writing", [&] { writer->write(merged.rows()); });
      },
      &writing, true);
  writer->finish();
  add_write_stages(writing, *writer);
  log::info("writing: " + writing.summary());
  if (metrics) metrics->commit();
}

void run_markdup(const MarkdupOptions& options, const CommonOptions& common) {
  std::vector<std::string> inputs = options.inputs;
  inputs.push_back(options.reference);
  io::check_outputs_distinct(inputs, {options.output, options.metrics});
  if (fits_in_memory(options.inputs, memory_budget(common), kMarkdupBytesPerBamByte)) {
    mark_in_memory(options, common);
  } else {
    mark_spilling(options, common);
  }
}

}  // namespace

Command add_markdup_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<MarkdupOptions>();
  CLI::App* app = root.add_subcommand("markdup", "Mark duplicates as Picard MarkDuplicates does");
  add_input_option(*app, options->inputs,
                   "input SAM/BAM/CRAM, any order; repeatable: coordinate-sorted inputs are "
                   "merged as Picard merges them, others read one after another")
      ->required();
  add_output_option(*app, options->output, "output BAM, coordinate-sorted and indexed", "--out-bam")
      ->required();
  app->add_option("-M,--metrics-file,--out-duplicate-metrics", options->metrics,
                  "Picard DuplicationMetrics file");
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA (for CRAM)");
  app->add_flag("--remove-duplicates", options->remove_duplicates,
                "drop duplicates instead of flagging");
  app->add_option("--optical-duplicate-pixel-distance", options->optical_pixel_distance,
                  "maximum pixel distance of optical duplicates (Picard default 100)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--read-name-regex", options->read_name_regex,
                  "regex with three groups for tile, x, y (default: Picard's parser; null: off)");
  app->add_option(
         "--assume-sort-order", options->assume_sort_order,
         "queryname: input grouped by read name, marked per template as Picard marks "
         "queryname-sorted input; "
         "coordinate: marked in coordinate order (default: the header's SO decides, as in Picard)")
      ->check(CLI::IsMember({"coordinate", "queryname"}));
  add_common_options(*app, common);
  return {app, [options, &common] {
            naming_inputs_of_read_errors(options->inputs, [&] { run_markdup(*options, common); });
          }};
}

}  // namespace gpp::pipeline
