#include "kernels/device/device.hpp"

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
#endif

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
