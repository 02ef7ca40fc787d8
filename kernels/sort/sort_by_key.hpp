// sort-by-key: the stable permutation that orders 64-bit keys, on the CPU or the GPU.
//
// Stages encode their sort orders (coordinate, duplicate-marking keys, BQSR covariates) as packed
// unsigned integer keys and sort a permutation, never the records themselves; records are gathered
// once at the end. Both backends return the identical permutation.
//
// @code
//   keys  = {30, 10, 30, 20}
//   order = stable_sort_permutation(keys, Backend::kCpu)   // {1, 3, 0, 2}
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/device/device.hpp"

namespace gpp::kernels {

/**
 * @brief Stable ascending sort permutation of `keys`.
 *
 * @param keys    the keys, one per item; at most 2^32 - 1 items
 * @param backend kCpu (oneTBB) or kGpu (CUB radix sort)
 * @return order with keys[order[i]] <= keys[order[i+1]]; equal keys keep their input order
 * @throws gpp::Error for kGpu in a build without CUDA, on CUDA failure, or for too many keys
 */
std::vector<std::uint32_t> stable_sort_permutation(std::span<const std::uint64_t> keys,
                                                   Backend backend);

/**
 * @brief Stable ascending sort permutation of items keyed by several 64-bit words compared in
 * order (words[0] most significant): a key wider than 64 bits.
 *
 * Sorted least significant word first, each pass stable; on the GPU every pass stays on the
 * device (the words go up once, the permutation comes back once).
 * @param words equally long key columns, most significant first
 */
std::vector<std::uint32_t> stable_sort_permutation_by_words(
    std::span<const std::span<const std::uint64_t>> words, Backend backend);

namespace detail {
std::vector<std::uint32_t> stable_sort_permutation_cpu(std::span<const std::uint64_t> keys);
std::vector<std::uint32_t> stable_sort_permutation_cuda(std::span<const std::uint64_t> keys);
std::vector<std::uint32_t> stable_sort_permutation_cuda(
    std::span<const std::span<const std::uint64_t>> words);

/// Bits [begin, end) in which the keys differ: bits outside are equal in every key, so a radix
/// sort may skip them without changing the order.
struct KeyBitRange {
  int begin_bit = 0;
  int end_bit = 0;
};
KeyBitRange differing_bits(std::span<const std::uint64_t> keys);
}  // namespace detail

}  // namespace gpp::kernels
