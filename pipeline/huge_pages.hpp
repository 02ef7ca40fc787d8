// Transparent huge pages for the process's heap.
//
// A stage fills columns of tens of millions of records, gigabytes touched for the first time by
// every thread at once: with 4 KiB pages that is millions of page faults, serialised in the
// kernel (on a 16-core host, 5 M faults took a fifth of a 20 M-read markdup). The allocator backs
// its memory with transparent huge pages when asked by an environment variable it reads only
// when a process starts (jemalloc: MALLOC_CONF thp:always; glibc: GLIBC_TUNABLES
// glibc.malloc.hugetlb=1); so the executable re-executes itself once with it set.
#pragma once

#include <optional>
#include <string>

namespace gpp::pipeline {

/// How an allocator is asked for huge pages: an item of the environment variable it reads at
/// start. An item beginning with `key` already decides (set by the user or the first execution).
struct HugePageRequest {
  const char* variable;
  const char* item;
  const char* key;
  char separator;
};
inline constexpr HugePageRequest kJemallocHugePages{"MALLOC_CONF", "thp:always", "thp:", ','};
inline constexpr HugePageRequest kGlibcHugePages{"GLIBC_TUNABLES", "glibc.malloc.hugetlb=1",
                                                 "glibc.malloc.hugetlb", ':'};

/// The request of the allocator this executable runs on (jemalloc where it is linked in).
const HugePageRequest& allocator_huge_pages();

/// The value of request.variable to re-execute with, or nothing: when `current` (the variable,
/// null if unset) already has an item beginning with request.key (the re-execution never loops),
/// `opt_out` (GPP_HUGE_PAGES) is "0", the machine has fewer than 8 cores, or `thp_mode`
/// (/sys/kernel/mm/transparent_hugepage/enabled) is empty or "[never]".
std::optional<std::string> huge_page_setting(const HugePageRequest& request, const char* current,
                                             const char* opt_out, unsigned cores,
                                             const std::string& thp_mode);

/// Re-executes this program with the allocator's huge-page setting for this process and
/// machine, on Linux; returns only when it did not re-execute.
void reexecute_with_huge_pages(char** argv);

}  // namespace gpp::pipeline
