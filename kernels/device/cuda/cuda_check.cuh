// Checked CUDA calls and an owning device buffer (RAII), shared by the CUDA backends.
#pragma once

#include <cuda_runtime.h>
#include <sys/mman.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "kernels/device/device.hpp"

namespace gpp::kernels::cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
  }
}

/// Checks the launch configuration and (asynchronously reported) errors of the last kernel launch.
inline void check_launch(const char* kernel_name) { check(cudaGetLastError(), kernel_name); }

/// Owning device allocation of `count` elements of T (uninitialised). Move-only.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    detail::reserve_device_memory(bytes(),
                                  "a device buffer of " + std::to_string(bytes() >> 20) + " MiB");
    const cudaError_t status = cudaMalloc(reinterpret_cast<void**>(&data_), bytes());
    if (status != cudaSuccess) {
      detail::release_device_memory(bytes());
      data_ = nullptr;
      count_ = 0;
      if (status == cudaErrorMemoryAllocation) {
        throw DeviceMemoryExhausted(std::string("CUDA: cudaMalloc: ") + cudaGetErrorString(status));
      }
      check(status, "cudaMalloc");
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_ != nullptr) {
      cudaFree(data_);
      detail::release_device_memory(bytes());
    }
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// Page-locked host memory of `bytes` (uninitialised). Its pages are faulted in by this thread
/// first (huge pages where the kernel gives them) and then registered with CUDA, so the driver is
/// busy only for the pinning: cudaHostAlloc does both under the driver's lock, and every CUDA call
/// of the process's other threads waits meanwhile (tenths of a second for a gigabyte). Where
/// registering fails, cudaHostAlloc. Free with free_pinned.
inline void* allocate_pinned(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) {
    madvise(p, bytes, MADV_HUGEPAGE);
    for (std::size_t at = 0; at < bytes; at += 4096) static_cast<volatile char*>(p)[at] = 0;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) return p;
    cudaGetLastError();  // clear the failure
    munmap(p, bytes);
  }
  check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  return p;
}

inline void free_pinned(void* p, std::size_t bytes) {
  if (p == nullptr) return;
  if (cudaHostUnregister(p) == cudaSuccess) {
    munmap(p, bytes);
  } else {
    cudaGetLastError();
    cudaFreeHost(p);
  }
}

/// Owning page-locked host allocation of `count` elements of T (uninitialised). Move-only.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) data_ = static_cast<T*>(allocate_pinned(count_ * sizeof(T)));
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~PinnedBuffer() { release(); }
  T* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  void release() noexcept {
    free_pinned(data_, count_ * sizeof(T));
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// An owning non-blocking CUDA stream.
class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "create stream"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// An owning CUDA event (timing and cross-stream ordering).
class Event {
 public:
  Event() { check(cudaEventCreate(&event_), "create event"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace gpp::kernels::cuda
