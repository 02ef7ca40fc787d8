// Transparent huge pages for the process's heap.
//
// A stage fills columns of tens of millions of records, gigabytes touched for the first time by
// every thread at once: with 4 KiB pages that is millions of page faults, serialised in the
// kernel (on a 16-core host, 5 M faults took a fifth of a 20 M-read markdup). glibc backs its
// heap with transparent huge pages when the tunable glibc.malloc.hugetlb=1 is set, but reads
// tunables only when a process starts; so the executable re-executes itself once with it set.
#pragma once

#include <optional>
#include <string>

namespace gpp::pipeline {

/// The GLIBC_TUNABLES value to re-execute with, or nothing: when `current` (the variable, null
/// if unset) already names glibc.malloc.hugetlb (set by the user, or by the first execution: the
/// re-execution never loops), `opt_out` (GPP_HUGE_PAGES) is "0", the machine has fewer than 8
/// cores, or `thp_mode` (/sys/kernel/mm/transparent_hugepage/enabled) is empty or "[never]".
std::optional<std::string> huge_page_tunables(const char* current, const char* opt_out,
                                              unsigned cores, const std::string& thp_mode);

/// Re-executes this program with the tunables of huge_page_tunables for this process and
/// machine, on glibc and Linux; returns only when it did not re-execute.
void reexecute_with_huge_pages(char** argv);

}  // namespace gpp::pipeline
