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
#include "pipeline/alignment_io.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
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
  std::string input;
  std::string reference;
  std::string output;
  IntervalArguments intervals;
  std::string recal_table;
  std::string pcr_indel_model = "CONSERVATIVE";
  bool gvcf = false;
  std::string emit_ref_confidence = "NONE";
  stages::call::HaplotypeCallerOptions caller;
  stages::call::GvcfOptions blocks;
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

stages::call::PcrIndelModelKind pcr_model(const std::string& name) {
  using stages::call::PcrIndelModelKind;
  if (name == "NONE") return PcrIndelModelKind::kNone;
  if (name == "HOSTILE") return PcrIndelModelKind::kHostile;
  if (name == "AGGRESSIVE") return PcrIndelModelKind::kAggressive;
  return PcrIndelModelKind::kConservative;
}

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
  std::vector<std::string> inputs{options.input, options.reference, options.recal_table};
  const std::vector<std::string> interval_files = options.intervals.files();
  inputs.insert(inputs.end(), interval_files.begin(), interval_files.end());
  io::check_outputs_distinct(inputs, {options.output});
  options.caller.reference_confidence = reference_confidence_mode(options);
  if (options.blocks.floor_blocks && !options.caller.emits_reference_confidence()) {
    throw Error("--floor-blocks refers to gVCF blocks: it needs --emit-ref-confidence GVCF");
  }
  // A stream ("-", /dev/stdout, a FIFO) takes VCF text whatever its name (BGZF for a .gz name).
  if (!options.output.ends_with(".vcf") && !options.output.ends_with(".vcf.gz") &&
      !io::is_streamed_output(options.output)) {
    throw Error(options.output +
                ": the output must end in .vcf or .vcf.gz (or be - for "
                "standard output)");
  }
  io::check_output_writable(options.output);
  const auto start = std::chrono::steady_clock::now();
  GpuSession& gpu = gpu_session(common);
  gpu.start(/*bam_output=*/false);  // the GPU's context is made while the inputs are opened
  options.caller.pcr_indel_model = pcr_model(options.pcr_indel_model);
  options.caller.derive();
  options.caller.regions.validate();
  options.caller.regions_per_batch = regions_per_batch(memory_budget(common));

  const io::Reference reference(options.reference);
  std::optional<stages::bqsr::RecalibrationReport> report;
  if (!options.recal_table.empty()) {
    report = stages::bqsr::parse_recalibration_report(io::read_text_file(options.recal_table),
                                                      options.recal_table);
  }
  io::AlignmentReader reader(options.input, streaming_reader_options(common, options.reference));
  const io::Header& header = reader.header();
  const std::string sample = single_sample(header, options.input);
  const std::vector<io::Interval> intervals = options.intervals.parse(header);
  std::optional<stages::bqsr::RecalibratorPool> recalibrator;
  // Parabricks' --in-recal-file: ApplyBQSR on the fly, as calling on ApplyBQSR's output.
  // One recalibrator; the spilled runs' merge below makes as many as its batches leave room for.
  if (report) {
    recalibrator.emplace(header, *report, stages::bqsr::ApplyOptions{}, gpu.backend(), 1);
  }
  // The engines are made once the device has started; calling starts meanwhile.
  stages::call::CallerEngines engines([&gpu] { return gpu.started_backend(); }, pairhmm_tuning(),
                                      smith_waterman_tuning());
  log::debug("call: calling");
  VariantFileWriter writer(options.output, header, sample, common.command_line,
                           options.caller.reference_confidence, options.blocks);
  CallingPass pass(header, options.input, reference, intervals, options.caller, engines, writer);
  // With -L and an index only the reads the calling pass keeps are read, those within the
  // assembly padding of an interval: a genome called in shards reads each shard's part of the
  // file, not all of it.
  read_near_intervals(reader, intervals, options.caller.regions.padding);
  if (header.sort_order() == "coordinate") {
    // Streamed: the reads of the regions in flight are held, not the file. A contig the reads
    // need and the reference lacks is found when its first read comes.
    check_reference(header, options.input, reference, contigs_in_use({}, header, intervals), false);
    std::vector<std::uint32_t> rows;
    read_in_batches(
        reader, {kCallRecordsPerBatch, memory_budget(common) / kBatchesInFlight},
        [&](io::ReadBatch& batch) {
          if (recalibrator) recalibrator->apply_in_place(batch);
          rows.resize(batch.size());
          std::iota(rows.begin(), rows.end(), std::uint32_t{0});
          pass.add(batch, rows);
        },
        &engines.times);
    pass.finish();
    check_reference(header, options.input, reference, pass.contigs_used());
  } else if (fits_in_memory(options.input, memory_budget(common), kCallBytesPerBamByte)) {
    // Not marked coordinate-sorted: the records are held, and put in order if they are not.
    io::ReadBatch reads;
    reader.read_into(reads);
    check_reference(header, options.input, reference, contigs_in_use(reads, header, intervals));
    if (recalibrator) recalibrator->apply_in_place(reads);
    std::vector<std::uint32_t> order;
    if (in_coordinate_order(reads)) {
      order.resize(reads.size());
      std::iota(order.begin(), order.end(), std::uint32_t{0});
    } else {
      log::info("call: " + options.input + " is not coordinate-sorted; sorting it in memory");
      order = stages::sort::coordinate_order(reads, gpu.backend());
    }
    pass.add(reads, order);
    pass.finish();
  } else {
    // Not marked sorted and larger than --max-memory (or a stream): sorted in runs spilled to
    // --tmp-dir, merged into the calling pass in the same order.
    const std::uint64_t budget = memory_budget(common);
    log::info("call: " + options.input +
              " is not marked coordinate-sorted; sorting it in runs spilled to disk");
    // Compressed on the CPU: the GPU's memory is the engines'; read back through the GPU decoder
    // (its buffers are made once, for the input).
    SpilledRuns runs(temporary_directory(common, options.output), header,
                     SpilledRuns::Order::kCoordinate, {},
                     [&common] { return gpu_session(common).share_inflater(); });
    std::vector<bool> with_reads(header.contigs().size());
    io::ReadBatch chunk;
    while (read_batch(reader, chunk, {.records = ~std::size_t{0}, .bytes = budget / 3}) > 0) {
      for (const std::int32_t tid : chunk.tid) {
        if (tid >= 0) with_reads[static_cast<std::size_t>(tid)] = true;
      }
      runs.add(chunk, stages::sort::coordinate_order(chunk, gpu.backend()));
      chunk.clear();
    }
    chunk = io::ReadBatch();
    check_reference(header, options.input, reference,
                    intervals.empty() ? with_reads : contigs_in_use({}, header, intervals));
    // The runs' batches are recalibrated as they are read, several at once.
    SpilledRuns::BatchPreparation recalibrate;
    if (report) {
      recalibrator.emplace(
          header, *report, stages::bqsr::ApplyOptions{}, gpu.backend(),
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
  writer.commit();
  log_calling_summary(
      engines, writer.calls(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// Parabricks' --filter-reads-too-long: "Ignore all input BAM reads with size > 500bp".
constexpr std::int64_t kLongReadBases = 500;

}  // namespace

Command add_call_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<CallOptions>();
  stages::call::HaplotypeCallerOptions& caller = options->caller;
  CLI::App* app =
      root.add_subcommand("call", "Call germline SNPs and indels as GATK HaplotypeCaller does");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM (one sample)")->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA")->required();
  app->add_option("-O,--output,--out-variants", options->output,
                  "output VCF (.vcf, or .vcf.gz with a .tbi; .g.vcf.gz for a gVCF)")
      ->required();
  add_interval_options(*app, options->intervals, "call only within intervals");
  app->add_option("--bqsr-recal-file,--in-recal-file", options->recal_table,
                  "recalibration table applied to the qualities on the fly (as ApplyBQSR)");
  app->add_option("--sample-ploidy,--ploidy", caller.sample_ploidy, "ploidy of the sample")
      ->check(CLI::Range(1, 8));
  app->add_option("--standard-min-confidence-threshold-for-calling",
                  caller.genotyping.standard_confidence_for_calling,
                  "minimum QUAL of an emitted call")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--min-base-quality-score", caller.min_base_quality,
                  "bases below this quality are not used")
      ->check(CLI::Range(1, 60));
  app->add_option("--minimum-mapping-quality", caller.min_mapping_quality,
                  "reads below this mapping quality are not used (MappingQualityReadFilter)")
      ->check(CLI::Range(0, 255));
  app->add_flag_callback(
      "--filter-reads-too-long", [&caller] { caller.max_read_length = kLongReadBases; },
      "leave reads of more than 500 bases out (Parabricks' option; GATK's ReadLengthReadFilter)");
  app->add_flag(
      "--enable-dynamic-read-disqualification-for-genotyping",
      caller.likelihoods.dynamic_read_disqualification,
      "disqualify low base quality reads less strictly (DRAGEN-GATK's dynamic threshold)");
  app->add_option("--dynamic-read-disqualification-threshold",
                  caller.likelihoods.read_disqualification_scale,
                  "scale of the dynamic read disqualification threshold")
      ->check(CLI::Range(0.0, 1000.0));
  app->add_option("--mapping-quality-threshold-for-genotyping",
                  caller.genotyping_filter.mapping_quality_threshold,
                  "reads below this mapping quality are assembled but not genotyped")
      ->check(CLI::Range(0, 255));
  app->add_option("--max-reads-per-alignment-start", caller.max_reads_per_alignment_start,
                  "downsampling: reads kept per start position (0: off)")
      ->check(CLI::Range(0, 1 << 20));
  app->add_option(
         "--max-reads-per-region", caller.max_reads_per_region,
         "reads kept in one assembly region (whole fragments chosen by name hash; 0: no bound)")
      ->check(CLI::Range(0, 1 << 24));
  app->add_option("--pcr-indel-model", options->pcr_indel_model, "PCR indel error model")
      ->check(CLI::IsMember({"NONE", "HOSTILE", "AGGRESSIVE", "CONSERVATIVE"}));
  app->add_flag("--dont-use-soft-clipped-bases", caller.finalization.dont_use_soft_clipped_bases,
                "do not use soft-clipped bases");
  app->add_option("--max-num-haplotypes-in-population",
                  caller.assembly.max_num_haplotypes_in_population, "haplotypes kept per region")
      ->check(CLI::Range(1, 1 << 16));
  app->add_option("--min-pruning", caller.assembly.prune_factor,
                  "assembly graph chains with less support are pruned")
      ->check(CLI::Range(0, 1 << 20));
  app->add_option("--min-dangling-branch-length", caller.assembly.min_dangling_branch_length,
                  "shortest dangling head or tail path recovered into the assembly graph")
      ->check(CLI::Range(0, 1 << 20));
  app->add_option("--kmer-size", caller.assembly.kmer_sizes, "assembly k-mer sizes (repeatable)")
      ->check(CLI::Range(5, 200));
  app->add_option("--max-alternate-alleles", caller.genotyping.max_alternate_alleles,
                  "alternate alleles genotyped at one site")
      ->check(CLI::Range(1, 50));
  app->add_option("--emit-ref-confidence", options->emit_ref_confidence,
                  "NONE (a VCF), GVCF (reference blocks by GQ band) or BP_RESOLUTION (one record "
                  "per base); also -ERC")
      ->check(CLI::IsMember({"NONE", "GVCF", "BP_RESOLUTION"}));
  app->add_flag("--gvcf", options->gvcf, "write a gVCF (as --emit-ref-confidence GVCF)");
  app->add_option("--gvcf-gq-bands", options->blocks.gq_band_upper_bounds,
                  "exclusive upper bounds of the gVCF GQ bands (repeatable; also -GQB; default "
                  "1..60 by 1, 70, 80, 90, 99)");
  app->add_flag("--floor-blocks", options->blocks.floor_blocks,
                "write a block's GQ as its band's lower bound (no PL or MIN_DP)");
  app->add_option("--indel-size-to-eliminate-in-ref-model",
                  caller.reference_model.indel_size_to_eliminate,
                  "largest indel the reference model rules out")
      ->check(CLI::Range(0, 1000));
  add_common_options(*app, common);
  return {app, [options, &common] { run_call(*options, common); }};
}

}  // namespace gpp::pipeline
