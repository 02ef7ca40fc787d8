// gpu-pipeline pairhmm: GATK PairHMM log10 likelihoods for a batch file.
//
// Input: the batch format of kernels/pairhmm_batch_file.hpp. Output: per record the line `R H`,
// then R lines of H log10 likelihoods (6 decimals, read-major), named when complete (a stream or
// device is written in place). The cell count, the time with and without transfers and the GCUPS go
// to stderr.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/output_file.hpp"
#include "io/text/pairhmm_batch_file.hpp"
#include "kernels/pairhmm/pairhmm.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/log.hpp"
#include "pipeline/tuning_overrides.hpp"

namespace gpp::pipeline {

namespace {

struct PairHmmOptions {
  std::string input;
  std::string output;
  std::string precision = "auto";
};

/// Closes a FILE* on scope exit.
struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

void write_scores(const std::string& path, const kernels::PairHmmBatchView& batch,
                  const std::vector<double>& scores) {
  io::OutputFile output(path);  // named when complete; a stream or device written in place
  {
    std::unique_ptr<std::FILE, FileCloser> out(io::open_output_stream(output.temp_path()));
    if (!out) throw Error(path + ": cannot write output (" + std::strerror(errno) + ")");
    std::vector<char> buffer(1 << 20);
    std::setvbuf(out.get(), buffer.data(), _IOFBF, buffer.size());
    std::size_t k = 0;
    for (const auto& g : batch.groups) {
      std::fprintf(out.get(), "%u %u\n", g.read_count, g.haplotype_count);
      for (std::uint32_t r = 0; r < g.read_count; ++r) {
        for (std::uint32_t h = 0; h < g.haplotype_count; ++h, ++k) {
          std::fprintf(out.get(), h == 0 ? "%.6f" : " %.6f", scores[k]);
        }
        std::fputc('\n', out.get());
      }
    }
    if (std::fflush(out.get()) != 0 || std::ferror(out.get())) {
      throw Error(path + ": cannot write output (" + std::strerror(errno ? errno : EIO) + ")");
    }
  }
  output.commit();
}

void run_pairhmm(const PairHmmOptions& options, const CommonOptions& common) {
  io::check_outputs_distinct({options.input}, {options.output});
  const kernels::PairHmmPrecision precision = kernels::parse_pairhmm_precision(options.precision);
  const kernels::Backend backend = gpu_session(common).backend();
  // Page-locked for the GPU: its copy engine then reads the columns without a staging copy.
  kernels::PairHmmBatch batch(backend == kernels::Backend::kGpu);
  io::read_pairhmm_batch_file(options.input, batch);
  kernels::PairHmm hmm(backend, precision, pairhmm_tuning());
  const auto view = batch.view();
  const std::vector<double> scores = hmm.compute(view);
  write_scores(options.output, view, scores);
  const auto& s = hmm.stats();
  char line[512];
  std::snprintf(
      line, sizeof line,
      "pairhmm: %llu pairs, %llu cells (%llu pairs in fp64) on the %s: %.4f s with transfers "
      "(%.2f GCUPS), %.4f s compute (%.2f GCUPS)",
      static_cast<unsigned long long>(s.pairs), static_cast<unsigned long long>(s.cells),
      static_cast<unsigned long long>(s.double_pairs), kernels::backend_name(backend), s.seconds,
      s.seconds > 0 ? s.cells / s.seconds * 1e-9 : 0.0, s.compute_seconds,
      s.compute_seconds > 0 ? s.cells / s.compute_seconds * 1e-9 : 0.0);
  log::info(line);
}

}  // namespace

Command add_pairhmm_command(CLI::App& root, CommonOptions& common) {
  auto options = std::make_shared<PairHmmOptions>();
  CLI::App* app =
      root.add_subcommand("pairhmm", "Score read/haplotype batches with GATK's PairHMM");
  app->add_option("-I,--input", options->input, "batch file (R H, R read lines, H haplotypes)")
      ->required();
  app->add_option("-O,--output", options->output, "scores (log10, one line per read)")->required();
  app->add_option(
         "--precision", options->precision,
         "auto, float (fp32 with GKL's fp64 recomputation) or double (fp64 for every pair)")
      ->check(CLI::IsMember({"auto", "float", "double"}));
  add_common_options(*app, common);
  return {app, [options, &common] { run_pairhmm(*options, common); }};
}

}  // namespace gpp::pipeline
