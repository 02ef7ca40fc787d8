// Stable parallel selection (stream compaction) on the oneTBB threads: the indices in [0, n)
// that satisfy a predicate, each handed its rank among the selected ones, so that a caller can
// fill compact arrays in the original order without a serial pass over n.
#pragma once

#include <oneapi/tbb/parallel_for.h>

#include <cstddef>
#include <vector>

namespace gpp {

/**
 * @brief Calls `emit(k, rank)` for every k in [0, n) with `keep(k)`, where rank is the number of
 * kept indices before k; `sized(count)` is called once, with the total, before any emit.
 * `keep` is evaluated twice per index (once to count, once to emit). Returns the total.
 */
template <typename Keep, typename Sized, typename Emit>
std::size_t parallel_select(std::size_t n, Keep keep, Sized sized, Emit emit) {
  constexpr std::size_t kBlock = 1 << 14;
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<std::size_t> first(blocks + 1, 0);
  oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    std::size_t count = 0;
    for (std::size_t k = b * kBlock, end = std::min(n, k + kBlock); k < end; ++k)
      count += keep(k) ? 1 : 0;
    first[b + 1] = count;
  });
  for (std::size_t b = 0; b < blocks; ++b) first[b + 1] += first[b];
  sized(first[blocks]);
  oneapi::tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    std::size_t rank = first[b];
    for (std::size_t k = b * kBlock, end = std::min(n, k + kBlock); k < end; ++k) {
      if (keep(k)) emit(k, rank++);
    }
  });
  return first[blocks];
}

}  // namespace gpp
