#include "pipeline/huge_pages.hpp"

#include <cstdlib>
#include <fstream>
#include <string_view>
#include <thread>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace gpp::pipeline {

namespace {

// Faults contend in the kernel when many threads take them at once; with few cores they are
// cheap enough that zeroing whole huge pages costs more (markdup of 2.1 M reads on 2 cores:
// 10.5 s with small pages, 11.0 s with huge ones; 20 M reads on 16 cores: 8.4 s vs 6.6-7.1 s).
constexpr unsigned kMinimumCores = 8;

/// Whether one of the `separator`-separated items of `value` begins with `key`.
bool has_item(std::string_view value, std::string_view key, char separator) {
  for (std::size_t at = 0; at <= value.size();) {
    const std::size_t end = std::min(value.find(separator, at), value.size());
    if (value.substr(at, end - at).starts_with(key)) return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

const HugePageRequest& allocator_huge_pages() {
#if defined(GPP_WITH_JEMALLOC)
  return kJemallocHugePages;
#else
  return kGlibcHugePages;
#endif
}

std::optional<std::string> huge_page_setting(const HugePageRequest& request, const char* current,
                                             const char* opt_out, unsigned cores,
                                             const std::string& thp_mode) {
  if (opt_out != nullptr && std::string(opt_out) == "0") return std::nullopt;
  const std::string value = current != nullptr ? current : "";
  if (has_item(value, request.key, request.separator)) return std::nullopt;
  if (cores < kMinimumCores) return std::nullopt;
  // "always [madvise] never": both allocators ask with madvise, which both other modes honour.
  if (thp_mode.empty() || thp_mode.find("[never]") != std::string::npos) return std::nullopt;
  return value.empty() ? std::string(request.item) : value + request.separator + request.item;
}

void reexecute_with_huge_pages(char** argv) {
#if defined(__linux__) && (defined(GPP_WITH_JEMALLOC) || defined(__GLIBC__))
  const HugePageRequest& request = allocator_huge_pages();
  const char* current = std::getenv(request.variable);
  std::string mode;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
  const std::optional<std::string> wanted = huge_page_setting(
      request, current, std::getenv("GPP_HUGE_PAGES"), std::thread::hardware_concurrency(), mode);
  if (!wanted) return;
  const std::string before = current != nullptr ? current : "";
  if (setenv(request.variable, wanted->c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc?): go on with small pages, the environment as it was.
  if (current != nullptr) {
    setenv(request.variable, before.c_str(), 1);
  } else {
    unsetenv(request.variable);
  }
#else
  (void)argv;
#endif
}

}  // namespace gpp::pipeline
