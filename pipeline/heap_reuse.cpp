#include "pipeline/heap_reuse.hpp"

#include <climits>
#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpp::pipeline {

void reuse_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);              // no block gets a mapping of its own
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // the top of the heap is not given back
#endif
}

}  // namespace gpp::pipeline
