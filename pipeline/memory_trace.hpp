// MemoryTrace: at DEBUG verbosity, a thread that logs the process's resident memory every second
// with the allocator's view of it — where a command's memory goes, phase by phase, beside the log
// lines that name the phases. The allocator's "resident" is its own pages; the GPU's page-locked
// buffers (anonymous mappings pinned with cudaHostRegister) count in the process's anonymous
// memory beside it.
//
// @code
//   const MemoryTrace trace(log::level() >= log::Level::kDebug);   // for the command's life
// @endcode
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace gpp::pipeline {

/// "resident 1.2 GiB (anonymous 1.1 GiB, file 40 MiB, shared 0 MiB), allocator: allocated
/// 900 MiB, active 1.0 GiB, resident 1.1 GiB, retained 200 MiB" (the allocator's part only with
/// jemalloc linked in).
std::string memory_report();

class MemoryTrace {
 public:
  /// Logs memory_report() every second until destroyed, when `on`.
  explicit MemoryTrace(bool on);
  ~MemoryTrace();
  MemoryTrace(const MemoryTrace&) = delete;
  MemoryTrace& operator=(const MemoryTrace&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gpp::pipeline
