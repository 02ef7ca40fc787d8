// gpu-pipeline bqsr: GATK BaseRecalibrator (recalibration table identical).
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/genome/intervals.hpp"
#include "io/genome/reference.hpp"
#include "io/output_file.hpp"
#include "io/text/text_output.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/bqsr_arguments.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/genome_context.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/interval_arguments.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/bqsr/interval_filter.hpp"
#include "stages/bqsr/read_transform.hpp"
#include "stages/bqsr/recal_report.hpp"

namespace gpp::pipeline {

namespace {
struct BqsrOptions {
  std::vector<std::string> inputs;  ///< -I, repeatable: several are merged as GATK merges them
  std::string reference;
  std::vector<std::string> known_sites;
  std::string output;
  IntervalArguments intervals;
  BaseRecalibratorArguments recalibration;
  std::size_t records_per_batch = kDefaultRecordsPerBatch;
};

// BaseRecalibrator only adds counts: the input streams through in batches (the next one read
// while this one is counted), and each contig's bases and known sites are loaded when its first
// read arrives.
void run_bqsr(const BqsrOptions& options, const CommonOptions& common) {
  std::vector<std::string> inputs = options.inputs;
  inputs.push_back(options.reference);
  inputs.insert(inputs.end(), options.known_sites.begin(), options.known_sites.end());
  const std::vector<std::string> interval_files = options.intervals.files();
  inputs.insert(inputs.end(), interval_files.begin(), interval_files.end());
  io::check_outputs_distinct(inputs, {options.output});
  if (options.known_sites.empty()) throw Error("bqsr needs at least one --known-sites VCF");
  const auto start = std::chrono::steady_clock::now();
  // The GPU's context is made while the files are opened and the first batch read.
  GpuSession& gpu = gpu_session(common);
  gpu.start(/*bam_output=*/false);
  const kernels::Backend backend = gpu.backend();
  io::Reference reference(options.reference);
  AlignmentInputs reader(options.inputs, streaming_reader_options(common, options.reference));
  const io::Header& header = reader.header();
  reference.check_matches(header, reader.name());
  const bool restricted = !options.intervals.empty();
  const std::vector<io::Interval> parsed = options.intervals.parse(header);
  const stages::bqsr::ContigSpans intervals =
      restricted ? stages::bqsr::spans_by_contig(header, parsed) : stages::bqsr::ContigSpans{};
  // The records of other places are not counted: with an index they are not read either (a
  // recalibration scattered over intervals reads each shard's part of the file).
  reader.read_near_intervals(parsed, 0);
  const BaseRecalibratorArguments& recalibration = options.recalibration;
  if (backend == kernels::Backend::kGpu && (recalibration.enable_baq || recalibration.indel_tables))
    log::info("bqsr: --enable-baq and indel tables are counted on the CPU");
  GenomeContextLoader loader(reference, header, options.known_sites);
  // Coordinate order: a contig's bases and known sites are freed once its reads have passed (a
  // genome's are gigabytes); a record on an earlier contig would then find none, so it is an
  // error.
  const bool coordinate_sorted = header.sort_order() == "coordinate";
  std::int32_t current_tid = 0;
  auto free_passed_contigs = [&](const io::ReadBatch& batch) {
    const std::int32_t first = current_tid;
    for (const std::int32_t tid : batch.tid) {
      if (tid < 0) continue;
      if (tid < current_tid) {
        throw Error(reader.name() + ": the records are not in coordinate order (" +
                    header.contigs()[static_cast<std::size_t>(tid)].name + " after " +
                    header.contigs()[static_cast<std::size_t>(current_tid)].name + ")");
      }
      current_tid = tid;
    }
    loader.unload_before(static_cast<std::size_t>(first));
  };
  PhaseTimes times;
  const stages::bqsr::CountingOptions counting_options =
      recalibration.counting(backend, &times, memory_budget(common));
  std::optional<stages::bqsr::CovariateCounting> counting;
  auto start_counting = [&] {
    gpu.started_backend();
    counting.emplace(header, recalibration.covariates, counting_options);
  };
  const std::uint64_t records = reader.read_in_batches(
      {options.records_per_batch, memory_budget(common) / kBatchesInFlight},
      [&](io::ReadBatch& batch) {
        if (restricted) stages::bqsr::restrict_to_intervals(batch, intervals);
        if (recalibration.use_original_qualities) {
          stages::bqsr::substitute_original_qualities(batch);
        }
        {
          const ScopedPhase phase(&times, "contigs (reference, known sites)");
          if (coordinate_sorted) free_passed_contigs(batch);
          loader.load_contigs_of(batch);
        }
        if (!counting) start_counting();
        counting->add(batch, loader.genome());
      },
      &times);
  if (!counting) start_counting();
  const stages::bqsr::RecalTables tables = counting->finish();
  log::debug("bqsr phases: " + times.summary());
  const stages::bqsr::ReadGroupKeys keys = stages::bqsr::read_group_keys(header);
  io::write_text_file(options.output,
                      stages::bqsr::format_recalibration_report(tables, keys.identifiers));
  log::info("counted covariates of " + std::to_string(records) + " records (" +
            std::string(kernels::backend_name(backend)) + ", " + recalibration.counting_method +
            ") into " + options.output + " in " +
            std::to_string(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) +
            " s");
}
}  // namespace

Command add_bqsr_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<BqsrOptions>();
  CLI::App* app = root.add_subcommand("bqsr", "Build a BQSR table as GATK BaseRecalibrator does");
  add_input_option(*app, options->inputs,
                   "input SAM/BAM/CRAM (duplicates marked); repeatable: the inputs are merged as "
                   "GATK merges them")
      ->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA")->required();
  app->add_option("--known-sites,--knownSites", options->known_sites,
                  "known sites VCF (repeatable)")
      ->required();
  add_output_option(*app, options->output, "recalibration table (GATKReport)", "--out-recal-file")
      ->required();
  add_interval_options(*app, options->intervals, "count only the reads overlapping intervals");
  add_base_recalibrator_options(*app, options->recalibration);
  app->add_option("--records-per-batch", options->records_per_batch,
                  "records held per batch (two batches in memory at once)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 28));
  add_common_options(*app, common);
  return {app, [options, &common] {
            naming_inputs_of_read_errors(options->inputs, [&] { run_bqsr(*options, common); });
          }};
}

}  // namespace gpp::pipeline
