#include "kernels/device/device.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace gpp::kernels {

#ifndef GPP_WITH_CUDA
// Without CUDA the CPU backend is the only one; these stand in for device_cuda.cu.
std::vector<GpuInfo> detect_gpus() { return {}; }
std::string gpu_unavailable_reason() { return "this build has no CUDA support"; }
std::string cuda_driver_version() { return ""; }
void initialize_device(Backend) {}
namespace detail {
std::size_t device_free_memory() { return 0; }
}  // namespace detail
#endif

namespace {
std::atomic<std::size_t> memory_limit{0};
std::atomic<std::size_t> memory_in_use{0};
std::atomic<std::size_t> memory_peak{0};
}  // namespace

void set_device_memory_limit(std::size_t bytes) { memory_limit = bytes; }
std::size_t device_memory_limit() { return memory_limit; }
std::size_t device_memory_peak() { return memory_peak; }

std::size_t device_memory_available() {
  const std::size_t free_bytes = detail::device_free_memory();
  const std::size_t limit = memory_limit;
  if (limit == 0) return free_bytes;
  const std::size_t used = memory_in_use;
  return std::min(free_bytes, limit > used ? limit - used : 0);
}

namespace detail {

void reserve_device_memory(std::size_t bytes, const std::string& what) {
  const std::size_t limit = memory_limit;
  std::size_t used = memory_in_use.load();
  do {
    if (limit != 0 && used + bytes > limit) {
      throw DeviceMemoryExhausted("GPU memory: " + what + " does not fit in what --gpu-memory (" +
                                  std::to_string(limit >> 20) + " MiB) leaves (" +
                                  std::to_string((limit > used ? limit - used : 0) >> 20) +
                                  " MiB)");
    }
  } while (!memory_in_use.compare_exchange_weak(used, used + bytes));
  std::size_t peak = memory_peak.load();
  while (used + bytes > peak && !memory_peak.compare_exchange_weak(peak, used + bytes)) {
  }
}

void release_device_memory(std::size_t bytes) { memory_in_use -= bytes; }

}  // namespace detail

bool gpu_device_nodes_present() {
#if defined(GPP_WITH_CUDA)
  std::error_code ec;
  return std::filesystem::exists("/dev/nvidiactl", ec);
#else
  return false;
#endif
}

Backend resolve_backend(DeviceChoice choice) {
  switch (choice) {
    case DeviceChoice::kCpu:
      return Backend::kCpu;
    case DeviceChoice::kAuto:
      return detect_gpus().empty() ? Backend::kCpu : Backend::kGpu;
    case DeviceChoice::kGpu:
      if (detect_gpus().empty()) {
        throw Error("--device gpu: no usable GPU (" + gpu_unavailable_reason() +
                    "); use --device cpu or --device auto");
      }
      return Backend::kGpu;
  }
  return Backend::kCpu;
}

DeviceChoice parse_device_choice(const std::string& text) {
  if (text == "auto") return DeviceChoice::kAuto;
  if (text == "gpu") return DeviceChoice::kGpu;
  if (text == "cpu") return DeviceChoice::kCpu;
  throw Error("--device: '" + text + "' is not one of auto, gpu, cpu");
}

const char* backend_name(Backend backend) { return backend == Backend::kGpu ? "gpu" : "cpu"; }

}  // namespace gpp::kernels
