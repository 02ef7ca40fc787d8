#include "pipeline/heap_reuse.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <string_view>

#if defined(GPP_WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>

#include <string>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpp::pipeline {

bool heap_reuse_wanted(const char* tunables) {
  if (tunables == nullptr) return true;
  // GLIBC_TUNABLES is name=value pairs separated by colons; the last setting of a name wins.
  bool huge_pages = false;
  const std::string_view all(tunables);
  for (std::size_t at = 0; at <= all.size();) {
    const std::size_t end = std::min(all.find(':', at), all.size());
    const std::string_view item = all.substr(at, end - at);
    constexpr std::string_view kName = "glibc.malloc.hugetlb=";
    if (item.substr(0, kName.size()) == kName) huge_pages = item.substr(kName.size()) != "0";
    at = end + 1;
  }
  return !huge_pages;
}

void reuse_freed_memory() {
#if defined(GPP_WITH_JEMALLOC)
  // jemalloc does so by itself: freed pages go back to the kernel only after seconds unused.
#elif defined(__GLIBC__)
  if (!heap_reuse_wanted(std::getenv("GLIBC_TUNABLES"))) return;
  mallopt(M_MMAP_MAX, 0);              // no block gets a mapping of its own
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // the top of the heap is not given back
#endif
}

void return_freed_memory() {
#if defined(GPP_WITH_JEMALLOC)
  // Every arena's freed pages go back soon (kBoundedDecayMilliseconds), and those of arenas to
  // come.
  for (const char* setting : {"dirty_decay_ms", "muzzy_decay_ms"}) {
    ssize_t decay = kBoundedDecayMilliseconds;
    mallctl((std::string("arenas.") + setting).c_str(), nullptr, nullptr, &decay, sizeof decay);
    unsigned arenas = 0;
    std::size_t size = sizeof arenas;
    if (mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) continue;
    for (unsigned i = 0; i < arenas; ++i) {
      // An arena not yet in use refuses the setting; it takes the default above when it starts.
      const std::string name = "arena." + std::to_string(i) + "." + setting;
      mallctl(name.c_str(), nullptr, nullptr, &decay, sizeof decay);
    }
  }
#elif defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 1 << 16);        // glibc's default
  mallopt(M_MMAP_THRESHOLD, 1 << 20);  // blocks from 1 MiB on mapped on their own
  mallopt(M_TRIM_THRESHOLD, 4 << 20);  // and a heap top above 4 MiB given back
#endif
}

}  // namespace gpp::pipeline
