// bench_pairhmm: PairHMM throughput, as Markdown tables on stdout.
//
//   (a) real lengths: a batch file repeated K times (default 1m.in x 100 = 42 G cells) on the GPU:
//       median TCUPS over repeats with and without host<->device transfers, and the pairs that
//       differ from the double reference by more than 1e-5;
//   (b) kernel peak: reads and haplotypes of equal length L (32 ... 8192, synthetic), TCUPS of the
//       kernels alone;
//   (c) the CPU backend's GCUPS on the batch file, all threads and one thread.
//
// Usage: bench_pairhmm [--mode all|a|b|c] [--input FILE] [--copies K] [--repeats R]
//                      [--lengths 32,64,...] [--peak-cells G] [--device gpu|cpu (modes a, b)]
//                      [--pageable (mode a: batch in ordinary memory, staged through pinned
//                      buffers)]
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/text/pairhmm_batch_file.hpp"
#include "kernels/device/device.hpp"
#include "kernels/pairhmm/detail/backends.hpp"
#include "kernels/pairhmm/pairhmm.hpp"
#include "pipeline/tuning_overrides.hpp"

using namespace gpp::kernels;

namespace {

struct Options {
  std::string mode = "all";
  std::string input = GPP_PAIRHMM_BENCH_INPUT;
  int copies = 100;
  int repeats = 5;
  std::vector<int> lengths = {32, 64, 128, 256, 512, 1024, 2048, 8192};
  double peak_cells = 3.2e10;       // cells per length of mode (b), single-tile lengths
  Backend backend = Backend::kGpu;  // modes (a), (b); --device cpu tries them out without a GPU
  bool page_locked = true;          // mode (a): batch in page-locked memory (--pageable: staged)
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

std::vector<double> reference(const PairHmmBatchView& batch) {
  const auto offsets = detail::pairhmm_result_offsets(batch.groups);
  std::vector<double> out(offsets.back());
  oneapi::tbb::parallel_for(std::size_t{0}, batch.groups.size(), [&](std::size_t g) {
    const auto& group = batch.groups[g];
    for (std::uint32_t k = 0; k < group.read_count * group.haplotype_count; ++k) {
      const std::uint32_t r = group.first_read + k / group.haplotype_count;
      const std::uint32_t h = group.first_haplotype + k % group.haplotype_count;
      const auto& rd = batch.reads;
      const std::uint32_t b = rd.offsets[r], n = rd.offsets[r + 1] - b;
      const std::uint32_t hb = batch.haplotypes.offsets[h],
                          hn = batch.haplotypes.offsets[h + 1] - hb;
      out[offsets[g] + k] = pairhmm_reference_log10(
          std::string_view(rd.bases.data() + b, n), rd.base_quals.subspan(b, n),
          rd.insertion_quals.subspan(b, n), rd.deletion_quals.subspan(b, n),
          rd.gap_continuation_quals.subspan(b, n),
          std::string_view(batch.haplotypes.bases.data() + hb, hn));
    }
  });
  return out;
}

void real_lengths(const Options& o) {
  PairHmmBatch one, batch(o.page_locked);
  gpp::io::read_pairhmm_batch_file(o.input, one);
  for (int k = 0; k < o.copies; ++k) batch.append(one.view());
  const auto expected = reference(one.view());
  PairHmm hmm(o.backend, PairHmmPrecision::kAuto, gpp::pipeline::pairhmm_tuning());
  hmm.compute(batch.view());  // warm-up: allocations, module loading
  std::vector<double> with, without;
  std::size_t wrong = 0;
  std::uint64_t fp64 = 0;
  for (int rep = 0; rep < o.repeats; ++rep) {
    const auto out = hmm.compute(batch.view());
    with.push_back(hmm.stats().seconds);
    without.push_back(hmm.stats().compute_seconds);
    fp64 = hmm.stats().double_pairs;
    if (rep == 0) {
      for (std::size_t k = 0; k < out.size(); ++k) {
        const double e = expected[k % expected.size()];
        if (!(std::abs(out[k] - e) <= 1e-5)) ++wrong;
      }
    }
  }
  const double cells = static_cast<double>(batch.view().cell_count());
  std::printf("## (a) Real lengths on the GPU: %s x %d (%s host memory)\n\n", o.input.c_str(),
              o.copies, o.page_locked ? "page-locked" : "pageable");
  std::printf(
      "| cells | pairs | pairs in fp64 | median s (transfers) | TCUPS (transfers) | median s "
      "(kernels) "
      "| TCUPS (kernels) | pairs off by > 1e-5 |\n|---|---|---|---|---|---|---|---|\n");
  std::printf("| %.3g | %zu | %llu | %.4f | %.3f | %.4f | %.3f | %zu |\n\n", cells,
              batch.view().pair_count(), static_cast<unsigned long long>(fp64), median(with),
              cells / median(with) * 1e-12, median(without), cells / median(without) * 1e-12,
              wrong);
}

// A region as HaplotypeCaller makes them: haplotypes that differ from a random sequence by one
// substitution each, reads equal to that sequence (every pair stays in fp32); Q40 bases, Q45 gap
// opens, GCP 10.
PairHmmBatch synthetic(int length, int reads, int haps, int groups, unsigned seed) {
  std::mt19937 rng(seed);
  PairHmmBatch batch;
  const std::vector<std::uint8_t> q(length, 40), gap_open(length, 45), gcp(length, 10);
  for (int g = 0; g < groups; ++g) {
    std::string sequence(length, 'A');
    for (auto& c : sequence) c = "ACGT"[rng() % 4];
    for (int r = 0; r < reads; ++r) batch.add_read(sequence, q, gap_open, gap_open, gcp);
    for (int h = 0; h < haps; ++h) {
      std::string variant = sequence;
      char& base = variant[rng() % length];
      base = base == 'A' ? 'C' : 'A';
      batch.add_haplotype(variant);
    }
    batch.end_group();
  }
  return batch;
}

// Sizes: short reads (single-tile kernels) in regions of 32 reads x up to 32 haplotypes, about
// `peak_cells` cells; reads over 640 bases (multi-tile kernel, one subwarp per read for the whole
// read) as 40 reads per multiprocessor, 4 per resident subwarp, against one haplotype each.
void kernel_peak(const Options& o, int multiprocessors) {
  PairHmm hmm(o.backend, PairHmmPrecision::kAuto, gpp::pipeline::pairhmm_tuning());
  std::printf("## (b) Kernel peak on the GPU (equal read and haplotype lengths, kernels only)\n\n");
  std::printf(
      "| length | reads x haplotypes per region | cells | median s | TCUPS | pairs in fp64 |\n"
      "|---|---|---|---|---|---|\n");
  for (int length : o.lengths) {
    const double square = static_cast<double>(length) * length;
    const int haps = length <= 128 ? 32 : std::max(1, static_cast<int>(32.0 * 128 * 128 / square));
    const int reads = length <= 640 ? 32 : 8;
    const int groups = length <= 640
                           ? std::max(1, static_cast<int>(o.peak_cells / (square * reads * haps)))
                           : std::max(1, multiprocessors * 40 / reads);
    const auto batch = synthetic(length, reads, haps, groups, 7 + length);
    hmm.compute(batch.view());
    std::vector<double> times;
    for (int rep = 0; rep < o.repeats; ++rep) {
      hmm.compute(batch.view());
      times.push_back(hmm.stats().compute_seconds);
    }
    const double cells = static_cast<double>(batch.view().cell_count());
    std::printf("| %d | %d x %d | %.3g | %.5f | %.3f | %llu |\n", length, reads, haps, cells,
                median(times), cells / median(times) * 1e-12,
                static_cast<unsigned long long>(hmm.stats().double_pairs));
    std::fflush(stdout);
  }
  std::printf("\n");
}

void cpu_backend(const Options& o) {
  PairHmmBatch batch;
  gpp::io::read_pairhmm_batch_file(o.input, batch);
  std::printf(
      "## (c) CPU backend on %s\n\n| threads | median s | GCUPS | pairs in fp64 "
      "|\n|---|---|---|---|\n",
      o.input.c_str());
  for (int threads : {0, 1}) {
    const std::size_t n = threads == 0 ? oneapi::tbb::info::default_concurrency() : 1;
    oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, n);
    PairHmm hmm(Backend::kCpu, PairHmmPrecision::kAuto, gpp::pipeline::pairhmm_tuning());
    hmm.compute(batch.view());
    std::vector<double> times;
    for (int rep = 0; rep < o.repeats; ++rep) {
      hmm.compute(batch.view());
      times.push_back(hmm.stats().seconds);
    }
    std::printf("| %zu | %.4f | %.2f | %llu |\n", n, median(times),
                static_cast<double>(hmm.stats().cells) / median(times) * 1e-9,
                static_cast<unsigned long long>(hmm.stats().double_pairs));
  }
  std::printf("\n");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw gpp::Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--mode") {
      o.mode = value();
    } else if (arg == "--input") {
      o.input = value();
    } else if (arg == "--copies") {
      o.copies = std::stoi(value());
    } else if (arg == "--repeats") {
      o.repeats = std::stoi(value());
    } else if (arg == "--pageable") {
      o.page_locked = false;
    } else if (arg == "--device") {
      o.backend = value() == "cpu" ? Backend::kCpu : Backend::kGpu;
    } else if (arg == "--peak-cells") {
      o.peak_cells = std::stod(value());
    } else if (arg == "--lengths") {
      o.lengths.clear();
      std::string list = value();
      for (std::size_t at = 0; at < list.size();) {
        const std::size_t comma = list.find(',', at);
        o.lengths.push_back(std::stoi(list.substr(at, comma - at)));
        at = comma == std::string::npos ? list.size() : comma + 1;
      }
    } else {
      throw gpp::Error(
          "unknown option " + arg +
          " (--mode all|a|b|c, --input, --copies, --repeats, --lengths, --peak-cells)");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const auto gpus = detect_gpus();
    const bool gpu = !gpus.empty() || o.backend == Backend::kCpu;
    std::printf("# bench_pairhmm\n\nGPU: %s. CPU threads: %d.\n\n",
                gpus.empty() ? "none" : gpus.front().name.c_str(),
                oneapi::tbb::info::default_concurrency());
    if ((o.mode == "all" || o.mode == "a") && gpu) real_lengths(o);
    if ((o.mode == "all" || o.mode == "b") && gpu)
      kernel_peak(o, gpus.empty() ? 2 : gpus.front().multiprocessors);
    if (o.mode == "all" || o.mode == "c") cpu_backend(o);
    if (!gpu && (o.mode == "a" || o.mode == "b"))
      std::printf("No GPU: modes (a) and (b) skipped.\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_pairhmm: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
