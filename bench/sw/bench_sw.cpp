// bench_sw: GATK Smith-Waterman with full traceback (offsets and CIGARs), GPU vs CPU backend, on
// two HaplotypeCaller-shaped workloads:
//   read-to-haplotype      reads of 100-250 bases vs haplotypes of 300-600, 10/-15/-30/-5, SOFTCLIP
//   haplotype-to-reference 300-1,000 vs 300-1,000 bases, 200/-150/-260/-11, INDEL
// Reads carry ~1.5% substitutions and some indels and clipped tails; alternate haplotypes carry
// SNPs, indels and repeat expansions. GCUPS = sum of ref x alt lengths over the pairs the dynamic
// programming aligned (pairs answered by GATK's exact-substring shortcut are left out of the
// cells and counted separately) / seconds. GPU figures: wall time of the batch call (transfers,
// packing and CIGAR assembly included) and kernel time only (transfers excluded). The GPU runs all
// --pairs; the CPU backend the first --cpu-pairs of them (to keep the run short); the outputs of
// the pairs both ran must be identical. Median of --repeats runs after one warm-up.
// With Intel GKL's native library present (Debian libgkl-jni; GATK's default aligner), the
// CPU pairs also go through GKL's AVX-512/AVX2 Smith-Waterman (called directly, no JNI), one
// call per pair on the same threads, and its outputs are compared with ours.
//
//   bench_sw [--pairs 1000000] [--cpu-pairs 100000] [--repeats 3] [--workload all] [--seed 1]
//            [--gkl /usr/lib/jni/libgkl_smithwaterman.so]
#include <dlfcn.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "core/hash.hpp"
#include "kernels/device/device.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"
#include "pipeline/tuning_overrides.hpp"

namespace {

using gpp::kernels::Backend;
using gpp::kernels::OverhangStrategy;
using gpp::kernels::SequencePairs;
using gpp::kernels::SwAlignments;
using gpp::kernels::SwParameters;

/// splitmix64: a small, fast, seedable generator per pair (pairs are generated in parallel).
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    const std::uint64_t out = gpp::splitmix64(state);
    state += gpp::kSplitmix64Gamma;
    return out;
  }
  int uniform(int lo, int hi) {
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  char base() { return "ACGT"[next() & 3]; }
};

/// Genome-like sequence: random bases with short tandem repeats and homopolymers.
std::string genome_like(Rng& rng, int length) {
  std::string s;
  s.reserve(static_cast<std::size_t>(length) + 32);
  while (static_cast<int>(s.size()) < length) {
    const auto roll = rng.next() % 100;
    if (roll < 4) {
      const std::string unit = {rng.base(), rng.base(), rng.base()};
      for (int r = rng.uniform(2, 6); r > 0; --r) s += unit.substr(0, 1 + rng.next() % 3);
    } else if (roll < 8) {
      s.append(static_cast<std::size_t>(rng.uniform(3, 9)), rng.base());
    } else {
      s += rng.base();
    }
  }
  s.resize(static_cast<std::size_t>(length));
  return s;
}

/// Sequencing-error / variant copy: substitutions at `snp_rate`, indels at `indel_rate`.
std::string mutate(Rng& rng, const std::string& source, double snp_rate, double indel_rate) {
  std::string s;
  s.reserve(source.size() + 16);
  const auto snp = static_cast<std::uint64_t>(snp_rate * 1e6),
             indel = static_cast<std::uint64_t>(indel_rate * 1e6);
  for (std::size_t i = 0; i < source.size(); ++i) {
    const std::uint64_t roll = rng.next() % 1000000;
    if (roll < snp) {
      s += rng.base();
    } else if (roll < snp + indel / 2) {
      i += static_cast<std::size_t>(rng.uniform(0, 4));  // deletion
    } else if (roll < snp + indel) {
      for (int k = rng.uniform(1, 5); k > 0; --k) s += rng.base();
      s += source[i];
    } else {
      s += source[i];
    }
  }
  return s;
}

SequencePairs make_workload(bool read_to_haplotype, std::size_t count, std::uint64_t seed) {
  std::vector<std::string> refs(count), alts(count);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, count, 1024),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          Rng rng{seed * 0x100000001B3ull + i};
          if (read_to_haplotype) {
            refs[i] = genome_like(rng, rng.uniform(300, 600));
            const int length = rng.uniform(100, 250);
            const int start = rng.uniform(0, static_cast<int>(refs[i].size()) - length);
            std::string read = mutate(
                rng,
                refs[i].substr(static_cast<std::size_t>(start), static_cast<std::size_t>(length)),
                0.015, 0.002);
            if (rng.next() % 10 == 0) read += genome_like(rng, rng.uniform(5, 30));  // adapter
            read.resize(std::clamp<std::size_t>(read.size(), 100, 250), 'A');
            alts[i] = std::move(read);
          } else {
            refs[i] = genome_like(rng, rng.uniform(300, 1000));
            std::string alt = mutate(rng, refs[i], 0.005, 0.004);
            alt.resize(std::clamp<std::size_t>(alt.size(), 300, 1000), 'C');
            alts[i] = std::move(alt);
          }
        }
      });
  SequencePairs pairs;
  std::size_t bases = 0;
  for (std::size_t i = 0; i < count; ++i) bases += refs[i].size() + alts[i].size();
  pairs.reserve(count, bases);
  for (std::size_t i = 0; i < count; ++i) pairs.add(refs[i], alts[i]);
  return pairs;
}

SequencePairs head(const SequencePairs& pairs, std::size_t count) {
  SequencePairs out;
  for (std::size_t i = 0; i < std::min(count, pairs.size()); ++i)
    out.add(pairs.ref(i), pairs.alt(i));
  return out;
}

/// Cells of the pairs the dynamic programming aligns (not GATK's exact-substring shortcut).
std::uint64_t dp_cells(const SequencePairs& pairs, OverhangStrategy strategy) {
  const bool shortcut =
      strategy == OverhangStrategy::kSoftClip || strategy == OverhangStrategy::kIgnore;
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, pairs.size(), 4096), std::uint64_t{0},
      [&](const oneapi::tbb::blocked_range<std::size_t>& r, std::uint64_t acc) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          if (shortcut && pairs.ref(i).find(pairs.alt(i)) != std::string_view::npos) continue;
          acc += static_cast<std::uint64_t>(pairs.ref(i).size()) * pairs.alt(i).size();
        }
        return acc;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

struct Timing {
  double wall = 0, kernels = 0;
  gpp::kernels::SwStats stats;
};

Timing run(const SequencePairs& pairs, const SwParameters& p, OverhangStrategy s, Backend backend,
           int repeats, SwAlignments& result) {
  gpp::kernels::SmithWaterman aligner(backend, gpp::pipeline::smith_waterman_tuning());
  result = aligner.align(head(pairs, 2000), p, s);  // warm-up
  std::vector<Timing> runs;
  for (int r = 0; r < repeats; ++r) {
    Timing t;
    result = aligner.align(pairs, p, s, &t.stats);
    t.wall = t.stats.seconds;
    t.kernels = t.stats.gpu_kernel_seconds;
    runs.push_back(t);
  }
  std::sort(runs.begin(), runs.end(),
            [](const Timing& a, const Timing& b) { return a.wall < b.wall; });
  return runs[runs.size() / 2];
}

std::size_t count_differences(const SwAlignments& a, const SwAlignments& b, std::size_t count) {
  std::size_t differences = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto ca = a.cigar(i), cb = b.cigar(i);
    if (a.offset(i) != b.offset(i) || !std::equal(ca.begin(), ca.end(), cb.begin(), cb.end()))
      ++differences;
  }
  return differences;
}

/// GKL's per-pair native entry point (libgkl_smithwaterman.so, GKL 0.8.x):
/// runSWOnePairBT_{avx512,avx2}(match, mismatch, open, extend, ref, alt, ref length, alt length,
/// overhang code, cigar text buffer, its size, &cigar count, &offset).
using GklFunction = std::int32_t (*)(std::int32_t, std::int32_t, std::int32_t, std::int32_t,
                                     std::uint8_t*, std::uint8_t*, std::int16_t, std::int16_t,
                                     std::int8_t, char*, std::int32_t, std::uint32_t*,
                                     std::int32_t*);

struct Gkl {
  GklFunction align = nullptr;
  const char* isa = "";
};

Gkl load_gkl(const std::string& path) {
  Gkl gkl;
  if (path.empty() || !std::filesystem::exists(path)) return gkl;
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open for the process
  if (library == nullptr) {
    std::fprintf(stderr, "GKL: %s\n", dlerror());
    return gkl;
  }
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    gkl.align = reinterpret_cast<GklFunction>(
        dlsym(library, "_Z21runSWOnePairBT_avx512iiiiPhS_ssaPciPjPi"));
    gkl.isa = "AVX-512";
  }
  if (gkl.align == nullptr) {
    gkl.align =
        reinterpret_cast<GklFunction>(dlsym(library, "_Z19runSWOnePairBT_avx2iiiiPhS_ssaPciPjPi"));
    gkl.isa = "AVX2";
  }
  return gkl;
}

/// GKL's overhang codes (smithwaterman_common.h): SOFTCLIP 9, INDEL 10, LEADING_INDEL 11,
/// IGNORE 12.
std::int8_t gkl_strategy(OverhangStrategy s) {
  switch (s) {
    case OverhangStrategy::kSoftClip:
      return 9;
    case OverhangStrategy::kIndel:
      return 10;
    case OverhangStrategy::kLeadingIndel:
      return 11;
    case OverhangStrategy::kIgnore:
      return 12;
  }
  return 9;
}

/// GKL over the pairs (oneTBB, one call per pair); returns the median wall seconds and counts the
/// pairs whose offset or CIGAR differ from `ours`.
double run_gkl(const Gkl& gkl, const SequencePairs& pairs, const SwParameters& p,
               OverhangStrategy s, int repeats, const SwAlignments& ours,
               std::size_t& differences) {
  std::vector<std::string> cigars(pairs.size());
  std::vector<std::int32_t> offsets(pairs.size());
  const auto once = [&] {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, pairs.size(), 64),
                              [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                                std::vector<char> buffer;
                                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                  std::string ref(pairs.ref(i)), alt(pairs.alt(i));
                                  buffer.assign(2 * (ref.size() + alt.size()) + 16, 0);
                                  std::uint32_t count = 0;
                                  std::int32_t offset = 0;
                                  gkl.align(p.match, p.mismatch, p.gap_open, p.gap_extend,
                                            reinterpret_cast<std::uint8_t*>(ref.data()),
                                            reinterpret_cast<std::uint8_t*>(alt.data()),
                                            static_cast<std::int16_t>(ref.size()),
                                            static_cast<std::int16_t>(alt.size()), gkl_strategy(s),
                                            buffer.data(), static_cast<std::int32_t>(buffer.size()),
                                            &count, &offset);
                                  cigars[i] = buffer.data();
                                  offsets[i] = offset;
                                }
                              });
  };
  once();  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    once();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  differences = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    differences += offsets[i] != ours.offset(i) || cigars[i] != gpp::cigar_to_string(ours.cigar(i));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GATK Smith-Waterman with traceback: GPU vs CPU backend", "bench_sw"};
  std::size_t pairs_count = 1'000'000, cpu_pairs = 100'000;
  int repeats = 3, threads = 0;
  std::string workload = "all";
  std::uint64_t seed = 1;
  app.add_option("--pairs", pairs_count, "pairs per workload on the GPU");
  app.add_option("--cpu-pairs", cpu_pairs,
                 "pairs per workload on the CPU backend (the first ones)");
  app.add_option("--repeats", repeats, "timed runs (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--workload", workload, "read-to-haplotype, haplotype-to-reference or all")
      ->check(CLI::IsMember({"read-to-haplotype", "haplotype-to-reference", "all"}));
  app.add_option("--seed", seed, "workload seed");
  app.add_option("--threads", threads, "CPU threads (0 = all)");
  std::string gkl_path = "/usr/lib/jni/libgkl_smithwaterman.so";
  app.add_option("--gkl", gkl_path, "Intel GKL's libgkl_smithwaterman.so ('' to skip)");
  CLI11_PARSE(app, argc, argv);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t thread_count = threads > 0 ? static_cast<std::size_t>(threads) : hw;
  const oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism,
                                          thread_count);

  const Gkl gkl = load_gkl(gkl_path);
  const auto gpus = gpp::kernels::detect_gpus();
  const bool gpu = !gpus.empty();
  std::printf("GPU: %s; CPU backend: %zu threads\n\n", gpu ? gpus[0].name.c_str() : "none",
              thread_count);
  std::printf(
      "| workload | backend | pairs | shortcut pairs | DP cells | wall s | GCUPS (transfers incl.) "
      "| "
      "kernel s | GCUPS (kernels only) | GPU/CPU |\n|---|---|---|---|---|---|---|---|---|---|\n");
  int status = 0;
  std::string gkl_notes;
  for (const bool read_to_haplotype : {true, false}) {
    const char* name = read_to_haplotype ? "read-to-haplotype" : "haplotype-to-reference";
    if (workload != "all" && workload != name) continue;
    const SwParameters p =
        read_to_haplotype ? gpp::kernels::kSwReadToHaplotype : gpp::kernels::kSwNewParameters;
    const OverhangStrategy s =
        read_to_haplotype ? OverhangStrategy::kSoftClip : OverhangStrategy::kIndel;
    const SequencePairs all = make_workload(read_to_haplotype, gpu ? pairs_count : cpu_pairs, seed);
    const SequencePairs cpu_set = head(all, cpu_pairs);

    SwAlignments cpu_result, gpu_result;
    const Timing cpu = run(cpu_set, p, s, Backend::kCpu, repeats, cpu_result);
    const std::uint64_t cpu_cells = dp_cells(cpu_set, s);
    const double cpu_gcups = cpu_cells / cpu.wall * 1e-9;
    std::printf("| %s | cpu (%zu threads) | %zu | %llu | %llu | %.3f | %.2f | - | - | |\n", name,
                thread_count, cpu_set.size(),
                static_cast<unsigned long long>(cpu.stats.substring_pairs),
                static_cast<unsigned long long>(cpu_cells), cpu.wall, cpu_gcups);
    if (gkl.align != nullptr) {
      std::size_t differences = 0;
      const double seconds = run_gkl(gkl, cpu_set, p, s, repeats, cpu_result, differences);
      const std::uint64_t all_cells = cpu_set.cells();
      std::printf(
          "| %s | Intel GKL %s (%zu threads; no substring shortcut: all %llu cells) | %zu | 0 | "
          "%llu | %.3f | "
          "%.2f | - | - | ours %.1fx faster |\n",
          name, gkl.isa, thread_count, static_cast<unsigned long long>(all_cells), cpu_set.size(),
          static_cast<unsigned long long>(all_cells), seconds, all_cells / seconds * 1e-9,
          seconds / cpu.wall);
      gkl_notes += std::string(name) +
                   ": GKL's offset or CIGAR differs from ours (GATK's Java aligner) on " +
                   std::to_string(differences) + " of " + std::to_string(cpu_set.size()) +
                   " pairs\n";
    }
    if (gpu) {
      const Timing g = run(all, p, s, Backend::kGpu, repeats, gpu_result);
      const std::uint64_t cells = dp_cells(all, s);
      const double gcups = cells / g.wall * 1e-9, kernel_gcups = cells / g.kernels * 1e-9;
      std::printf("| %s | gpu (%s) | %zu | %llu | %llu | %.3f | %.2f | %.3f | %.2f | %.1fx |\n",
                  name, gpus[0].name.c_str(), all.size(),
                  static_cast<unsigned long long>(g.stats.substring_pairs),
                  static_cast<unsigned long long>(cells), g.wall, gcups, g.kernels, kernel_gcups,
                  gcups / cpu_gcups);
      const std::size_t differences = count_differences(gpu_result, cpu_result, cpu_set.size());
      if (differences != 0) {
        std::fprintf(stderr, "%s: %zu of %zu pairs differ between GPU and CPU\n", name, differences,
                     cpu_set.size());
        status = 1;
      }
    }
  }
  if (!gkl_notes.empty()) std::printf("\n%s", gkl_notes.c_str());
  if (gpu && status == 0)
    std::printf("\nGPU offsets and CIGARs identical to the CPU backend's on the shared pairs.\n");
  return status;
}
