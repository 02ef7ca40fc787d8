// CPU backend of sort-by-key: oneTBB parallel sort of (key, index) pairs. Breaking ties on the
// index makes the unstable parallel sort stable, so the result equals the GPU radix sort's.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>

#include "kernels/sort_by_key.hpp"

namespace gpp::kernels::detail {

namespace {
struct KeyIndex {
  std::uint64_t key;
  std::uint32_t index;
  bool operator<(const KeyIndex& other) const {
    return key != other.key ? key < other.key : index < other.index;
  }
};
}  // namespace

std::vector<std::uint32_t> stable_sort_permutation_cpu(std::span<const std::uint64_t> keys) {
  const std::size_t n = keys.size();
  std::vector<KeyIndex> items(n);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 1 << 14),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                items[i] = {keys[i], static_cast<std::uint32_t>(i)};
                              }
                            });
  oneapi::tbb::parallel_sort(items.begin(), items.end());
  std::vector<std::uint32_t> order(n);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 1 << 14),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                order[i] = items[i].index;
                              }
                            });
  return order;
}

}  // namespace gpp::kernels::detail
