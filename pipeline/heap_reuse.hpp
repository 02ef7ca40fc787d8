// Freed memory kept for reuse instead of returned to the kernel.
//
// A command allocates and frees arrays of hundreds of megabytes (keys, permutations, output
// buffers). glibc maps each large block on its own and unmaps it when freed, so the next one
// faults in fresh, zeroed pages again: with 4 KiB pages that was a third of a markdup's page
// faults (2.1 M reads, 2 cores: 587 K faults for a 1.47 GB peak; served from a heap that is never
// trimmed, 369 K, and 0.35 s less system time). With transparent huge pages (huge_pages.hpp) a
// fault maps 2 MiB and separate mappings align to huge pages better than one heap: there reuse
// brought more faults (643 K vs 555 K on 20 M reads, 16 cores), 1.2 GB more memory, no speed.
#pragma once

namespace gpp::pipeline {

/// Whether to keep freed memory, for a process whose GLIBC_TUNABLES is `tunables` (null if
/// unset): not when it gives glibc's heap huge pages (glibc.malloc.hugetlb other than 0).
bool heap_reuse_wanted(const char* tunables);

/// Makes glibc serve every allocation from its heaps and keep freed memory, when
/// heap_reuse_wanted for this process. Resident memory then stays at its peak until the process
/// exits. jemalloc (where linked in) keeps freed pages by itself: a no-op there, as without glibc.
void reuse_freed_memory();

/// How long jemalloc keeps freed pages under return_freed_memory. At 0 every batch a phase
/// allocates again (read, merged, encoded) faulted in fresh zeroed pages: `run --max-memory 8G`
/// on 50 M reads (16 cores) took 6.1 M page faults and 62 s of system time; kept 200 ms, 1.1 M
/// and 43 s, 48.4 s instead of 51.3 s, the peak 7.68 GiB instead of 7.76 GiB.
inline constexpr long kBoundedDecayMilliseconds = 200;

/// The opposite, for a command held to --max-memory that works in runs: what a phase frees
/// leaves the process instead of staying resident. glibc: large blocks mapped on their own and
/// unmapped when freed, the top of the heap trimmed (else holes no later block fits stay);
/// jemalloc: freed pages returned after kBoundedDecayMilliseconds instead of after seconds
/// unused.
void return_freed_memory();

}  // namespace gpp::pipeline
