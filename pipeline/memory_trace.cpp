#include "pipeline/memory_trace.hpp"

#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"

#if defined(GPP_WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>
#endif

namespace gpp::pipeline {

namespace {

// A field of /proc/self/status in bytes ("RssAnon:   1234 kB"), 0 when absent.
std::uint64_t status_bytes(const std::string& status, const std::string& field) {
  const std::size_t at = status.find("\n" + field + ":");
  if (at == std::string::npos) return 0;
  return std::stoull(status.substr(at + field.size() + 2)) * 1024;
}

#if defined(GPP_WITH_JEMALLOC)
std::uint64_t allocator_stat(const char* name) {
  std::size_t value = 0;
  std::size_t size = sizeof value;
  return mallctl(name, &value, &size, nullptr, 0) == 0 ? value : 0;
}
#endif

}  // namespace

std::string memory_report() {
  std::ifstream in("/proc/self/status");
  std::stringstream text;
  text << "\n" << in.rdbuf();
  const std::string status = text.str();
  std::string report = "resident " + format_bytes(status_bytes(status, "VmRSS")) + " (anonymous " +
                       format_bytes(status_bytes(status, "RssAnon")) + ", file " +
                       format_bytes(status_bytes(status, "RssFile")) + ", shared " +
                       format_bytes(status_bytes(status, "RssShmem")) + ")";
#if defined(GPP_WITH_JEMALLOC)
  std::uint64_t epoch = 1;  // the statistics are refreshed when the epoch is written
  std::size_t size = sizeof epoch;
  mallctl("epoch", &epoch, &size, &epoch, size);
  report += ", allocator: allocated " + format_bytes(allocator_stat("stats.allocated")) +
            ", active " + format_bytes(allocator_stat("stats.active")) + ", resident " +
            format_bytes(allocator_stat("stats.resident")) + ", retained " +
            format_bytes(allocator_stat("stats.retained"));
#endif
  return report;
}

MemoryTrace::MemoryTrace(bool on) {
  if (!on) return;
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) {
      log::debug("memory: " + memory_report());
    }
  });
}

MemoryTrace::~MemoryTrace() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_one();
  thread_.join();
}

}  // namespace gpp::pipeline
