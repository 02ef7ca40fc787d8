// gpu-pipeline: entry point. Parses the command line, sets up threads and logging, runs one
// subcommand, and turns every failure into one line on stderr and an exit code that says what
// kind of failure it was (ExitCode), so workflow engines can tell a retry worth making.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/version.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "gpp/build_info.hpp"
#include "io/library_info.hpp"
#include "kernels/device/device.hpp"
#include "pipeline/alignment_io.hpp"
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

/// GATK's single-dash short names of the options the commands share with GATK's tools, which
/// CLI11 (one-letter short names only) cannot declare: rewritten to the long names before parsing.
constexpr std::pair<std::string_view, std::string_view> kGatkShortNames[] = {
    {"-ERC", "--emit-ref-confidence"},
    {"-GQB", "--gvcf-gq-bands"},
    {"-stand-call-conf", "--standard-min-confidence-threshold-for-calling"},
    {"-ploidy", "--sample-ploidy"},
    {"-mbq", "--min-base-quality-score"},
    {"-ip", "--interval-padding"},
    {"-XL", "--exclude-intervals"},
    {"-ixp", "--interval-exclusion-padding"},
    {"-AX", "--annotations-to-exclude"},
    {"-DF", "--disable-read-filter"},
    {"-pairHMM", "--pair-hmm-implementation"},
    {"-ALIAS", "--sample-name"},
    {"-bamout", "--bam-output"},
};

std::string with_long_name(const std::string& arg) {
  for (const auto& [short_name, long_name] : kGatkShortNames) {
    if (arg == short_name) return std::string(long_name);
  }
  return arg;
}

/// Parabricks' --haplotypecaller-options "<options>": HaplotypeCaller options in GATK's spelling,
/// where a long name may also take one dash ("-min-pruning 3"): each becomes an argument of its
/// own, as if given on the command line.
void append_haplotypecaller_options(const std::string& text, std::vector<std::string>& args) {
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    word = with_long_name(word);
    const bool one_dash_long_name = word.size() > 2 && word[0] == '-' && word[1] != '-' &&
                                    std::isalpha(static_cast<unsigned char>(word[1]));
    args.push_back(one_dash_long_name ? "-" + word : word);
  }
}

/// GATK's and Parabricks' options for the CPU threads of a tool: the largest one given becomes
/// --threads unless that is given (nf-core's GATK module passes --native-pair-hmm-threads
/// ${task.cpus}).
constexpr std::string_view kThreadOptions[] = {
    "--native-pair-hmm-threads",  // GATK HaplotypeCaller
    "--num-htvc-threads",         // Parabricks haplotypecaller
    "--num-threads",              // Parabricks applybqsr
    "--num-worker-threads",       // Parabricks markdup
    "--num-zip-threads",          // Parabricks markdup (compression)
    "--num-cpu-threads-per-stage",
};

bool is_thread_option(std::string_view arg) {
  return std::find(std::begin(kThreadOptions), std::end(kThreadOptions), arg) !=
         std::end(kThreadOptions);
}

bool given(int argc, char** argv, std::string_view option) {
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == option ||
        (arg.starts_with(option) && arg.size() > option.size() && arg[option.size()] == '=')) {
      return true;
    }
  }
  return false;
}

/// The arguments as the commands declare them: GATK's short names and Parabricks'
/// --haplotypecaller-options rewritten; the thread options (kThreadOptions) as one --threads;
/// Parabricks' markdup --mem-limit GB as --max-memory unless that is given, and
/// --markdups-assume-sortorder-queryname as --assume-sort-order queryname.
std::vector<std::string> normalized_arguments(int argc, char** argv) {
  constexpr std::string_view kCallerOptions = "--haplotypecaller-options";
  const bool threads_given = given(argc, argv, "--threads");
  const bool memory_given = given(argc, argv, "--max-memory");
  std::vector<std::string> args;
  std::string threads;  // the largest thread option's value
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (is_thread_option(arg) && i + 1 < argc) {
      const std::string value = argv[++i];
      const auto number = [](const std::string& text) { return std::atoll(text.c_str()); };
      if (threads.empty() || number(value) > number(threads)) threads = value;
    } else if (arg == "--mem-limit" && i + 1 < argc) {
      const std::string gigabytes = argv[++i];
      if (!memory_given) {
        args.push_back("--max-memory");
        args.push_back(gigabytes + "G");
      }
    } else if (arg == "--markdups-assume-sortorder-queryname") {
      args.push_back("--assume-sort-order");
      args.push_back("queryname");
    } else if (arg == kCallerOptions && i + 1 < argc) {
      append_haplotypecaller_options(argv[++i], args);
    } else if (arg.starts_with(std::string(kCallerOptions) + "=")) {
      append_haplotypecaller_options(arg.substr(kCallerOptions.size() + 1), args);
    } else {
      args.push_back(with_long_name(arg));
    }
  }
  if (!threads.empty() && !threads_given) {
    args.push_back("--threads");
    args.push_back(threads);
  }
  return args;
}

/// --logfile is written from the start: a path also given as another argument (an input or an
/// output) is refused before anything is written.
void check_log_file_is_no_other_argument(const std::string& logfile, int argc, char** argv) {
  int named = 0;
  for (int i = 1; i < argc; ++i) {
    std::error_code error;
    if (argv[i] == logfile || std::filesystem::equivalent(argv[i], logfile, error)) ++named;
  }
  if (named > 1) {
    throw Error("--logfile " + logfile +
                ": also given as another argument; the log would "
                "overwrite it");
  }
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
    std::vector<std::string> args = normalized_arguments(argc, argv);
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
      check_log_file_is_no_other_argument(common.logfile, argc, argv);
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
