// gpu-pipeline applybqsr: GATK ApplyBQSR (qualities identical).
#include <chrono>
#include <memory>
#include <numeric>

#include "io/output_file.hpp"
#include "io/text_input.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/log.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/recal_report.hpp"

namespace gpp::pipeline {

namespace {
struct ApplyBqsrOptions {
  std::string input;
  std::string recal_table;
  std::string output;
  std::string reference;
  stages::bqsr::ApplyOptions apply;
};

void run_applybqsr(const ApplyBqsrOptions& options, const CommonOptions& common) {
  io::check_output_writable(options.output);
  const kernels::Backend backend = choose_backend(common);
  const stages::bqsr::RecalibrationReport report = stages::bqsr::parse_recalibration_report(
      io::read_text_file(options.recal_table), options.recal_table);
  io::Header header;
  io::ReadBatch reads = load_alignments(options.input, options.reference, common, header);
  const auto start = std::chrono::steady_clock::now();
  stages::bqsr::PhaseTimes times;
  stages::bqsr::AppliedQualities applied =
      stages::bqsr::apply_recalibration(reads, header, report, options.apply, backend, &times);
  log::debug("applybqsr phases: " + times.summary());
  log::info("recalibrated " + std::to_string(reads.size()) + " records (" +
            kernels::backend_name(backend) + ") in " +
            std::to_string(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) +
            " s");
  reads.qual = std::move(applied.qual);
  reads.aux = std::move(applied.aux);
  reads.aux_offset = std::move(applied.aux_offset);
  std::vector<std::uint32_t> order(reads.size());
  std::iota(order.begin(), order.end(), 0u);
  save_alignments(options.output, header, reads, order, options.reference, common,
                  header.sort_order() == "coordinate");
}
}  // namespace

Command add_applybqsr_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<ApplyBqsrOptions>();
  CLI::App* app =
      root.add_subcommand("applybqsr", "Recalibrate base qualities as GATK ApplyBQSR does");
  add_input_option(*app, options->input, "input SAM/BAM/CRAM")->required();
  app->add_option("--bqsr-recal-file,--in-recal-file", options->recal_table,
                  "recalibration table (plain or gzipped)")
      ->required();
  add_output_option(*app, options->output, "output BAM", true)->required();
  app->add_option("-R,--reference,--ref", options->reference, "reference FASTA (for CRAM)");
  auto& a = options->apply;
  app->add_option("--quantize-quals", a.quantize_quals,
                  "quantize to N levels (0: off, the default; -1: the table's map)");
  app->add_option("--static-quantized-quals", a.static_quantized_quals,
                  "round to these qualities (repeatable)");
  app->add_flag("--round-down-quantized", a.round_down_quantized,
                "round down to the static qualities");
  app->add_flag("--emit-original-quals", a.emit_original_quals, "store the old qualities in OQ");
  app->add_option("--preserve-qscores-less-than", a.preserve_qscores_less_than,
                  "leave qualities below this (default 6)");
  app->add_option("--global-qscore-prior", a.global_qscore_prior,
                  "prior used instead of the read group's reported quality");
  app->add_flag("--use-original-qualities", a.use_original_qualities,
                "recalibrate the OQ qualities");
  app->add_flag("--allow-missing-read-group", a.allow_missing_read_group,
                "only quantize reads whose read group is not in the table");
  add_common_options(*app, common);
  return {app, [options, &common] { run_applybqsr(*options, common); }};
}

}  // namespace gpp::pipeline
