#include "pipeline/common_options.hpp"

#include <atomic>
#include <ctime>
#include <thread>

#include "core/error.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"

namespace gpp::pipeline {

namespace {

CLI::Validator size_validator(const std::string& option) {
  return CLI::Validator(
      [option](const std::string& text) {
        try {
          parse_memory_size(text, option);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      "SIZE");
}

}  // namespace

void add_common_options(CLI::App& command, CommonOptions& options) {
  command
      .add_option("--threads", options.threads,
                  "CPU threads (0 = all; GATK's --native-pair-hmm-threads sets it too)")
      ->check(CLI::NonNegativeNumber)
      ->group("Common");
  command.add_option("--device", options.device, "auto (GPU when usable), gpu or cpu")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}))
      ->group("Common");
  command.add_option("--verbosity", options.verbosity, "ERROR, WARNING, INFO or DEBUG")
      ->group("Common");
  command
      .add_option("--compression-level", options.compression_level,
                  "deflate level of BAM output, 0-9 (default: HTSlib's, as samtools)")
      ->check(CLI::Range(-1, 9))
      ->group("Common");
  command
      .add_flag("--gpu-write,--gpuwrite", options.gpu_write,
                "compress BAM output with our block encoder on the GPU (on the CPU, slowly, with "
                "--device cpu "
                "or no GPU; same bytes either way, about 2-4% larger than the default level)")
      ->group("Common");
  command
      .add_flag("--gpu-read,--gpuread,!--no-gpu-read", options.gpu_read,
                "inflate BAM input files on the GPU, streamed ahead of the decoding (the default "
                "with a GPU backend; "
                "the same records; --no-gpu-read: libdeflate on the CPU threads)")
      ->group("Common");
  command
      .add_option("--max-memory", options.max_memory,
                  "memory to hold at most, e.g. 768M, 16G (default: 3/4 of the available memory); "
                  "larger inputs go through sorted runs spilled to --tmp-dir")
      ->check(size_validator("--max-memory"))
      ->group("Common");
  command
      .add_option("--tmp-dir", options.tmp_dir,
                  "directory for spilled runs (default: $TMPDIR, else the output's directory)")
      ->group("Common");
  command
      .add_option("--gpu-memory", options.gpu_memory,
                  "GPU memory to allocate at most, e.g. 12G for a 16 GB card (default: what is "
                  "free); batches are sized to it, and work that cannot fit runs on the CPU")
      ->check(size_validator("--gpu-memory"))
      ->group("Common");
  // Parabricks' options for how its tools run, so that its command lines (nf-core's modules
  // pass --num-gpus) work here.
  command.add_option("--num-gpus", options.gpus, "GPUs (Parabricks'): one is used per process")
      ->check(CLI::PositiveNumber)
      ->group("Parabricks");
  command.add_option("--logfile", options.logfile, "write the log to this file too (Parabricks')")
      ->group("Parabricks");
  command.add_flag("--verbose", options.verbose, "--verbosity DEBUG (Parabricks')")
      ->group("Parabricks");
  command.add_flag("--gpusort")
      ->description("(Parabricks') sorting runs on the GPU with the GPU backend without it")
      ->group("Parabricks");
  command.add_flag("--low-memory,--htvc-low-memory")
      ->description(
          "(Parabricks') the GPU's batches are sized to its free memory without it; "
          "--gpu-memory caps them")
      ->group("Parabricks");
}

int thread_count(const CommonOptions& options) {
  if (options.threads > 0) return options.threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

kernels::Backend choose_backend(const CommonOptions& options) {
  const kernels::DeviceChoice choice = kernels::parse_device_choice(options.device);
  const kernels::Backend backend = kernels::resolve_backend(choice);
  if (backend == kernels::Backend::kCpu && choice == kernels::DeviceChoice::kAuto) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      log::info("no usable GPU (" + kernels::gpu_unavailable_reason() + "): running on the CPU");
  }
  if (backend == kernels::Backend::kGpu) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      log::debug("running on GPU 0: " + kernels::detect_gpus().front().name);
  }
  return backend;
}

std::string started_on() {
  const std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Z %Y", std::localtime(&now));
  return buf;
}

CLI::Option* add_input_option(CLI::App& command, std::string& input, const std::string& what) {
  return command.add_option("-I,--input,--in-bam", input, what + "; - reads standard input");
}

CLI::Option* add_input_option(CLI::App& command, std::vector<std::string>& inputs,
                              const std::string& what) {
  return command.add_option("-I,--input,--in-bam", inputs, what + "; - reads standard input");
}

CLI::Option* add_output_option(CLI::App& command, std::string& output, const std::string& what,
                               const std::string& parabricks_name) {
  return command.add_option("-O,--output" + (parabricks_name.empty() ? "" : "," + parabricks_name),
                            output, what);
}

}  // namespace gpp::pipeline
