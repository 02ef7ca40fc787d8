// Device layer: which GPUs this process can use, and which backend a kernel call runs on.
//
// Every kernel in kernels/ has a CPU (oneTBB) and a CUDA backend that give identical results.
// resolve_backend() turns the user's --device choice into one of them:
//   auto -> Gpu when a usable GPU is present (and the build has CUDA), else Cpu
//   gpu  -> Gpu, or gpp::Error when no usable GPU is present
//   cpu  -> Cpu
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpp::kernels {

enum class Backend { kCpu, kGpu };
enum class DeviceChoice { kAuto, kGpu, kCpu };

/// Where a stream of GPU work spent its time: its kernels' seconds (summed over the work in
/// flight, so they may overlap) and the seconds the host waited for the GPU to finish it.
struct GpuSeconds {
  double kernels = 0;
  double waited = 0;
};

struct GpuInfo {
  int index = 0;
  std::string name;
  std::size_t total_memory_bytes = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
};

/// GPUs visible to this process. Empty when the build has no CUDA or no driver/device is present.
std::vector<GpuInfo> detect_gpus();

/// Whether the NVIDIA driver's device node is there (/dev/nvidiactl): a quick sign, before the
/// probe of detect_gpus() (a tenth of a second or more), that a GPU may be usable. Not proof
/// either way: WSL has none. False in a build without CUDA.
bool gpu_device_nodes_present();

/// Why detect_gpus() found nothing usable ("no CUDA driver", "built without CUDA", ...),
/// or an empty string when at least one GPU is usable.
std::string gpu_unavailable_reason();

/// CUDA driver version as "major.minor", or an empty string without CUDA/driver.
std::string cuda_driver_version();

/// Backend for a --device choice; throws gpp::Error for kGpu without a usable GPU.
Backend resolve_backend(DeviceChoice choice);

/// Parses "auto", "gpu", "cpu"; throws gpp::Error otherwise.
DeviceChoice parse_device_choice(const std::string& text);

const char* backend_name(Backend backend);

/// --gpu-memory: the most device memory this process's own allocations (cuda::DeviceBuffer) may
/// hold at once; 0 (the default) for no limit but the GPU's. Set before GPU work starts. Work that
/// sizes itself to the device (batches, slots, chunks) sizes itself to what this leaves, and work
/// that cannot fit in it runs on the CPU (same results). The CUDA context's own memory (a few
/// hundred MiB) is not counted.
void set_device_memory_limit(std::size_t bytes);
std::size_t device_memory_limit();

/// Bytes a new device allocation may take now: the GPU's free memory, and under a limit no more
/// than what the limit leaves. 0 without a GPU.
std::size_t device_memory_available();

/// The most bytes this process's device allocations held at once so far.
std::size_t device_memory_peak();

namespace detail {
/// Accounting of device allocations (cuda::DeviceBuffer): reserve before allocating (throws
/// gpp::DeviceMemoryExhausted when the limit would be passed), release after freeing.
void reserve_device_memory(std::size_t bytes, const std::string& what);
void release_device_memory(std::size_t bytes);
/// The GPU's free memory (cudaMemGetInfo); 0 without CUDA.
std::size_t device_free_memory();
}  // namespace detail

/// With kGpu, creates GPU 0's CUDA context now (the first CUDA call of a process pays for it,
/// a good part of a second); a caller with other work to do first runs this beside it. Nothing
/// with kCpu. Errors are left for the first real CUDA call to report.
void initialize_device(Backend backend);

}  // namespace gpp::kernels
