#include "kernels/sort_by_key.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <bit>
#include <limits>
#include <string>

#include "kernels/error.hpp"

namespace gpp::kernels {

std::vector<std::uint32_t> stable_sort_permutation(std::span<const std::uint64_t> keys,
                                                   Backend backend) {
  if (keys.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error("sort: " + std::to_string(keys.size()) +
                " items exceed the 2^32 - 1 a single sort handles; sort in chunks");
  }
  if (backend == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    return detail::stable_sort_permutation_cuda(keys);
#else
    throw Error("sort: the GPU backend is not part of this build (built without CUDA)");
#endif
  }
  return detail::stable_sort_permutation_cpu(keys);
}

namespace detail {

KeyBitRange differing_bits(std::span<const std::uint64_t> keys) {
  if (keys.empty()) return {};
  const std::uint64_t first = keys[0];
  const std::uint64_t diff = oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, keys.size(), 1 << 16), std::uint64_t{0},
      [&](const oneapi::tbb::blocked_range<std::size_t>& r, std::uint64_t acc) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) acc |= keys[i] ^ first;
        return acc;
      },
      [](std::uint64_t a, std::uint64_t b) { return a | b; });
  if (diff == 0) return {};
  return {std::countr_zero(diff), 64 - std::countl_zero(diff)};
}

}  // namespace detail
}  // namespace gpp::kernels
