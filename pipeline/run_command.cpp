// gpu-pipeline run: the whole post-alignment pipeline in one process, without intermediate files.
//
// Read, validate the reference, known sites and sample, sort and mark duplicates (Picard
// semantics), count covariates and recalibrate base qualities (GATK BaseRecalibrator and
// ApplyBQSR, default arguments; skipped without known sites), write the indexed BAM, the
// duplication metrics and the recalibration table, and call variants (GATK HaplotypeCaller
// defaults) from the recalibrated reads in memory into <sample>.vcf.gz, or with --gvcf into
// <sample>.g.vcf.gz (both with --gvcf --vcf).
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/elapsed.hpp"
#include "core/error.hpp"
#include "core/phase_times.hpp"
#include "core/task_thread.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/genome/intervals.hpp"
#include "io/genome/known_sites.hpp"
#include "io/genome/reference.hpp"
#include "io/output_file.hpp"
#include "io/text/text_output.hpp"
#include "pipeline/alignment_inputs.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/bqsr_arguments.hpp"
#include "pipeline/caller_arguments.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/genome_context.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/haplotype_bam_output.hpp"
#include "pipeline/interval_arguments.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/spilled_marking.hpp"
#include "pipeline/tuning_overrides.hpp"
#include "pipeline/variant_calling.hpp"
#include "pipeline/variant_writer.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/bqsr/interval_filter.hpp"
#include "stages/bqsr/read_transform.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "stages/markdup/mark_duplicates.hpp"

namespace gpp::pipeline {

namespace {

struct RunOptions {
  std::vector<std::string> inputs;  ///< several are merged as Picard and GATK merge them
  std::string reference;
  std::vector<std::string> known_sites;
  IntervalArguments intervals;
  std::string out_dir = ".";
  std::string prefix;  ///< output file names' start; empty: the input's
  BaseRecalibratorArguments recalibration;
  /// ApplyBQSR's options; -OQ is BaseRecalibrator's, which sets it here too (apply()).
  stages::bqsr::ApplyOptions apply_options;
  bool gvcf = false;  ///< <sample>.g.vcf.gz instead of <sample>.vcf.gz
  bool vcf = false;   ///< with gvcf: both
  CallerArguments calling;

  /// ApplyBQSR's options as run applies them: -OQ recalibrates the OQ qualities it counted.
  stages::bqsr::ApplyOptions apply() const {
    stages::bqsr::ApplyOptions options = apply_options;
    options.use_original_qualities = recalibration.use_original_qualities;
    return options;
  }
};

/// One variant file `run` writes and the caller mode that produces it.
struct VariantOutput {
  std::string path;
  stages::call::ReferenceConfidenceMode mode;
};

std::vector<VariantOutput> variant_outputs(const RunOptions& options,
                                           const std::filesystem::path& out_dir,
                                           const std::string& sample) {
  using stages::call::ReferenceConfidenceMode;
  std::vector<VariantOutput> outputs;
  if (!options.gvcf || options.vcf) {
    outputs.push_back({(out_dir / (sample + ".vcf.gz")).string(), ReferenceConfidenceMode::kNone});
  }
  if (options.gvcf) {
    outputs.push_back(
        {(out_dir / (sample + ".g.vcf.gz")).string(), ReferenceConfidenceMode::kGvcf});
  }
  return outputs;
}

/// The start of every output's name: --prefix, else the input's file name without its
/// extension ("stdin" for standard input).
std::string output_prefix(const RunOptions& options) {
  if (!options.prefix.empty()) return options.prefix;
  if (options.inputs.front() == io::kStandardInput) return "stdin";
  return std::filesystem::path(options.inputs.front()).stem().string();
}

/// Creates `out_dir` and its missing parents; returns those it created, deepest first.
std::vector<std::filesystem::path> create_out_dir(const std::string& out_dir) {
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path p = std::filesystem::absolute(out_dir, ec).lexically_normal();
       !p.empty() && !std::filesystem::exists(p, ec) && p != p.parent_path(); p = p.parent_path()) {
    missing.push_back(p);
  }
  std::filesystem::create_directories(out_dir, ec);  // a failure is reported with the outputs
  return missing;
}

// What `run` writes and reads, named and checked before any work.
struct RunFiles {
  std::string sample;  ///< the outputs' prefix
  bool recalibrate = false;
  std::string bam;
  std::string metrics;
  std::string table;
  std::vector<VariantOutput> variants;
};

RunFiles plan_files(const RunOptions& options) {
  if (options.calling.blocks.floor_blocks && !options.gvcf) {
    throw Error("--floor-blocks refers to gVCF blocks: it needs --gvcf");
  }
  // The caller's options are checked, and its warnings given, before the long work.
  options.calling.warn_about_annotations();
  if (options.calling.allele_specific() && !options.gvcf) {
    throw Error(
        "allele-specific annotations (AS_*) are written to a gVCF, as the raw data GenotypeGVCFs "
        "combines: they need --gvcf (with --vcf the VCF has none)");
  }
  options.calling.options(stages::call::ReferenceConfidenceMode::kNone, 0);
  if (options.gvcf) {
    warn_about_mnps_in_gvcf(
        options.calling.options(stages::call::ReferenceConfidenceMode::kGvcf, 0));
  }
  RunFiles files;
  const std::filesystem::path out_dir(options.out_dir);
  files.sample = output_prefix(options);
  files.recalibrate = !options.known_sites.empty();
  files.bam =
      (out_dir / (files.sample + (files.recalibrate ? ".md.bqsr.bam" : ".md.bam"))).string();
  files.metrics = (out_dir / (files.sample + ".dup-metrics.txt")).string();
  files.table = (out_dir / (files.sample + ".recal.table")).string();
  files.variants = variant_outputs(options, out_dir, files.sample);
  std::vector<std::string> inputs = options.inputs;
  inputs.push_back(options.reference);
  inputs.insert(inputs.end(), options.known_sites.begin(), options.known_sites.end());
  const std::vector<std::string> interval_files = options.intervals.files();
  inputs.insert(inputs.end(), interval_files.begin(), interval_files.end());
  const std::vector<std::string> calling_files = options.calling.input_files();
  inputs.insert(inputs.end(), calling_files.begin(), calling_files.end());
  std::vector<std::string> outputs{files.bam, files.metrics, files.table};
  for (const VariantOutput& file : files.variants) outputs.push_back(file.path);
  if (!options.calling.bam_output.empty()) outputs.push_back(options.calling.bam_output);
  io::check_outputs_distinct(inputs, outputs);
  return files;
}

// Memory per byte of BAM input for `run` on the whole input at once: the records, their columns,
// the read ends, the recalibrated qualities and the caller's copies (measured 0.7 KB per read of
// about 0.15 KB of BAM).
constexpr double kRunBytesPerBamByte = 8;

/// The duplication metrics, staged: they and the table are committed last, with the BAM and the VCF
/// complete, so that a failed or killed run does not leave them behind without the rest.
void stage_duplication_metrics(const RunFiles& files, const CommonOptions& common,
                               const stages::markdup::MarkDuplicatesResult& marked,
                               std::vector<std::unique_ptr<io::OutputFile>>& staged) {
  staged.push_back(io::stage_text_file(
      files.metrics,
      stages::markdup::format_metrics_file(common.command_line, started_on(), marked.metrics,
                                           marked.single_library, marked.histograms)));
}

/// The GATK BaseRecalibrator table of the counted `tables`, staged, and what ApplyBQSR makes of
/// it: the table goes through its text form, as between the two GATK tools, so that ApplyBQSR
/// sees exactly the rounded values the file holds.
stages::bqsr::RecalibrationReport stage_recalibration_table(
    const stages::bqsr::RecalTables& tables, const io::Header& header, const std::string& path,
    std::vector<std::unique_ptr<io::OutputFile>>& staged) {
  const std::string report = stages::bqsr::format_recalibration_report(
      tables, stages::bqsr::read_group_keys(header).identifiers);
  staged.push_back(io::stage_text_file(path, report));
  return stages::bqsr::parse_recalibration_report(report, path);
}

/// HaplotypeCaller over the reads handed to add() in coordinate order, into each variant file
/// (a VCF and a gVCF are two calling passes: their thresholds and alleles differ).
class VariantCalling {
 public:
  /// `sex_regions`: the ploidy regions of the sample's sex (sex_ploidy_regions), added to the
  /// caller's.
  VariantCalling(const RunFiles& files, const CallerArguments& arguments,
                 const io::Header& sorted_header, const std::string& sample,
                 std::span<const stages::call::PloidyRegion> sex_regions, const std::string& input,
                 const io::Reference& reference, const std::vector<io::Interval>& intervals,
                 const CommonOptions& common, kernels::Backend backend,
                 const CallingInputs& inputs) {
    for (const VariantOutput& file : files.variants) {
      // Each pass keeps references to its options and engines: they do not move.
      Output& output = *outputs_.emplace_back(std::make_unique<Output>());
      output.path = file.path;
      output.caller = arguments.options(file.mode, memory_budget(common));
      output.caller.contamination_fraction = arguments.contamination_fraction(sample);
      output.caller.ploidy_regions.insert(output.caller.ploidy_regions.end(), sex_regions.begin(),
                                          sex_regions.end());
      // --bam-output: the haplotypes and realigned reads of the first pass (the VCF's, else the
      // gVCF's).
      output.caller.bam_output.enabled = output.caller.bam_output.enabled && outputs_.size() == 1;
      // The passes share one Smith-Waterman aligner (called side by side, one batch at a time).
      output.engines = std::make_unique<stages::call::CallerEngines>(
          backend, pairhmm_tuning(), smith_waterman_tuning(),
          outputs_.size() > 1 ? outputs_.front()->engines.get() : nullptr);
      output.writer =
          std::make_unique<VariantFileWriter>(file.path, sorted_header, sample, common.command_line,
                                              output.caller, arguments.blocks, inputs.dbsnp_file());
      output.writer->expect_calls_from(intervals, sorted_header);
      stages::call::CallSink* sink = output.writer.get();
      if (output.caller.bam_output.enabled) {
        output.bam = std::make_unique<HaplotypeBamOutput>(
            arguments.bam_output, sorted_header, output.caller.bam_output.type,
            haplotype_bam_writer_options(common), reference.path());
        output.with_bam = std::make_unique<CallSinkWithHaplotypeBam>(*output.writer, *output.bam);
        sink = output.with_bam.get();
      }
      output.pass = std::make_unique<CallingPass>(sorted_header, input, sample, reference,
                                                  intervals, output.caller, *output.engines, *sink,
                                                  inputs.alleles_file());
    }
  }

  void add(const io::ReadBatch& reads, std::span<const std::uint32_t> rows) {
    add_to_each([&](CallingPass& pass) { pass.add(reads, rows); });
  }
  void add(const io::RowsAcross& rows) {
    add_to_each([&](CallingPass& pass) { pass.add(rows); });
  }

  /// Ends every pass; returns the files written, for the log.
  std::string finish() {
    std::string written;
    for (const auto& output : outputs_) {
      const auto start = std::chrono::steady_clock::now();
      output->pass->finish();
      output->seconds += seconds_since(start);
      log_calling_summary(*output->engines, output->writer->calls(), output->seconds);
      written += ", " + output->path + " (+ .tbi)";
      if (output->bam) written += ", " + output->bam->path();
    }
    return written;
  }

  /// Completes every file, still unnamed.
  void close() {
    for (const auto& output : outputs_) {
      output->writer->close();
      if (output->bam) output->bam->close();
    }
  }

  /// Names the files close() completed.
  void commit() {
    for (const auto& output : outputs_) {
      output->writer->commit();
      if (output->bam) output->bam->commit();
    }
  }

 private:
  template <class Add>
  void add_to_each(const Add& add) {
    for (const auto& output : outputs_) {
      const auto start = std::chrono::steady_clock::now();
      add(*output->pass);
      output->seconds += seconds_since(start);
    }
  }
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  struct Output {
    std::string path;
    stages::call::HaplotypeCallerOptions caller;
    std::unique_ptr<stages::call::CallerEngines> engines;
    std::unique_ptr<VariantFileWriter> writer;
    std::unique_ptr<HaplotypeBamOutput> bam;  ///< --bam-output, on the first pass
    std::unique_ptr<CallSinkWithHaplotypeBam> with_bam;
    std::unique_ptr<CallingPass> pass;
    double seconds = 0;
  };
  std::vector<std::unique_ptr<Output>> outputs_;
};

// The whole input in memory: read, mark, count, apply, write and call without a pass over disk.
void run_in_memory(const RunOptions& options, const CommonOptions& common, const RunFiles& files,
                   const io::Reference& reference) {
  GpuSession& gpu = gpu_session(common);
  gpu.start(/*bam_output=*/true);  // beside the reading
  io::Header header;
  const std::string input = inputs_name(options.inputs);
  stages::markdup::EndFeatures end_features("");  // Picard's default read-name parsing
  io::ReadBatch reads;
  std::string sample;
  if (options.inputs.size() == 1) {
    reads =
        load_alignments(options.inputs[0], options.reference, common, header, false, &end_features);
    sample = called_sample(header, input, options.calling.sample_name);
  } else {
    AlignmentInputs inputs(options.inputs, streaming_reader_options(common, options.reference));
    header = inputs.header();
    sample = called_sample(inputs, options.calling.sample_name);
    inputs.read_into(reads, &end_features);
  }
  const kernels::Backend backend = gpu.started_backend();
  const auto intervals = options.intervals.parse(header);
  check_reference(header, input, reference, contigs_in_use(reads, header, intervals));
  check_ploidy_regions(
      options.calling.options(stages::call::ReferenceConfidenceMode::kNone, 0).ploidy_regions,
      header, input);
  const CallingInputs calling_inputs =
      open_calling_inputs(options.calling.dbsnp, options.calling.alleles, header, input);
  if (!intervals.empty()) log::info(std::to_string(intervals.size()) + " intervals after merging");

  PhaseTimes times;  // of marking and recalibration, for the DEBUG log
  stages::markdup::MarkDuplicatesOptions markdup_options;
  markdup_options.queryname_grouped = stages::markdup::uses_queryname_semantics(header, "");
  markdup_options.features = &end_features;
  markdup_options.times = &times;
  stages::markdup::MarkDuplicatesResult marked = timed_phase(&times, "marking, in all", [&] {
    return stages::markdup::mark_duplicates(reads, header, markdup_options, backend);
  });
  reads.flag.assign(marked.flags.begin(), marked.flags.end());
  io::Header sorted_header = header.clone();
  sorted_header.set_sort_order("coordinate");
  std::vector<std::unique_ptr<io::OutputFile>> staged;
  stage_duplication_metrics(files, common, marked, staged);
  std::string outputs = files.bam + " (+ .bai), " + files.metrics;
  if (files.recalibrate) {
    const stages::bqsr::GenomeContext genome = timed_phase(
        &times, "reference and known sites",
        [&] { return load_genome_context(reference, header, reads, options.known_sites); });
    const stages::bqsr::RecalTables tables = timed_phase(&times, "counting, in all", [&] {
      // BaseRecalibrator -L: only the reads overlapping an interval are counted (the others are
      // flagged unmapped for the counting, then given their flags back: every read is written).
      const io::Column<std::uint16_t> flags =
          intervals.empty() ? io::Column<std::uint16_t>() : reads.flag;
      if (!intervals.empty()) {
        stages::bqsr::restrict_to_intervals(reads,
                                            stages::bqsr::spans_by_contig(header, intervals));
      }
      // -OQ: the reads keep the OQ qualities, which ApplyBQSR -OQ recalibrates too.
      if (options.recalibration.use_original_qualities) {
        stages::bqsr::substitute_original_qualities(reads);
      }
      stages::bqsr::RecalTables counted = stages::bqsr::count_covariates(
          reads, header, genome, options.recalibration.covariates,
          options.recalibration.counting(backend, &times, memory_budget(common)));
      if (!intervals.empty()) reads.flag = flags;
      return counted;
    });
    stages::bqsr::AppliedQualities applied = timed_phase(&times, "recalibrating, in all", [&] {
      return stages::bqsr::apply_recalibration(
          reads, header, stage_recalibration_table(tables, header, files.table, staged),
          options.apply(), backend, &times);
    });
    reads.qual = std::move(applied.qual);
    reads.aux = std::move(applied.aux);
    reads.aux_offset = std::move(applied.aux_offset);
    outputs += ", " + files.table;
  } else {
    log::warning("no --known-sites: base qualities are not recalibrated");
  }
  log::debug("marking and recalibration phases: " + times.summary());
  // HaplotypeCaller on the marked, recalibrated reads as they are in memory (duplicates are
  // skipped by its read filters), in the coordinate order the BAM is written in, on a thread of its
  // own while the BAM is written: both only read them.
  const std::vector<stages::call::PloidyRegion> sex_regions =
      sex_ploidy_regions(options.calling.sex, header, input, [&] {
        std::vector<std::uint64_t> counts(header.contigs().size());
        count_mapped_reads(reads, counts);
        return std::optional(counts);
      });
  VariantCalling calling(files, options.calling, sorted_header, sample, sex_regions, input,
                         reference, intervals, common, backend, calling_inputs);
  TaskThread calling_thread;  // joined before what its task uses goes
  std::future<void> called = calling_thread.submit([&] { calling.add(reads, marked.order); });
  std::unique_ptr<io::AlignmentWriter> bam;
  try {
    bam = save_alignments(files.bam, sorted_header, reads, marked.order, options.reference, common,
                          true);
  } catch (...) {
    called.wait();
    throw;
  }
  called.get();
  outputs += calling.finish();
  calling.close();
  // Every output is complete: they are named together (an error above leaves none of them).
  bam->commit();
  calling.commit();
  for (const auto& output : staged) output->commit();
  log::info("outputs: " + outputs);
}

// An input larger than --max-memory: its records are read once and spilled in sorted runs while
// duplicates are marked from their keys (pipeline/spilled_marking.hpp); then the runs are read
// twice: to count covariates (BaseRecalibrator needs every count before ApplyBQSR changes a
// quality; contig by contig, unmerged), and merged to recalibrate, write and call. Without known
// sites the counting pass is skipped.
void run_spilling(const RunOptions& options, const CommonOptions& common, const RunFiles& files,
                  const io::Reference& reference) {
  const kernels::Backend backend = gpu_session(common).backend();
  const std::uint64_t budget = memory_budget(common);
  AlignmentInputs reader(options.inputs, streaming_reader_options(common, options.reference));
  const io::Header& header = reader.header();
  const std::string& input = reader.name();
  const std::string sample = called_sample(reader, options.calling.sample_name);
  const auto intervals = options.intervals.parse(header);
  stages::markdup::MarkDuplicatesOptions markdup_options;
  markdup_options.queryname_grouped = stages::markdup::uses_queryname_semantics(header, "");
  SpilledMarking marking(
      reader, "", markdup_options.queryname_grouped, budget, temporary_directory(common, files.bam),
      backend, [&common] { return spill_writer_options(common); },
      [&common] { return gpu_session(common).share_inflater(); });
  check_reference(
      header, input, reference,
      intervals.empty() ? marking.contigs_with_reads() : contigs_in_use({}, header, intervals));
  check_ploidy_regions(
      options.calling.options(stages::call::ReferenceConfidenceMode::kNone, 0).ploidy_regions,
      header, input);
  const CallingInputs calling_inputs =
      open_calling_inputs(options.calling.dbsnp, options.calling.alleles, header, input);
  if (!intervals.empty()) log::info(std::to_string(intervals.size()) + " intervals after merging");

  const stages::markdup::MarkDuplicatesResult marked =
      marking.mark(header, markdup_options, backend);
  io::Header sorted_header = header.clone();
  sorted_header.set_sort_order("coordinate");
  std::vector<std::unique_ptr<io::OutputFile>> staged;
  stage_duplication_metrics(files, common, marked, staged);
  std::string outputs = files.bam + " (+ .bai), " + files.metrics;
  std::optional<stages::bqsr::RecalibratorPool> recalibrators;
  if (files.recalibrate) {
    log::info("counting covariates: reading the spilled runs (1 of 2)");
    GenomeContextLoader loader(reference, header, options.known_sites);
    PhaseTimes times;  // the counting's own phases among them
    const stages::bqsr::CountingOptions counting_options =
        options.recalibration.counting(backend, &times, budget);
    stages::bqsr::CovariateCounting counting(header, options.recalibration.covariates,
                                             counting_options);
    const auto started = std::chrono::steady_clock::now();
    // BaseRecalibrator -L: only the reads overlapping an interval are counted (the batches counted
    // are not written).
    const stages::bqsr::ContigSpans counted_spans =
        intervals.empty() ? stages::bqsr::ContigSpans{}
                          : stages::bqsr::spans_by_contig(header, intervals);
    const auto count = [&](io::ReadBatch& batch) {
      if (!intervals.empty()) stages::bqsr::restrict_to_intervals(batch, counted_spans);
      if (options.recalibration.use_original_qualities) {
        stages::bqsr::substitute_original_qualities(batch);
      }
      timed_phase(&times, "reference and known sites", [&] {
        // Contig order: the contigs before this batch's first are done with.
        if (batch.tid.front() >= 0) {
          loader.unload_before(static_cast<std::size_t>(batch.tid.front()));
        }
        loader.load_contigs_of(batch);
      });
      timed_phase(&times, "counting", [&] { counting.add(batch, loader.genome()); });
    };
    // The counts are integer sums: any order of the records within a contig gives the same
    // table, so the runs are read as they are, contig by contig, without merging them. BAQ's
    // fractional errors are summed in coordinate order: a merge.
    const bool unmerged =
        !counting_options.enable_baq && marking.visit_by_contig(budget, count, &times);
    if (!unmerged) {
      io::ReadBatch gathered;
      marking.merge(
          false, budget,
          [&](MergedRows& merged) {
            gathered.clear();
            merged.gather_into(gathered);
            count(gathered);
          },
          &times);
    }
    times.add("in all, with the reading", seconds_since(started));
    log::info(std::string("counting covariates (the runs ") +
              (unmerged ? "read contig by contig" : "merged") + "): " + times.summary());
    // As many recalibrators as the runs' batches leave room for (each holds a batch's worth).
    recalibrators.emplace(
        header, stage_recalibration_table(counting.finish(), header, files.table, staged),
        options.apply(), backend,
        stages::bqsr::RecalibratorPool::most_within(budget, marking.merge_batch_bytes(budget)));
    outputs += ", " + files.table;
  } else {
    log::warning("no --known-sites: base qualities are not recalibrated");
  }

  log::info(std::string("writing and calling: merging the spilled runs") +
            (recalibrators ? " (2 of 2), recalibrating their batches of about " +
                                 format_bytes(marking.merge_batch_bytes(budget)) + " with " +
                                 std::to_string(recalibrators->most()) + " recalibrators"
                           : std::string()));
  const auto writer =
      open_alignment_output(files.bam, sorted_header, options.reference, common, true);
  const std::vector<stages::call::PloidyRegion> sex_regions =
      sex_ploidy_regions(options.calling.sex, header, input,
                         [&] { return std::optional(marking.mapped_reads_per_contig()); });
  VariantCalling calling(files, options.calling, sorted_header, sample, sex_regions, input,
                         reference, intervals, common, backend, calling_inputs);
  PhaseTimes times;
  // The runs' batches are recalibrated as they are read, on the runs' reading threads, several
  // at once; piece k of the merge is written and called, each on a thread of its own (both only
  // read it), while piece k + 1 is merged: the piece handed on is swapped for the one done with,
  // which the merge refills.
  SpilledRuns::BatchPreparation recalibrate;
  if (recalibrators) {
    recalibrate = [&](io::ReadBatch& batch) {
      timed_phase(&times, "recalibrating", [&] { recalibrators->apply_in_place(batch); });
    };
  }
  MergedRows in_output;
  std::future<void> written;
  std::future<void> called;
  TaskThread writing_thread;  // after what their tasks use: join before they go
  TaskThread calling_thread;
  const auto wait_for_output = [&] {
    if (!written.valid()) return;
    timed_phase(&times, "waiting for output", [&] {
      written.get();
      called.get();
    });
  };
  const auto started = std::chrono::steady_clock::now();
  marking.merge(
      false, budget,
      [&](MergedRows& merged) {
        wait_for_output();
        std::swap(merged, in_output);
        written = writing_thread.submit(
            [&] { timed_phase(&times, "writing", [&] { writer->write(in_output.rows()); }); });
        called = calling_thread.submit(
            [&] { timed_phase(&times, "calling", [&] { calling.add(in_output.rows()); }); });
      },
      &times, true, recalibrate);
  wait_for_output();
  writer->close();
  add_write_stages(times, *writer);
  times.add("in all, with the merge", seconds_since(started));
  log::info("writing and calling: " + times.summary());
  outputs += calling.finish();
  calling.close();
  writer->commit();
  calling.commit();
  for (const auto& output : staged) output->commit();
  log::info("outputs: " + outputs);
}

void run_pipeline(const RunOptions& options, const CommonOptions& common) {
  const RunFiles files = plan_files(options);
  // Validate every input before the long work starts.
  const io::Reference reference(options.reference);
  for (const std::string& path : options.known_sites) io::KnownSites sites(path);
  options.calling.contamination_fraction("");  // its file, whatever the sample
  if (fits_in_memory(options.inputs, memory_budget(common), kRunBytesPerBamByte)) {
    run_in_memory(options, common, files, reference);
  } else {
    run_spilling(options, common, files, reference);
  }
}

}  // namespace

Command add_run_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* app = root.add_subcommand(
      "run", "Whole pipeline: sort, mark duplicates, recalibrate, call (in one process)");
  app->add_option("input,-I,--input,--in-bam", options->inputs,
                  "input SAM/BAM/CRAM; - reads standard input; repeatable: coordinate-sorted "
                  "inputs are merged as Picard and GATK merge them, others read one after "
                  "another")
      ->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA (.fai beside it)")
      ->required();
  app->add_option("--known-sites,--knownSites", options->known_sites,
                  "known variant sites VCF/BCF for BQSR (repeatable)");
  add_interval_options(*app, options->intervals,
                       "count covariates of the reads overlapping intervals (BaseRecalibrator -L) "
                       "and call only within them; every read is written");
  app->add_option("--out-dir,-o", options->out_dir, "output directory (created if missing)");
  app->add_option("--prefix", options->prefix,
                  "start of the output names (default: the input's name without extension; "
                  "\"stdin\" for -)");
  app->add_flag("--gvcf", options->gvcf,
                "write <sample>.g.vcf.gz (GATK -ERC GVCF) instead of <sample>.vcf.gz");
  app->add_flag("--vcf", options->vcf, "with --gvcf: write <sample>.vcf.gz as well");
  add_base_recalibrator_options(*app, options->recalibration);
  add_apply_bqsr_options(*app, options->apply_options, /*with_original_qualities=*/false);
  add_caller_options(*app, options->calling);
  add_common_options(*app, common);
  return {app, [options, &common] {
            const io::OutputDirectories created(create_out_dir(options->out_dir));
            try {
              naming_inputs_of_read_errors(options->inputs,
                                           [&] { run_pipeline(*options, common); });
            } catch (...) {
              created.remove_empty();  // its outputs are gone already: nothing half-done left
              throw;
            }
          }};
}

}  // namespace gpp::pipeline
