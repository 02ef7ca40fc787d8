// Prefetching for gathers: a loop that reads rows in an order other than the columns' asks for
// the fields of rows a few places ahead, so that their cache misses overlap instead of following
// one another.
#pragma once

namespace gpp {

/// Asks for the cache lines holding each pointed-to value (a hint: no load, no fault).
template <typename... T>
inline void prefetch(const T*... fields) {
  (__builtin_prefetch(fields), ...);
}

}  // namespace gpp
