// gpu-pipeline sw: GATK Smith-Waterman alignments (offset and CIGAR) for a table of pairs.
//
// Input: one pair per line, tab-separated: ref alt match mismatch gap_open gap_extend mode, where
// '-' is an empty sequence and mode is SOFTCLIP, INDEL, LEADING_INDEL, IGNORE (GATK's aligner
// with that overhang strategy) or HAPLOTYPE_TO_REFERENCE (GATK CigarUtils.calculateCigar with the
// given scores: padding, INDEL overhang, left-aligned indels). Blank lines and lines starting
// with '#' are skipped. Output: offset<TAB>cigar per pair, in input order; -1<TAB>* where GATK
// gives no alignment (an empty sequence for the aligner, a failed calculateCigar).
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/output_file.hpp"
#include "io/text/text_output.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/log.hpp"
#include "pipeline/sw_pairs.hpp"
#include "pipeline/tuning_overrides.hpp"
#include "stages/call/haplotype_cigar.hpp"

namespace gpp::pipeline {

namespace {

struct SwOptions {
  std::string input;
  std::string output;
};

std::vector<SwPair> read_rows(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open (" + std::strerror(errno ? errno : EIO) + ")");
  return parse_sw_pairs(in, path);
}

void run_sw(const SwOptions& options, const CommonOptions& common) {
  io::check_outputs_distinct({options.input}, {options.output});
  const kernels::Backend backend = gpu_session(common).backend();
  const std::vector<SwPair> rows = read_rows(options.input);

  // One batch per model, so each kernel call sees as many pairs as possible.
  std::map<SwModel, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) groups[rows[i].model].push_back(i);
  std::vector<std::string> lines(rows.size());
  std::uint64_t cells = 0;
  double seconds = 0;
  kernels::SmithWaterman aligner(backend, smith_waterman_tuning());
  for (const auto& [model, members] : groups) {
    kernels::SequencePairs pairs;
    for (std::size_t i : members) pairs.add(rows[i].ref, rows[i].alt);
    const auto start = std::chrono::steady_clock::now();
    kernels::SwStats stats;
    if (model.haplotype_to_reference) {
      const auto cigars = stages::call::calculate_cigars(pairs, aligner, model.parameters,
                                                         kernels::OverhangStrategy::kIndel, &stats);
      for (std::size_t k = 0; k < members.size(); ++k) {
        lines[members[k]] =
            cigars.has_cigar(k) ? "0\t" + cigar_to_string(cigars.cigar(k)) : "-1\t*";
        const auto& row = rows[members[k]];
        if (!row.alt.empty() && row.ref != row.alt)
          cells += (row.ref.size() + 20) * (row.alt.size() + 20);
      }
    } else {
      const auto alignments = aligner.align(pairs, model.parameters, model.strategy, &stats);
      for (std::size_t k = 0; k < members.size(); ++k) {
        lines[members[k]] = alignments.aligned(k) ? std::to_string(alignments.offset(k)) + "\t" +
                                                        cigar_to_string(alignments.cigar(k))
                                                  : "-1\t*";
      }
      cells += pairs.cells();
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stats.gpu_memory_retries > 0) {
      log::warning(std::string("sw: GPU out of memory: retried in smaller batches") +
                   (stats.gpu_memory_fallback ? ", then aligned on the CPU" : ""));
    }
  }

  std::string text;
  for (const std::string& line : lines) text += line + '\n';
  io::write_text_file(options.output, text);
  char summary[256];
  std::snprintf(summary, sizeof summary, "sw: %zu pairs, %llu cells, %.4f s, %.2f GCUPS on the %s",
                rows.size(), static_cast<unsigned long long>(cells), seconds,
                seconds > 0 ? cells / seconds * 1e-9 : 0.0, kernels::backend_name(backend));
  log::info(summary);
}

}  // namespace

Command add_sw_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<SwOptions>();
  CLI::App* app = root.add_subcommand("sw", "Align sequence pairs with GATK's Smith-Waterman");
  app->add_option("-I,--input", options->input,
                  "pairs TSV: ref alt match mismatch open extend mode")
      ->required();
  app->add_option("-O,--output", options->output, "offset and CIGAR per pair")->required();
  add_common_options(*app, common);
  return {app, [options, &common] { run_sw(*options, common); }};
}

}  // namespace gpp::pipeline
