#include "pipeline/huge_pages.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
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

bool huge_pages_available() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  // "always [madvise] never": glibc's tunable asks with madvise, which both other modes honour.
  return !text.empty() && text.find("[never]") == std::string::npos;
}

}  // namespace

void reexecute_with_huge_pages(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  const char* opt_out = std::getenv("GPP_HUGE_PAGES");
  if (opt_out != nullptr && std::string(opt_out) == "0") return;
  const char* current = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = current != nullptr ? current : "";
  // Already set, by the user or by the first execution: never loops.
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;
  if (std::thread::hardware_concurrency() < kMinimumCores || !huge_pages_available()) return;
  const std::string wanted = tunables.empty() ? kTunable : tunables + ":" + kTunable;
  if (setenv("GLIBC_TUNABLES", wanted.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc?): go on with small pages, the environment as it was.
  if (current != nullptr) {
    setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
#else
  (void)argv;
#endif
}

}  // namespace gpp::pipeline
