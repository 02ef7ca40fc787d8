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
#include <memory>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "io/genome/intervals.hpp"
#include "io/genome/known_sites.hpp"
#include "io/genome/reference.hpp"
#include "io/output_file.hpp"
#include "io/text/text_output.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/bqsr_arguments.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/genome_context.hpp"
#include "pipeline/log.hpp"
#include "pipeline/variant_calling.hpp"
#include "pipeline/variant_writer.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "stages/markdup/mark_duplicates.hpp"

namespace gpp::pipeline {

namespace {

struct RunOptions {
  std::string input;
  std::string reference;
  std::vector<std::string> known_sites;
  std::vector<std::string> intervals;
  std::string out_dir = ".";
  std::string prefix;  ///< output file names' start; empty: the input's
  BaseRecalibratorArguments recalibration;
  bool gvcf = false;  ///< <sample>.g.vcf.gz instead of <sample>.vcf.gz
  bool vcf = false;   ///< with gvcf: both
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
  if (options.input == io::kStandardInput) return "stdin";
  return std::filesystem::path(options.input).stem().string();
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

/// Removes the directories `run` created (deepest first) that nothing was left in.
void remove_if_empty(const std::vector<std::filesystem::path>& created) {
  for (const std::filesystem::path& dir : created) {
    std::error_code ec;
    if (!std::filesystem::is_empty(dir, ec) || ec) return;
    std::filesystem::remove(dir, ec);
  }
}

void run_pipeline(const RunOptions& options, const CommonOptions& common) {
  const GpuStart gpu(common);  // beside the reading
  const std::filesystem::path out_dir(options.out_dir);
  const std::string sample = output_prefix(options);
  const bool recalibrate = !options.known_sites.empty();
  const std::string bam_path =
      (out_dir / (sample + (recalibrate ? ".md.bqsr.bam" : ".md.bam"))).string();
  const std::string metrics_path = (out_dir / (sample + ".dup-metrics.txt")).string();
  const std::string table_path = (out_dir / (sample + ".recal.table")).string();
  const std::vector<VariantOutput> variant_files = variant_outputs(options, out_dir, sample);
  std::vector<std::string> inputs{options.input, options.reference};
  inputs.insert(inputs.end(), options.known_sites.begin(), options.known_sites.end());
  inputs.insert(inputs.end(), options.intervals.begin(), options.intervals.end());
  std::vector<std::string> outputs_to_write{bam_path, metrics_path, table_path};
  for (const VariantOutput& file : variant_files) outputs_to_write.push_back(file.path);
  io::check_outputs_distinct(inputs, outputs_to_write);
  for (const std::string& path : outputs_to_write) io::check_output_writable(path);

  // Validate every input before the long work starts.
  const io::Reference reference(options.reference);
  std::vector<io::KnownSites> known_sites;
  for (const std::string& path : options.known_sites) known_sites.emplace_back(path);

  io::Header header;
  stages::markdup::EndFeatures end_features("");  // Picard's default read-name parsing
  io::ReadBatch reads =
      load_alignments(options.input, options.reference, common, header, false, &end_features);
  const kernels::Backend backend = gpu.backend();
  const std::string called_sample = single_sample(header, options.input);
  const auto intervals = io::parse_intervals(options.intervals, header.contigs());
  check_reference(header, options.input, reference, contigs_in_use(reads, header, intervals));
  if (!intervals.empty()) log::info(std::to_string(intervals.size()) + " intervals after merging");

  stages::markdup::MarkDuplicatesOptions markdup_options;
  markdup_options.queryname_grouped = stages::markdup::uses_queryname_semantics(header, "");
  markdup_options.features = &end_features;
  stages::markdup::MarkDuplicatesResult marked =
      stages::markdup::mark_duplicates(reads, header, markdup_options, backend);
  reads.flag.assign(marked.flags.begin(), marked.flags.end());
  io::Header sorted_header = header.clone();
  sorted_header.set_sort_order("coordinate");
  // The metrics and the table are committed last, with the BAM and the VCF complete: a failed or
  // killed run does not leave them behind without the rest.
  std::vector<std::unique_ptr<io::OutputFile>> staged;
  staged.push_back(io::stage_text_file(
      metrics_path,
      stages::markdup::format_metrics_file(common.command_line, started_on(), marked.metrics,
                                           marked.single_library, marked.histograms)));
  std::string outputs = bam_path + " (+ .bai), " + metrics_path;
  if (recalibrate) {
    // GATK BaseRecalibrator then ApplyBQSR. The table goes through its text form, as between
    // the two GATK tools, so ApplyBQSR sees exactly the rounded values the file holds.
    const stages::bqsr::GenomeContext genome =
        load_genome_context(reference, header, reads, options.known_sites);
    const stages::bqsr::RecalTables tables =
        stages::bqsr::count_covariates(reads, header, genome, options.recalibration.covariates,
                                       options.recalibration.counting(backend, nullptr));
    const std::string report = stages::bqsr::format_recalibration_report(
        tables, stages::bqsr::read_group_keys(header).identifiers);
    staged.push_back(io::stage_text_file(table_path, report));
    stages::bqsr::AppliedQualities applied = stages::bqsr::apply_recalibration(
        reads, header, stages::bqsr::parse_recalibration_report(report, table_path), {}, backend);
    reads.qual = std::move(applied.qual);
    reads.aux = std::move(applied.aux);
    reads.aux_offset = std::move(applied.aux_offset);
    outputs += ", " + table_path;
  } else {
    log::warning("no --known-sites: base qualities are not recalibrated");
  }
  save_alignments(bam_path, sorted_header, reads, marked.order, options.reference, common, true);

  // HaplotypeCaller on the marked, recalibrated reads as they are in memory (duplicates are
  // skipped by its read filters), in the coordinate order the BAM was written in.
  // A VCF and a gVCF are two calling passes (their calling thresholds and alleles differ).
  std::vector<std::unique_ptr<VariantFileWriter>> writers;
  for (const VariantOutput& file : variant_files) {
    const auto calling_start = std::chrono::steady_clock::now();
    stages::call::HaplotypeCallerOptions caller;
    caller.reference_confidence = file.mode;
    caller.derive();
    stages::call::CallerEngines engines(backend);
    writers.push_back(std::make_unique<VariantFileWriter>(file.path, sorted_header, called_sample,
                                                          common.command_line, file.mode));
    CallingPass pass(sorted_header, options.input, reference, intervals, caller, engines,
                     *writers.back());
    pass.add(reads, marked.order);
    pass.finish();
    log_calling_summary(
        engines, writers.back()->calls(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - calling_start).count());
    outputs += ", " + file.path + " (+ .tbi)";
  }
  for (const auto& writer : writers) writer->commit();
  for (const auto& output : staged) output->commit();
  log::info("outputs: " + outputs);
}

}  // namespace

Command add_run_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* app = root.add_subcommand(
      "run", "Whole pipeline: sort, mark duplicates, recalibrate, call (in one process)");
  app->add_option("input,-I,--input,--in-bam", options->input,
                  "input SAM/BAM/CRAM; - reads standard input")
      ->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA (.fai beside it)")
      ->required();
  app->add_option("--known-sites,--knownSites", options->known_sites,
                  "known variant sites VCF/BCF for BQSR (repeatable)");
  app->add_option("-L,--intervals,--interval-file", options->intervals,
                  "restrict calling to intervals: chr:start-end, BED, .interval_list (repeatable)");
  app->add_option("--out-dir,-o", options->out_dir, "output directory (created if missing)");
  app->add_option("--prefix", options->prefix,
                  "start of the output names (default: the input's name without extension; "
                  "\"stdin\" for -)");
  app->add_flag("--gvcf", options->gvcf,
                "write <sample>.g.vcf.gz (GATK -ERC GVCF) instead of <sample>.vcf.gz");
  app->add_flag("--vcf", options->vcf, "with --gvcf: write <sample>.vcf.gz as well");
  add_base_recalibrator_options(*app, options->recalibration);
  add_common_options(*app, common);
  return {app, [options, &common] {
            const std::vector<std::filesystem::path> created = create_out_dir(options->out_dir);
            try {
              run_pipeline(*options, common);
            } catch (...) {
              remove_if_empty(created);  // its outputs are gone already: nothing half-done left
              throw;
            }
          }};
}

}  // namespace gpp::pipeline
