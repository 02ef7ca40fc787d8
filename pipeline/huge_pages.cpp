#include "pipeline/huge_pages.hpp"

#include <cstdlib>
#include <fstream>
#include <thread>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

namespace gpp::pipeline {

namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
// Faults contend in the kernel when many threads take them at once; with few cores they are
// cheap enough that zeroing whole huge pages costs more (markdup of 2.1 M reads on 2 cores:
// 10.5 s with small pages, 11.0 s with huge ones; 20 M reads on 16 cores: 8.4 s vs 6.6-7.1 s).
constexpr unsigned kMinimumCores = 8;

}  // namespace

std::optional<std::string> huge_page_tunables(const char* current, const char* opt_out,
                                              unsigned cores, const std::string& thp_mode) {
  if (opt_out != nullptr && std::string(opt_out) == "0") return std::nullopt;
  const std::string tunables = current != nullptr ? current : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return std::nullopt;
  if (cores < kMinimumCores) return std::nullopt;
  // "always [madvise] never": glibc's tunable asks with madvise, which both other modes honour.
  if (thp_mode.empty() || thp_mode.find("[never]") != std::string::npos) return std::nullopt;
  return tunables.empty() ? std::string(kTunable) : tunables + ":" + kTunable;
}

void reexecute_with_huge_pages(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  const char* current = std::getenv("GLIBC_TUNABLES");
  std::string mode;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
  const std::optional<std::string> wanted = huge_page_tunables(
      current, std::getenv("GPP_HUGE_PAGES"), std::thread::hardware_concurrency(), mode);
  if (!wanted) return;
  const std::string before = current != nullptr ? current : "";
  if (setenv("GLIBC_TUNABLES", wanted->c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc?): go on with small pages, the environment as it was.
  if (current != nullptr) {
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
#else
  (void)argv;
#endif
}

}  // namespace gpp::pipeline
