// bench_sort_keys: stable sort-by-key of N coordinate-like 64-bit keys, CPU (oneTBB) vs GPU
// (CUB, host<->device transfers included), median of REPEATS runs after one warm-up.
//
//   bench_sort_keys [N=100000000] [REPEATS=3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/device/device.hpp"
#include "kernels/sort/sort_by_key.hpp"

namespace {

double median_seconds(const std::vector<std::uint64_t>& keys, gpp::kernels::Backend backend,
                      int repeats, std::vector<std::uint32_t>& order) {
  order = gpp::kernels::stable_sort_permutation(keys, backend);  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    order = gpp::kernels::stable_sort_permutation(keys, backend);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000'000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  // Keys shaped like coordinate keys: 25 contigs, positions up to 250 M, strand bit.
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = (rng() % 25) << 33 | (rng() % 250'000'000) << 1 | (rng() & 1);

  std::vector<std::uint32_t> cpu_order, gpu_order;
  const double cpu = median_seconds(keys, gpp::kernels::Backend::kCpu, repeats, cpu_order);
  std::printf("| backend | keys | median s | Mkeys/s |\n|---|---|---|---|\n");
  std::printf("| cpu (oneTBB, all cores) | %zu | %.3f | %.1f |\n", n, cpu, n / cpu / 1e6);
  if (!gpp::kernels::detect_gpus().empty()) {
    const double gpu = median_seconds(keys, gpp::kernels::Backend::kGpu, repeats, gpu_order);
    std::printf("| gpu (CUB radix, transfers included) %s | %zu | %.3f | %.1f |\n",
                gpp::kernels::detect_gpus()[0].name.c_str(), n, gpu, n / gpu / 1e6);
    std::printf("\nGPU order %s CPU order; speed-up %.1fx\n",
                gpu_order == cpu_order ? "equals" : "DIFFERS FROM", cpu / gpu);
    return gpu_order == cpu_order ? 0 : 1;
  }
  return 0;
}
