#include "kernels/sort/sort_by_key.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <bit>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace gpp::kernels {

namespace {

// Device bytes a GPU sort of `items` keys holds: keys and permutation in and out, a later word,
// and CUB's temporary storage (about the size of the pairs).
std::size_t gpu_sort_bytes(std::size_t items, std::size_t words) {
  return items * (2 * sizeof(std::uint64_t) + 2 * sizeof(std::uint32_t) +
                  (words > 1 ? sizeof(std::uint64_t) : 0) + 12);
}

// The permutation holds 32-bit indexes; the GPU backend exists only in CUDA builds. `gpu_sort`
// runs when the GPU is asked for and the sort fits in the device memory available (else the CPU
// sorts: the same order), `cpu_sort` otherwise.
template <typename GpuSort, typename CpuSort>
std::vector<std::uint32_t> dispatch(std::size_t items, std::size_t words, Backend backend,
                                    [[maybe_unused]] GpuSort gpu_sort, CpuSort cpu_sort) {
  if (items >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error("sort: " + std::to_string(items) +
                " items exceed the 2^32 - 1 a single sort handles; sort in chunks");
  }
  if (backend == Backend::kGpu) {
#ifdef GPP_WITH_CUDA
    // (Without a usable GPU the GPU sort itself reports it.)
    if (!detect_gpus().empty() && gpu_sort_bytes(items, words) > device_memory_available())
      return cpu_sort();
    return gpu_sort();
#else
    throw Error("sort: the GPU backend is not part of this build (built without CUDA)");
#endif
  }
  return cpu_sort();
}

}  // namespace

std::vector<std::uint32_t> stable_sort_permutation(std::span<const std::uint64_t> keys,
                                                   Backend backend) {
  return dispatch(
      keys.size(), 1, backend, [&] { return detail::stable_sort_permutation_cuda(keys); },
      [&] { return detail::stable_sort_permutation_cpu(keys); });
}

std::vector<std::uint32_t> stable_sort_permutation_by_words(
    std::span<const std::span<const std::uint64_t>> words, Backend backend) {
  if (words.empty()) throw Error("sort: no key words");
  const std::size_t n = words[0].size();
  for (const auto& word : words) {
    if (word.size() != n) throw Error("sort: key words of different lengths");
  }
  if (words.size() == 1) return stable_sort_permutation(words[0], backend);
  return dispatch(
      n, words.size(), backend, [&] { return detail::stable_sort_permutation_cuda(words); },
      [&] {
        // Least significant word first; each later pass sorts the next word, in the order so far.
        std::vector<std::uint32_t> order = detail::stable_sort_permutation_cpu(words.back());
        std::vector<std::uint64_t> permuted(n);
        std::vector<std::uint32_t> composed(n);
        for (std::size_t w = words.size() - 1; w-- > 0;) {
          const std::span<const std::uint64_t> word = words[w];
          oneapi::tbb::parallel_for(std::size_t{0}, n,
                                    [&](std::size_t k) { permuted[k] = word[order[k]]; });
          const std::vector<std::uint32_t> next = detail::stable_sort_permutation_cpu(permuted);
          oneapi::tbb::parallel_for(std::size_t{0}, n,
                                    [&](std::size_t k) { composed[k] = order[next[k]]; });
          order.swap(composed);
        }
        return order;
      });
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
