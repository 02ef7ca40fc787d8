// gpu-pipeline bqsr: GATK BaseRecalibrator (recalibration table identical).
#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "io/alignment_reader.hpp"
#include "io/intervals.hpp"
#include "io/output_file.hpp"
#include "io/reference.hpp"
#include "io/text_output.hpp"
#include "kernels/error.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/genome_context.hpp"
#include "pipeline/log.hpp"
#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/bqsr/recal_report.hpp"

namespace gpp::pipeline {

namespace {
struct BqsrOptions {
  std::string input;
  std::string reference;
  std::vector<std::string> known_sites;
  std::string output;
  std::vector<std::string> intervals;
  stages::bqsr::CovariateOptions covariates;
  bool enable_baq = false;
  bool indel_tables = false;
  std::string counting_method = "dense";
};

/// Keeps only the records that overlap one of `intervals` (GATK's -L read traversal).
void restrict_to_intervals(io::ReadBatch& reads, const io::Header& header,
                           const std::vector<io::Interval>& intervals) {
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> by_contig(
      header.contigs().size());
  for (const io::Interval& interval : intervals) {
    by_contig[static_cast<std::size_t>(header.contig_index(interval.contig))].emplace_back(
        interval.start, interval.end);
  }
  for (std::size_t i = 0; i < reads.size(); ++i) {
    bool keep = false;
    if (reads.tid[i] >= 0) {
      for (const auto& [start, end] : by_contig[static_cast<std::size_t>(reads.tid[i])]) {
        if (reads.pos[i] < end && std::max(reads.end[i], reads.pos[i] + 1) > start) keep = true;
      }
    }
    // Filtered reads are marked unmapped for counting; the batch is not written back.
    if (!keep) reads.flag[i] |= io::flag::kUnmapped;
  }
}

void run_bqsr(const BqsrOptions& options, const CommonOptions& common) {
  if (options.known_sites.empty()) throw Error("bqsr needs at least one --known-sites VCF");
  io::check_output_writable(options.output);
  const kernels::Backend backend = choose_backend(common);
  const auto start = std::chrono::steady_clock::now();
  io::Reference reference(options.reference);
  io::Header header;
  io::ReadBatch reads = load_alignments(options.input, options.reference, common, header);
  reference.check_matches(header, options.input);
  if (!options.intervals.empty())
    restrict_to_intervals(reads, header, io::parse_intervals(options.intervals, header.contigs()));

  if (backend == kernels::Backend::kGpu && (options.enable_baq || options.indel_tables))
    log::info("bqsr: --enable-baq and indel tables are counted on the CPU");
  const stages::bqsr::GenomeContext genome = load_genome_context(reference, header, reads, options.known_sites);
  const auto counting_start = std::chrono::steady_clock::now();
  stages::bqsr::PhaseTimes times;
  const stages::bqsr::RecalTables tables =
      stages::bqsr::count_covariates(reads, header, genome, options.covariates,
                                     {.indel_tables = options.indel_tables,
                                      .enable_baq = options.enable_baq,
                                      .method = options.counting_method == "sort-reduce"
                                                    ? stages::bqsr::CountingMethod::kSortReduce
                                                    : stages::bqsr::CountingMethod::kDense,
                                      .backend = backend,
                                      .times = &times});
  log::debug("bqsr phases: " + times.summary());
  log::info("counted covariates (" + std::string(kernels::backend_name(backend)) + ", " +
            options.counting_method + ") in " +
            std::to_string(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - counting_start)
                    .count()) +
            " s");
  const stages::bqsr::ReadGroupKeys keys = stages::bqsr::read_group_keys(header);
  io::write_text_file(options.output,
                      stages::bqsr::format_recalibration_report(tables, keys.identifiers));
  log::info("wrote " + options.output + " (" + std::to_string(reads.size()) + " records) in " +
            std::to_string(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) +
            " s");
}
}  // namespace

Command add_bqsr_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<BqsrOptions>();
  CLI::App* app = root.add_subcommand("bqsr", "Build a BQSR table as GATK BaseRecalibrator does");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM (duplicates marked)")->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA")->required();
  app->add_option("--known-sites,--knownSites", options->known_sites,
                  "known sites VCF (repeatable)")
      ->required();
  add_output_option(*app, options->output, "recalibration table (GATKReport)", false)->required();
  app->add_option("-L,--intervals", options->intervals, "intervals (repeatable)");
  auto& c = options->covariates;
  app->add_option("--mismatches-context-size", c.mismatches_context_size,
                  "context size for mismatches (GATK default 2)")
      ->check(CLI::Range(1, 13));
  app->add_option("--indels-context-size", c.indels_context_size,
                  "context size for indels (GATK default 3)")
      ->check(CLI::Range(1, 13));
  app->add_option("--low-quality-tail", c.low_quality_tail,
                  "quality of read tails treated as N in contexts (default 2)")
      ->check(CLI::Range(0, 93));
  app->add_option("--maximum-cycle-value", c.maximum_cycle_value,
                  "largest cycle allowed (default 500)")
      ->check(CLI::Range(1, 100000));
  app->add_option("--quantizing-levels", c.quantizing_levels,
                  "levels of the quantization map (default 16)")
      ->check(CLI::Range(1, 94));
  app->add_flag("--enable-baq", options->enable_baq, "BAQ-weighted errors (GATK 3 behaviour)");
  app->add_flag("--compute-indel-bqsr-tables,--indels", options->indel_tables,
                "also count insertion and deletion events");
  app->add_option("--counting-method", options->counting_method,
                  "how counts are accumulated: dense (default) or sort-reduce (same table)")
      ->check(CLI::IsMember({"dense", "sort-reduce"}));
  add_common_options(*app, common);
  return {app, [options, &common] { run_bqsr(*options, common); }};
}

}  // namespace gpp::pipeline
