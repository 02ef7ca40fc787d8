// CUDA backend of sort-by-key: CUB's stable LSD radix sort of (key, index) pairs, restricted to
// the bits in which the keys differ (fewer passes, same order).
#include <cub/device/device_radix_sort.cuh>
#include <utility>

#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/sort/sort_by_key.hpp"

namespace gpp::kernels::detail {

namespace {
__global__ void fill_identity(std::uint32_t* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<std::uint32_t>(i);
}
__global__ void gather_keys(const std::uint64_t* word, const std::uint32_t* order,
                            std::uint64_t* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = word[order[i]];
}

constexpr int kThreads = 256;
unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }
}  // namespace

std::vector<std::uint32_t> stable_sort_permutation_cuda(
    std::span<const std::span<const std::uint64_t>> words) {
  using cuda::check;
  const std::size_t n = words[0].size();
  std::vector<std::uint32_t> order(n);
  if (n == 0) return order;
  cuda::DeviceBuffer<std::uint64_t> keys_in(n), keys_out(n);
  cuda::DeviceBuffer<std::uint64_t>
      word;  // a later pass's word, before it is put in the order so far
  cuda::DeviceBuffer<std::uint32_t> order_in(n), order_out(n);
  fill_identity<<<blocks_for(n), kThreads>>>(order_in.data(), n);
  cuda::check_launch("fill_identity");
  cuda::DeviceBuffer<unsigned char> temp;
  bool sorted = false;  // order_in is no longer the identity
  for (std::size_t w = words.size(); w-- > 0;) {
    const KeyBitRange bits = differing_bits(words[w]);
    if (bits.end_bit == 0) continue;  // one value throughout: the pass would keep the order
    const std::size_t bytes = n * sizeof(std::uint64_t);
    if (!sorted) {
      check(cudaMemcpy(keys_in.data(), words[w].data(), bytes, cudaMemcpyHostToDevice),
            "copy sort keys to the GPU");
    } else {
      if (word.size() == 0) word = cuda::DeviceBuffer<std::uint64_t>(n);
      check(cudaMemcpy(word.data(), words[w].data(), bytes, cudaMemcpyHostToDevice),
            "copy sort keys to the GPU");
      gather_keys<<<blocks_for(n), kThreads>>>(word.data(), order_in.data(), keys_in.data(), n);
      cuda::check_launch("gather_keys");
    }
    std::size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                          order_in.data(), order_out.data(), n, bits.begin_bit,
                                          bits.end_bit),
          "size CUB radix sort");
    if (temp_bytes > temp.size()) temp = cuda::DeviceBuffer<unsigned char>(temp_bytes);
    check(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                                          order_in.data(), order_out.data(), n, bits.begin_bit,
                                          bits.end_bit),
          "CUB radix sort");
    std::swap(order_in, order_out);
    sorted = true;
  }
  check(
      cudaMemcpy(order.data(), order_in.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
      "copy sort permutation from the GPU");
  return order;
}

std::vector<std::uint32_t> stable_sort_permutation_cuda(std::span<const std::uint64_t> keys) {
  const std::span<const std::uint64_t> one_word[] = {keys};
  return stable_sort_permutation_cuda(std::span<const std::span<const std::uint64_t>>(one_word));
}

}  // namespace gpp::kernels::detail
