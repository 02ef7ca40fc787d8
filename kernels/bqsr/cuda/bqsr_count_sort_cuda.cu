// CUDA kSortReduce counting: up to three keys per counted base (table | read group | quality |
// covariate key | error bit) at fixed slots, unused slots all ones; CUB radix sort over the bits
// in use, run-length encoding; the runs are added to the counts on the host.
#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <limits>
#include <vector>

#include "kernels/bqsr/cuda/bqsr_count_cuda.cuh"

namespace gpp::kernels::bqsr::detail {

namespace {

struct KeyLayout {
  int key_bits = 0;
  int rg_bits = 0;
  int total_bits() const { return 1 + key_bits + 7 + rg_bits + 2; }
};

template <typename Key>
struct KeySink {
  KeyLayout layout;
  Key* keys;
  __device__ Key pack(unsigned table, int rg, int q, int key, bool mismatch) const {
    Key k = table;
    k = (k << layout.rg_bits) | static_cast<Key>(rg);
    k = (k << 7) | static_cast<Key>(q);
    k = (k << layout.key_bits) | static_cast<Key>(key);
    return (k << 1) | static_cast<Key>(mismatch);
  }
  __device__ void add(int rg, int q, int context, int cycle, bool mismatch,
                      std::uint64_t position) {
    keys[3 * position] = pack(0, rg, q, 0, mismatch);
    if (context >= 0) keys[3 * position + 1] = pack(1, rg, q, context, mismatch);
    keys[3 * position + 2] = pack(2, rg, q, cycle, mismatch);
  }
};

template <typename Key>
__global__ void count_keys_kernel(CountingShape shape, DeviceChunk chunk, DeviceReference reference,
                                  KeySink<Key> sink) {
  count_reads(shape, chunk, reference, sink);
}

int bits_for(long long values) {  // bits to hold 0 .. values - 1
  return values <= 1 ? 1 : std::bit_width(static_cast<unsigned long long>(values - 1));
}

template <typename Key>
void count_sorted(const CountingShape& shape, const KeyLayout& layout, const DeviceChunk& chunk,
                  const DeviceReference& reference, std::size_t bases, cudaStream_t stream,
                  CovariateCounts& counts) {
  using cuda::check;
  const std::size_t n = 3 * bases;
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("bqsr: sort-reduce counting takes fewer than 2^31 / 3 bases per chunk");
  // Distinct keys: at most an error and a non-error key per bin, and the unused-slot key.
  const std::size_t rq = static_cast<std::size_t>(shape.read_groups) * kQualCount;
  const std::size_t max_runs = std::min(
      n, 2 * rq * (1 + static_cast<std::size_t>(shape.context_slots + shape.cycle_slots)) + 1);
  cuda::DeviceBuffer<Key> keys(n), sorted(n), unique(max_runs);
  cuda::DeviceBuffer<int> run_lengths(max_runs), run_count(1);
  check(cudaMemsetAsync(keys.data(), 0xFF, keys.bytes(), stream), "clear sort keys");
  const int blocks = cuda::resident_blocks(count_keys_kernel<Key>, kWarpKernelThreads);
  count_keys_kernel<Key><<<blocks, kWarpKernelThreads, 0, stream>>>(
      shape, chunk, reference, KeySink<Key>{layout, keys.data()});
  cuda::check_launch("count_keys_kernel");
  const int end_bit = layout.total_bits();
  const int items = static_cast<int>(n);
  std::size_t sort_bytes = 0, encode_bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys.data(), sorted.data(), items, 0,
                                       end_bit, stream),
        "size CUB radix sort");
  check(cub::DeviceRunLengthEncode::Encode(nullptr, encode_bytes, sorted.data(), unique.data(),
                                           run_lengths.data(), run_count.data(), items, stream),
        "size CUB run-length encode");
  cuda::DeviceBuffer<unsigned char> temp(std::max(sort_bytes, encode_bytes));
  check(cub::DeviceRadixSort::SortKeys(temp.data(), sort_bytes, keys.data(), sorted.data(), items,
                                       0, end_bit, stream),
        "CUB radix sort");
  check(cub::DeviceRunLengthEncode::Encode(temp.data(), encode_bytes, sorted.data(), unique.data(),
                                           run_lengths.data(), run_count.data(), items, stream),
        "CUB run-length encode");
  int runs = 0;
  check(cudaMemcpyAsync(&runs, run_count.data(), sizeof(int), cudaMemcpyDeviceToHost, stream),
        "copy run count from the GPU");
  check(cudaStreamSynchronize(stream), "sort covariate keys on the GPU");
  std::vector<Key> run_keys(static_cast<std::size_t>(runs));
  std::vector<int> lengths(static_cast<std::size_t>(runs));
  check(cudaMemcpy(run_keys.data(), unique.data(), run_keys.size() * sizeof(Key),
                   cudaMemcpyDeviceToHost),
        "copy run keys from the GPU");
  check(cudaMemcpy(lengths.data(), run_lengths.data(), lengths.size() * sizeof(int),
                   cudaMemcpyDeviceToHost),
        "copy run lengths from the GPU");
  const Key key_mask = (Key{1} << layout.key_bits) - 1;
  const Key rg_mask = (Key{1} << layout.rg_bits) - 1;
  for (std::size_t i = 0; i < run_keys.size(); ++i) {
    Key k = run_keys[i];
    const bool error = k & 1;
    const long long key = static_cast<long long>((k >>= 1) & key_mask);
    const long long q = static_cast<long long>((k >>= layout.key_bits) & 127);
    const long long rg = static_cast<long long>((k >>= 7) & rg_mask);
    const unsigned table = static_cast<unsigned>(k >> layout.rg_bits);
    const long long rq = rg * kQualCount + q;
    const auto c = static_cast<std::uint64_t>(lengths[i]);
    switch (table) {
      case 0:
        counts.quality_observations[rq] += c;
        if (error) counts.quality_errors[rq] += c;
        break;
      case 1:
        counts.context_observations[rq * shape.context_slots + key] += c;
        if (error) counts.context_errors[rq * shape.context_slots + key] += c;
        break;
      case 2:
        counts.cycle_observations[rq * shape.cycle_slots + key] += c;
        if (error) counts.cycle_errors[rq * shape.cycle_slots + key] += c;
        break;
      default:  // unused slots
        break;
    }
  }
}

}  // namespace

void count_sorted_chunk(const CountingShape& shape, const DeviceChunk& chunk,
                        const DeviceReference& reference, std::size_t bases, cudaStream_t stream,
                        CovariateCounts& counts) {
  KeyLayout layout;
  layout.key_bits = bits_for(std::max(shape.context_slots, shape.cycle_slots));
  layout.rg_bits = bits_for(shape.read_groups);
  if (layout.total_bits() > 64)
    throw Error("bqsr: too many read groups or covariate keys for 64-bit sort keys");
  if (layout.total_bits() <= 32) {
    count_sorted<std::uint32_t>(shape, layout, chunk, reference, bases, stream, counts);
  } else {
    count_sorted<std::uint64_t>(shape, layout, chunk, reference, bases, stream, counts);
  }
}

}  // namespace gpp::kernels::bqsr::detail
