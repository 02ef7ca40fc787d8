// gpu-pipeline applybqsr: GATK ApplyBQSR (qualities identical); with -L only the reads that
// overlap the intervals are written, as GATK's traversal gives them.
#include <chrono>
#include <memory>
#include <optional>

#include "io/bam/alignment_reader.hpp"
#include "io/output_file.hpp"
#include "io/text/text_input.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/bqsr_arguments.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/interval_arguments.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/interval_filter.hpp"
#include "stages/bqsr/recal_report.hpp"

namespace gpp::pipeline {

namespace {
struct ApplyBqsrOptions {
  std::vector<std::string> inputs;  ///< -I, repeatable: several are merged as GATK merges them
  std::string recal_table;
  std::string output;
  std::string reference;
  IntervalArguments intervals;
  std::size_t records_per_batch = kDefaultRecordsPerBatch;
  stages::bqsr::ApplyOptions apply;
};

// ApplyBQSR changes each read on its own: the input streams through in batches (read ahead and
// written behind), so memory does not grow with the file.
void run_applybqsr(const ApplyBqsrOptions& options, const CommonOptions& common) {
  std::vector<std::string> inputs = options.inputs;
  inputs.insert(inputs.end(), {options.recal_table, options.reference});
  const std::vector<std::string> interval_files = options.intervals.files();
  inputs.insert(inputs.end(), interval_files.begin(), interval_files.end());
  io::check_outputs_distinct(inputs, {options.output});
  const auto start = std::chrono::steady_clock::now();
  // The GPU's context is made while the table is parsed and the first batch read.
  GpuSession& gpu = gpu_session(common);
  gpu.start(/*bam_output=*/false);
  const kernels::Backend backend = gpu.backend();
  const stages::bqsr::RecalibrationReport report = stages::bqsr::parse_recalibration_report(
      io::read_text_file(options.recal_table), options.recal_table);
  AlignmentInputs reader(options.inputs, streaming_reader_options(common, options.reference));
  const bool coordinate_sorted = reader.header().sort_order() == "coordinate";
  const bool restricted = !options.intervals.empty();
  const std::vector<io::Interval> parsed = options.intervals.parse(reader.header());
  const stages::bqsr::ContigSpans intervals =
      restricted ? stages::bqsr::spans_by_contig(reader.header(), parsed)
                 : stages::bqsr::ContigSpans{};
  // With an index only the records near the intervals are read (a recalibration scattered over
  // intervals reads each shard's part of the file).
  reader.read_near_intervals(parsed, 0);
  const auto writer = open_alignment_output(options.output, reader.header(), options.reference,
                                            common, coordinate_sorted);
  PhaseTimes times;
  std::optional<stages::bqsr::QualityRecalibrator> recalibrator;
  const std::uint64_t records = reader.stream_to(
      *writer, {options.records_per_batch, memory_budget(common) / kBatchesInFlight},
      [&](io::ReadBatch& batch) {
        if (!recalibrator) {  // made once the first batch is in, so the GPU starts beside the
                              // reading
          gpu.started_backend();
          recalibrator.emplace(reader.header(), report, options.apply, backend);
        }
        if (restricted) stages::bqsr::keep_overlapping(batch, intervals);
        recalibrator->apply_in_place(batch, &times);
      },
      &times);
  writer->finish();
  log::debug("applybqsr phases: " + times.summary());
  log::info("recalibrated " + std::to_string(records) + " records (" +
            kernels::backend_name(backend) + ") into " + options.output +
            (coordinate_sorted ? " (indexed)" : "") + " in " +
            std::to_string(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) +
            " s");
}
}  // namespace

Command add_applybqsr_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<ApplyBqsrOptions>();
  CLI::App* app =
      root.add_subcommand("applybqsr", "Recalibrate base qualities as GATK ApplyBQSR does");
  add_input_option(*app, options->inputs,
                   "input SAM/BAM/CRAM; repeatable: the inputs are merged as GATK merges them")
      ->required();
  app->add_option("--bqsr-recal-file,--in-recal-file", options->recal_table,
                  "recalibration table (plain or gzipped)")
      ->required();
  add_output_option(*app, options->output, "output BAM", "--out-bam")->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA (for CRAM)");
  add_interval_options(
      *app, options->intervals,
      "write only the reads overlapping intervals (an index is used when present)");
  app->add_option("--records-per-batch", options->records_per_batch,
                  "records held per batch (three batches in memory at once)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 28));
  add_apply_bqsr_options(*app, options->apply);
  add_common_options(*app, common);
  return {app, [options, &common] {
            naming_inputs_of_read_errors(options->inputs, [&] { run_applybqsr(*options, common); });
          }};
}

}  // namespace gpp::pipeline
