// gpu-pipeline: entry point. Parses the command line, sets up threads and logging, runs one
// subcommand, and turns every failure into one line on stderr and an exit code that says what
// kind of failure it was (ExitCode), so workflow engines can tell a retry worth making.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/version.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpp/build_info.hpp"
#include "io/library_info.hpp"
#include "kernels/device/device.hpp"
#include "pipeline/alignment_io.hpp"
#include "pipeline/command_line.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/heap_reuse.hpp"
#include "pipeline/huge_pages.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/memory_trace.hpp"

namespace gpp::pipeline {

namespace {

std::string version_text() {
  std::string text = std::string("gpu-pipeline ") + build_info::kVersion + "\n";
  if (build_info::kWithCuda) {
    const std::string driver = kernels::cuda_driver_version();
    text += std::string("CUDA: built with toolkit ") + build_info::kCudaToolkitVersion +
            " for sm " + build_info::kCudaArchitectures + "; driver " +
            (driver.empty() ? "not found" : driver) + "\n";
  } else {
    text += "CUDA: not part of this build (CPU backends only)\n";
  }
  text += "HTSlib: " + io::htslib_version() + "\n";
  text += "oneTBB: " + std::string(TBB_VERSION_STRING);
  return text;
}

std::string join_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) line += ' ';
    line += argv[i];
  }
  return line;
}

/// The exit codes (README "Exit codes", and --help): a workflow engine may retry 3 with more
/// memory.
enum ExitCode : int {
  kSuccess = 0,
  kBadInputOrIo = 1,  ///< bad input, unreadable or unwritable file, full disk, GPU failure
  kUsage = 2,         ///< the command line: unknown option, missing or invalid value
  kOutOfMemory = 3,   ///< host memory exhausted
  kInternal = 4,      ///< a defect of gpu-pipeline (an unexpected exception)
};

int fail(const std::string& message, int code) {
  log::error(message);  // to --logfile too, once it is open
  return code;
}

int run(int argc, char** argv) {
  CLI::App app{
      "gpu-pipeline: sorted, duplicate-marked, recalibrated BAM and germline VCF from aligned "
      "reads,\n"
      "on NVIDIA GPUs or the CPU, matching samtools, Picard and GATK.",
      "gpu-pipeline"};
  app.require_subcommand(1, 1);
  app.footer(
      "Exit codes: 0 done; 1 bad input, an unreadable or unwritable file, a full disk or a GPU "
      "failure; 2 a usage error; 3 out of memory; 4 an internal error.");
  app.set_version_flag("--version", version_text, "Print the version and the build's CUDA/HTSlib");
  CommonOptions common;
  common.command_line = join_command_line(argc, argv);
  // The device as the command uses it; at the end of the command it waits for buffers still being
  // made, so that nothing uses the GPU while the process ends.
  GpuSession gpu(common);
  common.gpu = &gpu;
  const std::vector<Command> commands = {
      add_run_command(app, common),       add_sort_command(app, common),
      add_markdup_command(app, common),   add_bqsr_command(app, common),
      add_applybqsr_command(app, common), add_call_command(app, common),
      add_pairhmm_command(app, common),   add_sw_command(app, common),
  };
  try {
    std::vector<std::string> args =
        normalized_arguments(std::vector<std::string>(argv, argv + argc));
    std::vector<const char*> arg_pointers;
    for (const std::string& arg : args) arg_pointers.push_back(arg.c_str());
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (see --help)", kUsage);
  }

  try {
    log::set_level(common.verbose ? log::Level::kDebug : log::parse_level(common.verbosity));
    if (!common.logfile.empty()) {
      check_log_file_is_no_other_argument(common.logfile,
                                          std::vector<std::string>(argv, argv + argc));
      log::also_to_file(common.logfile);
    }
    if (common.gpus > 1) {
      log::warning("--num-gpus " + std::to_string(common.gpus) +
                   ": one process uses one GPU (GPU 0 of CUDA_VISIBLE_DEVICES); run one per GPU, "
                   "each over its own -L intervals");
    }
    io::set_htslib_diagnostics(log::level() >= log::Level::kDebug);
    log::debug("command line parsed");
    const MemoryTrace memory_trace(log::level() >= log::Level::kDebug);
    const oneapi::tbb::global_control threads(oneapi::tbb::global_control::max_allowed_parallelism,
                                              static_cast<std::size_t>(thread_count(common)));
    if (!common.gpu_memory.empty())
      kernels::set_device_memory_limit(parse_memory_size(common.gpu_memory, "--gpu-memory"));
    for (const Command& command : commands) {
      if (command.app->parsed()) command.run();
    }
    log::debug("command done");
    if (kernels::device_memory_peak() > 0) {
      log::info("peak GPU memory " + std::to_string(kernels::device_memory_peak() >> 20) +
                " MiB (device buffers)");
    }
    log::info("peak memory " + std::to_string(peak_resident_memory() >> 20) + " MB");
  } catch (const Error& e) {
    return fail(e.what(), kBadInputOrIo);
  } catch (const std::bad_alloc&) {
    return fail("out of memory", kOutOfMemory);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), kInternal);
  }
  return kSuccess;
}

}  // namespace
}  // namespace gpp::pipeline

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) would end the process by SIGXFSZ, leaving temporary outputs;
  // ignored, the write fails with EFBIG and the command reports it and cleans up like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  // Spilled runs, key ranges and name buckets are open files: the soft limit (often 1024) goes up
  // to the hard one, as far as the process may raise it.
  if (rlimit files{}; ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  gpp::pipeline::reexecute_with_huge_pages(argv);
  gpp::pipeline::reuse_freed_memory();
  const int status = gpp::pipeline::run(argc, argv);
  gpp::pipeline::log::debug("exiting");
  return status;
}
