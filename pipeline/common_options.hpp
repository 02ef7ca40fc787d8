// Options every subcommand takes (--threads, --device, --verbosity) and what they set up.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "kernels/device/device.hpp"

namespace gpp::pipeline {

class GpuSession;

struct CommonOptions {
  int threads = 0;  ///< 0 = all hardware threads
  std::string device = "auto";
  std::string verbosity = "INFO";
  int compression_level = -1;  ///< BAM/CRAM deflate level 0-9; -1 = HTSlib's default (as samtools)
  bool gpu_write = false;    ///< BAM blocks compressed by the block encoder on the --device backend
  bool gpu_read = true;      ///< BAM input files inflated on the GPU (with the GPU backend)
  std::string command_line;  ///< the full command line, for @PG lines and reports
  std::string max_memory;    ///< --max-memory as given; empty: the default (memory_budget.hpp)
  std::string tmp_dir;       ///< --tmp-dir as given; empty: the default (memory_budget.hpp)
  std::string gpu_memory;    ///< --gpu-memory as given; empty: all the GPU has
  std::string logfile;       ///< Parabricks' --logfile: the log written there too
  bool verbose = false;      ///< Parabricks' --verbose: --verbosity DEBUG
  int gpus = 1;              ///< Parabricks' --num-gpus (one is used)
  GpuSession* gpu = nullptr;  ///< the process's GPU session (gpu_session.hpp), made by main
};

/// Adds --threads, --device, --verbosity, --compression-level, --gpu-write,
/// --gpu-read/--no-gpu-read, --max-memory, --tmp-dir and --gpu-memory to a subcommand, and
/// Parabricks' run options (--num-gpus, --logfile, --verbose, --gpusort, --low-memory).
void add_common_options(CLI::App& command, CommonOptions& options);

/// Threads to use: --threads, or every hardware thread when 0.
int thread_count(const CommonOptions& options);

/// The backend for --device, probing the GPUs; with auto and no usable GPU, says once that it runs
/// on the CPU. Commands reach it through their GpuSession, which makes the choice once.
kernels::Backend choose_backend(const CommonOptions& options);

/// The current time as Java's Date.toString() writes it (Picard's "Started on:" line).
std::string started_on();

/// Adds the input/output option pair with GATK names and Parabricks aliases: the output's
/// `parabricks_name` (--out-bam, --out-recal-file), none when empty.
CLI::Option* add_input_option(CLI::App& command, std::string& input, const std::string& what);
/// The same, repeatable (-I a.bam -I b.bam).
CLI::Option* add_input_option(CLI::App& command, std::vector<std::string>& inputs,
                              const std::string& what);
CLI::Option* add_output_option(CLI::App& command, std::string& output, const std::string& what,
                               const std::string& parabricks_name);

}  // namespace gpp::pipeline
