// gpu-pipeline call: germline SNPs and indels with the HaplotypeCaller model, VCF or gVCF out.
#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "io/output_file.hpp"
#include "io/text/text_input.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/bqsr_arguments.hpp"
#include "pipeline/caller_arguments.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/haplotype_bam_output.hpp"
#include "pipeline/interval_arguments.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/spilled_runs.hpp"
#include "pipeline/tuning_overrides.hpp"
#include "pipeline/variant_calling.hpp"
#include "pipeline/variant_writer.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace gpp::pipeline {

namespace {

struct CallOptions {
  std::vector<std::string> inputs;  ///< -I, repeatable: several are merged as GATK merges them
  std::string reference;
  std::string output;
  IntervalArguments intervals;
  std::string recal_table;
  stages::bqsr::ApplyOptions apply;  ///< ApplyBQSR's options for --bqsr-recal-file
  bool gvcf = false;
  std::string emit_ref_confidence = "NONE";
  CallerArguments calling;
  stages::call::HaplotypeCallerOptions caller;  ///< what `calling` gives for the output's mode
};

/// -ERC NONE|GVCF|BP_RESOLUTION, with Parabricks' --gvcf standing for GVCF.
stages::call::ReferenceConfidenceMode reference_confidence_mode(const CallOptions& options) {
  using stages::call::ReferenceConfidenceMode;
  if (options.emit_ref_confidence == "BP_RESOLUTION") return ReferenceConfidenceMode::kBpResolution;
  if (options.emit_ref_confidence == "GVCF" || options.gvcf) return ReferenceConfidenceMode::kGvcf;
  return ReferenceConfidenceMode::kNone;
}

/// Records read at a time when the input streams (two batches are held).
constexpr std::size_t kCallRecordsPerBatch = std::size_t{1} << 18;

// Held or spilled, an input not marked coordinate-sorted is called in samtools' coordinate order
// (what calling its `samtools sort` would see): a held one already in that order is not sorted
// again.
bool in_coordinate_order(const io::ReadBatch& reads) {
  const io::Column<std::uint64_t> keys = stages::sort::coordinate_keys(reads);
  return std::is_sorted(keys.begin(), keys.end());
}

// What holding an input not marked sorted takes, per byte of its BAM: the records, their order,
// the caller's regions.
constexpr double kCallBytesPerBamByte = 5;

void run_call(CallOptions options, const CommonOptions& common) {
  std::vector<std::string> inputs = options.inputs;
  inputs.insert(inputs.end(), {options.reference, options.recal_table});
  const std::vector<std::string> interval_files = options.intervals.files();
  inputs.insert(inputs.end(), interval_files.begin(), interval_files.end());
  const std::vector<std::string> calling_files = options.calling.input_files();
  inputs.insert(inputs.end(), calling_files.begin(), calling_files.end());
  std::vector<std::string> outputs{options.output};
  if (!options.calling.bam_output.empty()) outputs.push_back(options.calling.bam_output);
  io::check_outputs_distinct(inputs, outputs);
  options.caller =
      options.calling.options(reference_confidence_mode(options), memory_budget(common));
  options.calling.warn_about_annotations();
  warn_about_mnps_in_gvcf(options.caller);
  if (options.calling.allele_specific() && !options.caller.emits_reference_confidence()) {
    throw Error(
        "allele-specific annotations (AS_*) are written to a gVCF, as the raw data GenotypeGVCFs "
        "combines: they need --emit-ref-confidence GVCF");
  }
  if (options.calling.blocks.floor_blocks && !options.caller.emits_reference_confidence()) {
    throw Error("--floor-blocks refers to gVCF blocks: it needs --emit-ref-confidence GVCF");
  }
  // A stream ("-", /dev/stdout, a FIFO) takes VCF text whatever its name (BGZF for a .gz name).
  if (!options.output.ends_with(".vcf") && !options.output.ends_with(".vcf.gz") &&
      !io::is_streamed_output(options.output)) {
    throw Error(options.output +
                ": the output must end in .vcf or .vcf.gz (or be - for "
                "standard output)");
  }
  const auto start = std::chrono::steady_clock::now();
  GpuSession& gpu = gpu_session(common);
  gpu.start(/*bam_output=*/false);  // the GPU's context is made while the inputs are opened

  const io::Reference reference(options.reference);
  std::optional<stages::bqsr::RecalibrationReport> report;
  if (!options.recal_table.empty()) {
    report = stages::bqsr::parse_recalibration_report(io::read_text_file(options.recal_table),
                                                      options.recal_table);
  }
  AlignmentInputs reader(options.inputs, streaming_reader_options(common, options.reference));
  const io::Header& header = reader.header();
  const std::string& input = reader.name();
  const std::string sample = called_sample(reader, options.calling.sample_name);
  options.caller.contamination_fraction = options.calling.contamination_fraction(sample);
  const std::vector<stages::call::PloidyRegion> sex_regions = sex_ploidy_regions(
      options.calling.sex, header, input, [&] { return reader.indexed_mapped_counts(); });
  options.caller.ploidy_regions.insert(options.caller.ploidy_regions.end(), sex_regions.begin(),
                                       sex_regions.end());
  const std::vector<io::Interval> intervals = options.intervals.parse(header);
  std::optional<stages::bqsr::RecalibratorPool> recalibrator;
  // Parabricks' --in-recal-file: ApplyBQSR on the fly, as calling on ApplyBQSR's output.
  // One recalibrator; the spilled runs' merge below makes as many as its batches leave room for.
  if (report) {
    recalibrator.emplace(header, *report, options.apply, gpu.backend(), 1);
  }
  // The engines are made once the device has started; calling starts meanwhile.
  stages::call::CallerEngines engines([&gpu] { return gpu.started_backend(); }, pairhmm_tuning(),
                                      smith_waterman_tuning());
  log::debug("call: calling");
  const CallingInputs calling_inputs =
      open_calling_inputs(options.calling.dbsnp, options.calling.alleles, header, input);
  VariantFileWriter writer(options.output, header, sample, common.command_line, options.caller,
                           options.calling.blocks, calling_inputs.dbsnp_file());
  writer.expect_calls_from(intervals, header);
  // -bamout: the called haplotypes and realigned reads beside the calls.
  std::optional<HaplotypeBamOutput> haplotype_bam;
  std::optional<CallSinkWithHaplotypeBam> with_bam;
  if (options.caller.bam_output.enabled) {
    haplotype_bam.emplace(options.calling.bam_output, header, options.caller.bam_output.type,
                          haplotype_bam_writer_options(common), options.reference);
    with_bam.emplace(writer, *haplotype_bam);
  }
  stages::call::CallSink& sink = with_bam ? static_cast<stages::call::CallSink&>(*with_bam)
                                          : static_cast<stages::call::CallSink&>(writer);
  CallingPass pass(header, input, sample, reference, intervals, options.caller, engines, sink,
                   calling_inputs.alleles_file());
  // With -L and an index only the reads the calling pass keeps are read, those within the
  // assembly padding of an interval: a genome called in shards reads each shard's part of the
  // file, not all of it.
  reader.read_near_intervals(intervals, options.caller.regions.padding);
  if (header.sort_order() == "coordinate") {
    // Streamed: the reads of the regions in flight are held, not the file. A contig the reads
    // need and the reference lacks is found when its first read comes.
    check_reference(header, input, reference, contigs_in_use({}, header, intervals), false);
    std::vector<std::uint32_t> rows;
    reader.read_in_batches(
        {kCallRecordsPerBatch, memory_budget(common) / kBatchesInFlight},
        [&](io::ReadBatch& batch) {
          if (recalibrator) recalibrator->apply_in_place(batch);
          rows.resize(batch.size());
          std::iota(rows.begin(), rows.end(), std::uint32_t{0});
          pass.add(batch, rows);
        },
        &engines.times);
    pass.finish();
    check_reference(header, input, reference, pass.contigs_used());
  } else if (reader.fit_in_memory(memory_budget(common), kCallBytesPerBamByte)) {
    // Not marked coordinate-sorted: the records are held, and put in order if they are not.
    io::ReadBatch reads;
    reader.read_into(reads);
    check_reference(header, input, reference, contigs_in_use(reads, header, intervals));
    if (recalibrator) recalibrator->apply_in_place(reads);
    std::vector<std::uint32_t> order;
    if (in_coordinate_order(reads)) {
      order.resize(reads.size());
      std::iota(order.begin(), order.end(), std::uint32_t{0});
    } else {
      log::info("call: " + input + " is not coordinate-sorted; sorting it in memory");
      order = stages::sort::coordinate_order(reads, gpu.backend());
    }
    pass.add(reads, order);
    pass.finish();
  } else {
    // Not marked sorted and larger than --max-memory (or a stream): sorted in runs spilled to
    // --tmp-dir, merged into the calling pass in the same order.
    const std::uint64_t budget = memory_budget(common);
    log::info("call: " + input +
              " is not marked coordinate-sorted; sorting it in runs spilled to disk");
    // Compressed on the CPU: the GPU's memory is the engines'; read back through the GPU decoder
    // (its buffers are made once, for the input).
    SpilledRuns runs(temporary_directory(common, options.output), header,
                     SpilledRuns::Order::kCoordinate, {},
                     [&common] { return gpu_session(common).share_inflater(); });
    std::vector<bool> with_reads(header.contigs().size());
    io::ReadBatch chunk;
    while (reader.read_batch(chunk, {.records = ~std::size_t{0}, .bytes = budget / 3}) > 0) {
      for (const std::int32_t tid : chunk.tid) {
        if (tid >= 0) with_reads[static_cast<std::size_t>(tid)] = true;
      }
      runs.add(chunk, stages::sort::coordinate_order(chunk, gpu.backend()));
      chunk.clear();
    }
    chunk = io::ReadBatch();
    check_reference(header, input, reference,
                    intervals.empty() ? with_reads : contigs_in_use({}, header, intervals));
    // The runs' batches are recalibrated as they are read, several at once.
    SpilledRuns::BatchPreparation recalibrate;
    if (report) {
      recalibrator.emplace(
          header, *report, options.apply, gpu.backend(),
          stages::bqsr::RecalibratorPool::most_within(budget, runs.merge_batch_bytes(budget)));
      recalibrate = [&](io::ReadBatch& batch) { recalibrator->apply_in_place(batch); };
    }
    runs.merge(
        budget, [&](MergedRows& merged) { pass.add(merged.rows()); }, nullptr, true, recalibrate);
    pass.finish();
  }
  // Where no batch needed the engines, their start is waited for (and its error given) here,
  // before the output is kept.
  engines.backend();
  log::debug("call: calling done, closing " + options.output);
  // Both outputs complete before either is named: an error leaves neither.
  writer.close();
  if (haplotype_bam) haplotype_bam->close();
  writer.commit();
  if (haplotype_bam) {
    haplotype_bam->commit();
    log::info("call: " + std::to_string(haplotype_bam->records_written()) +
              " haplotypes and reads written to " + options.calling.bam_output);
  }
  log_calling_summary(
      engines, writer.calls(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

Command add_call_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<CallOptions>();
  CLI::App* app =
      root.add_subcommand("call", "Call germline SNPs and indels as GATK HaplotypeCaller does");
  add_input_option(*app, options->inputs,
                   "input SAM/BAM/CRAM (one sample); repeatable: the inputs are merged in "
                   "coordinate order, read groups and programs merged as GATK merges them")
      ->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA")->required();
  app->add_option("-O,--output,--out-variants", options->output,
                  "output VCF (.vcf, or .vcf.gz with a .tbi; .g.vcf.gz for a gVCF)")
      ->required();
  add_interval_options(*app, options->intervals, "call only within intervals");
  app->add_option("--bqsr-recal-file,--in-recal-file", options->recal_table,
                  "recalibration table applied to the qualities on the fly (as ApplyBQSR, with "
                  "ApplyBQSR's options below)");
  add_apply_bqsr_options(*app, options->apply);
  add_caller_options(*app, options->calling);
  app->add_option("--emit-ref-confidence", options->emit_ref_confidence,
                  "NONE (a VCF), GVCF (reference blocks by GQ band) or BP_RESOLUTION (one record "
                  "per base); also -ERC")
      ->check(CLI::IsMember({"NONE", "GVCF", "BP_RESOLUTION"}));
  app->add_flag("--gvcf", options->gvcf, "write a gVCF (as --emit-ref-confidence GVCF)");
  add_common_options(*app, common);
  return {app, [options, &common] {
            naming_inputs_of_read_errors(options->inputs, [&] { run_call(*options, common); });
          }};
}

}  // namespace gpp::pipeline
