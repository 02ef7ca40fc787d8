// CUDA half of the device layer: enumerates GPUs through the runtime API.
#include <cuda_runtime.h>

#include "kernels/device/device.hpp"

namespace gpp::kernels {

namespace {

struct Probe {
  std::vector<GpuInfo> gpus;
  std::string reason;
};

// Probing initialises the CUDA runtime once per process; the result does not change.
const Probe& probe() {
  static const Probe result = [] {
    Probe p;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) {
      p.reason = "no NVIDIA GPU or driver found";
      cudaGetLastError();
      return p;
    }
    if (status != cudaSuccess) {
      p.reason = cudaGetErrorString(status);
      cudaGetLastError();  // clear the sticky error for later calls
      return p;
    }
    if (count == 0) {
      p.reason = "no CUDA device found";
      return p;
    }
    for (int i = 0; i < count; ++i) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
      p.gpus.push_back(GpuInfo{i, prop.name, prop.totalGlobalMem, prop.major, prop.minor,
                               prop.multiProcessorCount});
    }
    if (p.gpus.empty()) p.reason = "no CUDA device could be queried";
    return p;
  }();
  return result;
}

}  // namespace

std::vector<GpuInfo> detect_gpus() { return probe().gpus; }

std::string gpu_unavailable_reason() { return probe().reason; }

std::string cuda_driver_version() {
  int version = 0;
  if (cudaDriverGetVersion(&version) != cudaSuccess || version == 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

void initialize_device(Backend backend) {
  if (backend != Backend::kGpu) return;
  cudaFree(nullptr);  // makes the primary context current
  cudaGetLastError();
}

namespace detail {
std::size_t device_free_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();  // no GPU to ask: nothing is free
    return 0;
  }
  return free_bytes;
}
}  // namespace detail

}  // namespace gpp::kernels
