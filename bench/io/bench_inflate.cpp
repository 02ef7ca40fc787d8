// bench_inflate: BGZF block decompression throughput on the blocks of one BAM file, same run:
// libdeflate on all CPU threads (what reading uses on the CPU) and our block decoder on the GPU
// (kernels/bgzf_inflate: transfers and host copies included; kernels alone), both with every
// block's CRC32 checked.
//
//   bench_inflate IN.bam [THREADS=all]
//
// The output goes to memory touched before (the decompression alone) and, once each, to fresh
// memory (as the reader's record slabs are). Prints a Markdown table: seconds (median of 3) and
// GB/s of inflated bytes.
#include <libdeflate.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kernels/bgzf/bgzf_inflate.hpp"
#include "kernels/device/device.hpp"

namespace {

struct Blocks {
  std::vector<std::uint8_t> file;
  std::vector<std::uint64_t> in_offsets, out_offsets;
  std::vector<std::uint32_t> in_sizes, out_sizes, crcs;
  std::uint64_t out_bytes = 0;
};

Blocks read_blocks(const char* path) {
  Blocks b;
  std::ifstream in(path, std::ios::binary);
  b.file.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const auto* f = b.file.data();
  for (std::size_t at = 0; at + 18 <= b.file.size();) {
    const std::size_t xlen = f[at + 10] | f[at + 11] << 8;
    const std::size_t bsize = (f[at + 16] | f[at + 17] << 8) + 1u;
    const auto load32 = [](const std::uint8_t* p) {
      return p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24;
    };
    b.in_offsets.push_back(at + 12 + xlen);
    b.in_sizes.push_back(static_cast<std::uint32_t>(bsize - 12 - xlen - 8));
    b.crcs.push_back(load32(f + at + bsize - 8));
    b.out_sizes.push_back(load32(f + at + bsize - 4));
    b.out_offsets.push_back(b.out_bytes);
    b.out_bytes += b.out_sizes.back();
    at += bsize;
  }
  return b;
}

double seconds(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median_seconds(const std::function<void()>& run) {
  std::vector<double> t;
  for (int k = 0; k < 3; ++k) t.push_back(seconds(run));
  std::sort(t.begin(), t.end());
  return t[1];
}

// Fresh pages, as a new record slab gets them (huge pages where the kernel gives them).
std::uint8_t* fresh(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::exit(1);
  madvise(p, bytes, MADV_HUGEPAGE);  // as gpu-pipeline's heap on hosts of 8 cores or more
  return static_cast<std::uint8_t*>(p);
}

void libdeflate_all(const Blocks& b, std::uint8_t* out) {
  struct D {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    ~D() { libdeflate_free_decompressor(d); }
  };
  oneapi::tbb::enumerable_thread_specific<D> ds;
  oneapi::tbb::parallel_for(std::size_t{0}, b.in_sizes.size(), [&](std::size_t i) {
    std::size_t n = 0;
    if (libdeflate_deflate_decompress(ds.local().d, b.file.data() + b.in_offsets[i], b.in_sizes[i],
                                      out + b.out_offsets[i], b.out_sizes[i],
                                      &n) != LIBDEFLATE_SUCCESS ||
        libdeflate_crc32(0, out + b.out_offsets[i], n) != b.crcs[i]) {
      std::fprintf(stderr, "bench_inflate: libdeflate failed on block %zu\n", i);
      std::exit(1);
    }
  });
}

void gpu_all(gpp::kernels::BlockInflater& inflater, const Blocks& b, std::uint8_t* out) {
  const std::size_t bad = inflater.inflate({.data = b.file.data(),
                                            .in_offsets = b.in_offsets.data(),
                                            .in_sizes = b.in_sizes.data(),
                                            .count = b.in_sizes.size(),
                                            .out = out,
                                            .out_offsets = b.out_offsets.data(),
                                            .out_sizes = b.out_sizes.data()},
                                           [&](std::size_t i) {
                                             return libdeflate_crc32(0, out + b.out_offsets[i],
                                                                     b.out_sizes[i]) == b.crcs[i];
                                           });
  if (bad != b.in_sizes.size()) {
    std::fprintf(stderr, "bench_inflate: the GPU failed on block %zu\n", bad);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_inflate IN.bam [THREADS=all]\n");
    return 1;
  }
  const int threads =
      argc > 2 ? std::atoi(argv[2]) : static_cast<int>(std::thread::hardware_concurrency());
  oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, threads);
  const Blocks b = read_blocks(argv[1]);
  const double gb = static_cast<double>(b.out_bytes) / 1e9;
  std::printf("%zu blocks, %.3f GB compressed, %.3f GB inflated, %d threads\n\n", b.in_sizes.size(),
              static_cast<double>(b.file.size()) / 1e9, gb, threads);
  std::printf("| decoder | output memory | s | GB/s |\n|---|---|---|---|\n");
  const auto row = [&](const char* name, const char* memory, double s) {
    std::printf("| %s | %s | %.3f | %.2f |\n", name, memory, s, gb / s);
    std::fflush(stdout);
  };
  std::uint8_t* touched = fresh(b.out_bytes);
  std::memset(touched, 0, b.out_bytes);
  row("libdeflate", "fresh", seconds([&] { libdeflate_all(b, fresh(b.out_bytes)); }));
  row("libdeflate", "touched", median_seconds([&] { libdeflate_all(b, touched); }));
  if (gpp::kernels::detect_gpus().empty()) return 0;
  std::vector<std::uint8_t> expected(touched, touched + b.out_bytes);
  gpp::kernels::initialize_device(gpp::kernels::Backend::kGpu);
  gpp::kernels::BlockInflater inflater(gpp::kernels::Backend::kGpu);
  const double setup = seconds([&] { inflater.wait_ready(); });
  std::printf("(GPU buffers made in %.3f s)\n", setup);
  std::uint8_t* first = fresh(b.out_bytes);
  row("GPU", "fresh", seconds([&] { gpu_all(inflater, b, first); }));
  if (!std::equal(expected.begin(), expected.end(), first)) {
    std::fprintf(stderr, "bench_inflate: the GPU bytes differ from libdeflate's\n");
    return 1;
  }
  const double kernels_before = inflater.kernel_seconds();
  row("GPU", "touched", median_seconds([&] { gpu_all(inflater, b, touched); }));
  std::printf("| GPU kernels alone | | %.3f | %.2f |\n",
              (inflater.kernel_seconds() - kernels_before) / 3,
              gb / ((inflater.kernel_seconds() - kernels_before) / 3));
  return 0;
}
