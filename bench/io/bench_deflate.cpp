// bench_deflate: BGZF block compression throughput on the same blocks, same run:
// libdeflate at HTSlib's level 1 and default level on all CPU threads, our block encoder
// (kernels/bgzf_deflate) on the CPU threads and on the GPU (transfers included; kernels alone).
//
//   bench_deflate IN.bam [GIGABYTES=2] [THREADS=all] [gpu-only]
//
// gpu-only skips the CPU rows (tens of seconds), for comparing GPU encoder builds.
// The uncompressed stream of IN.bam is repeated to GIGABYTES and cut into 0xff00-byte blocks,
// as the BAM writer cuts them. Prints a Markdown table: seconds (median of 3), GB/s of input,
// compressed size as a percentage of the input.
#include <htslib/bgzf.h>
#include <libdeflate.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kernels/bgzf/bgzf_deflate.hpp"
#include "kernels/device/device.hpp"

namespace {

constexpr std::size_t kBlock = 0xff00;
constexpr std::size_t kStride = 0x10000;
constexpr std::size_t kCapacity = 0x10000 - 26;

std::vector<std::uint8_t> uncompressed_stream(const char* path) {
  BGZF* in = bgzf_open(path, "r");
  if (in == nullptr) {
    std::fprintf(stderr, "bench_deflate: cannot open %s\n", path);
    std::exit(1);
  }
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> buffer(1 << 20);
  for (ssize_t n; (n = bgzf_read(in, buffer.data(), buffer.size())) > 0;)
    bytes.insert(bytes.end(), buffer.begin(), buffer.begin() + n);
  bgzf_close(in);
  return bytes;
}

double median_seconds(const std::function<void()>& run) {
  std::vector<double> times;
  for (int k = 0; k < 3; ++k) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[1];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_deflate IN.bam [GIGABYTES=2] [THREADS=all] [gpu-only]\n");
    return 1;
  }
  const double gigabytes = argc > 2 ? std::atof(argv[2]) : 2.0;
  const int threads =
      argc > 3 ? std::atoi(argv[3]) : static_cast<int>(std::thread::hardware_concurrency());
  oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, threads);
  const std::vector<std::uint8_t> stream = uncompressed_stream(argv[1]);
  const std::size_t count = static_cast<std::size_t>(gigabytes * 1e9) / kBlock;
  std::vector<std::uint8_t> data(count * kStride);
  std::vector<std::uint32_t> sizes(count, static_cast<std::uint32_t>(kBlock));
  oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t b) {
    for (std::size_t k = 0; k < kBlock; ++k)
      data[b * kStride + k] = stream[(b * kBlock + k) % stream.size()];
  });
  const double input = static_cast<double>(count * kBlock);
  std::vector<std::uint8_t> out(count * kStride);
  std::vector<std::uint32_t> out_sizes(count);
  auto total_out = [&] {
    double total = 0;
    for (const std::uint32_t s : out_sizes) total += s;
    return total;
  };
  std::printf("input: %s repeated to %.2f GB, %zu blocks, %d CPU threads\n\n", argv[1], input / 1e9,
              count, threads);
  std::printf("| encoder | s | GB/s | size %% of input |\n|---|---|---|---|\n");
  auto row = [&](const char* name, double seconds) {
    std::printf("| %s | %.3f | %.2f | %.1f |\n", name, seconds, input / seconds / 1e9,
                100.0 * total_out() / input);
    std::fflush(stdout);
  };
  const bool gpu_only = argc > 4 && std::string(argv[4]) == "gpu-only";
  for (const auto& [name, level] :
       {std::pair<const char*, int>{"libdeflate, HTSlib level 1, CPU", 1},
        std::pair<const char*, int>{"libdeflate, HTSlib default level, CPU", 7}}) {
    if (gpu_only) break;
    struct Compressor {
      libdeflate_compressor* c;
      explicit Compressor(int l) : c(libdeflate_alloc_compressor(l)) {}
      ~Compressor() { libdeflate_free_compressor(c); }
    };
    oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Compressor>> compressors;
    const int lv = level;
    row(name, median_seconds([&] {
          oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t b) {
            auto& c = compressors.local();
            if (!c) c = std::make_unique<Compressor>(lv);
            out_sizes[b] = static_cast<std::uint32_t>(libdeflate_deflate_compress(
                c->c, data.data() + b * kStride, sizes[b], out.data() + b * kStride, kCapacity));
          });
        }));
  }
  const gpp::kernels::DeflateBatch batch{.data = data.data(),
                                         .stride = kStride,
                                         .sizes = sizes.data(),
                                         .count = count,
                                         .out = out.data(),
                                         .out_stride = kStride,
                                         .out_capacity = kCapacity,
                                         .out_sizes = out_sizes.data()};
  gpp::kernels::BlockDeflater cpu(gpp::kernels::Backend::kCpu);
  if (!gpu_only) row("block encoder, CPU", median_seconds([&] { cpu.deflate(batch); }));
  if (gpp::kernels::detect_gpus().empty()) return 0;
  gpp::kernels::BlockDeflater gpu(gpp::kernels::Backend::kGpu);
  gpu.deflate(batch);  // warm-up: buffers allocated once
  const double with_transfers = median_seconds([&] { gpu.deflate(batch); });
  row("block encoder, GPU, transfers included", with_transfers);
  const double kernels_before = gpu.kernel_seconds();
  gpu.deflate(batch);
  row("block encoder, GPU, kernels only (summed over batches in flight)",
      gpu.kernel_seconds() - kernels_before);
  // The data in page-locked memory, as the BAM writer stages it: no host copy before the transfer.
  const std::shared_ptr<std::uint8_t[]> pinned = gpu.allocate_host(data.size());
  std::copy(data.begin(), data.end(), pinned.get());
  gpp::kernels::DeflateBatch pinned_batch = batch;
  pinned_batch.data = pinned.get();
  row("block encoder, GPU, data in page-locked memory",
      median_seconds([&] { gpu.deflate(pinned_batch); }));
  return 0;
}
