// CUDA backend of sort-by-key: CUB's stable LSD radix sort of (key, index) pairs, restricted to
// the bits in which the keys differ (fewer passes, same order).
#include <cub/device/device_radix_sort.cuh>

#include <utility>

#include "kernels/cuda_check.cuh"
#include "kernels/sort_by_key.hpp"

namespace gpp::kernels::detail {

namespace {
__global__ void fill_identity(std::uint32_t* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<std::uint32_t>(i);
}
__global__ void gather_keys(const std::uint64_t* word, const std::uint32_t* order, std::uint64_t* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = word[order[i]];
}

constexpr int kThreads = 256;
unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }
}  // namespace

std::vector<std::uint32_t> stable_sort_permutation_cuda(std::span<const std::span<const std::uint64_t>> words) {
  using cuda::check;
  const std::size_t n = words[0].size();
  std::vector<std::uint32_t> order(n);
  if (n == 0) return order;
  cuda::DeviceBuffer<std::uint64_t> word(n), keys_in(n), keys_out(n);
  cuda::DeviceBuffer<std::uint32_t> order_in(n), order_out(n);
  fill_identity<<<blocks_for(n), kThreads>>>(order_in.data(), n);
  cuda::check_launch("fill_identity");
  cuda::DeviceBuffer<unsigned char> temp;
  std::size_t temp_capacity = 0;
  for (std::size_t w = words.size(); w-- > 0;) {
    const KeyBitRange bits = differing_bits(words[w]);
    if (bits.end_bit == 0) continue;  // one value throughout: the pass would keep the order
    check(cudaMemcpy(word.data(), words[w].data(), n * sizeof(std::uint64_t), cudaMemcpyHostToDevice),
          "copy sort keys to the GPU");
    gather_keys<<<blocks_for(n), kThreads>>>(word.data(), order_in.data(), keys_in.data(), n);
    cuda::check_launch("gather_keys");
    std::size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(), order_in.data(),
                                          order_out.data(), n, bits.begin_bit, bits.end_bit),
          "size CUB radix sort");
    if (temp_bytes > temp_capacity) {
      temp = cuda::DeviceBuffer<unsigned char>(temp_bytes);
      temp_capacity = temp_bytes;
    }
    check(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), order_in.data(),
                                          order_out.data(), n, bits.begin_bit, bits.end_bit),
          "CUB radix sort");
    std::swap(order_in, order_out);
  }
  check(cudaMemcpy(order.data(), order_in.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
        "copy sort permutation from the GPU");
  return order;
}

std::vector<std::uint32_t> stable_sort_permutation_cuda(std::span<const std::uint64_t> keys) {
  using cuda::check;
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> order(n);
  if (n == 0) return order;
  const KeyBitRange bits = differing_bits(keys);
  if (bits.end_bit == 0) {  // all keys equal: the stable order is the input order
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    return order;
  }

  cuda::DeviceBuffer<std::uint64_t> keys_in(n), keys_out(n);
  cuda::DeviceBuffer<std::uint32_t> values_in(n), values_out(n);
  check(cudaMemcpy(keys_in.data(), keys.data(), n * sizeof(std::uint64_t), cudaMemcpyHostToDevice),
        "copy sort keys to the GPU");
  fill_identity<<<blocks_for(n), kThreads>>>(values_in.data(), n);
  cuda::check_launch("fill_identity");

  std::size_t temp_bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                        values_in.data(), values_out.data(), n, bits.begin_bit,
                                        bits.end_bit),
        "size CUB radix sort");
  cuda::DeviceBuffer<unsigned char> temp(temp_bytes);
  check(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                                        values_in.data(), values_out.data(), n, bits.begin_bit,
                                        bits.end_bit),
        "CUB radix sort");
  check(cudaMemcpy(order.data(), values_out.data(), n * sizeof(std::uint32_t),
                   cudaMemcpyDeviceToHost),
        "copy sort permutation from the GPU");
  return order;
}

}  // namespace gpp::kernels::detail
