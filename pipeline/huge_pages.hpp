// Transparent huge pages for the process's heap.
//
// A stage fills columns of tens of millions of records, gigabytes touched for the first time by
// every thread at once: with 4 KiB pages that is millions of page faults, serialised in the
// kernel (on a 16-core host, 5 M faults took a fifth of a 20 M-read markdup). glibc backs its
// heap with transparent huge pages when the tunable glibc.malloc.hugetlb=1 is set, but reads
// tunables only when a process starts; so the executable re-executes itself once with it set.
#pragma once

namespace gpp::pipeline {

/// Re-executes this program with glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, unless the
/// variable already names that tunable, GPP_HUGE_PAGES=0 is set, the machine has fewer than 8
/// cores, the system has transparent huge pages off, or this is not glibc on Linux. Returns only when it did not re-execute.
void reexecute_with_huge_pages(char** argv);

}  // namespace gpp::pipeline
