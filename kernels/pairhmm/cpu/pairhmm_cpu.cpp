// CPU backend of the PairHMM: oneTBB over lane groups (up to 16 reads of one region, similar
// lengths), the SIMD fp32 sweep of pairhmm_cpu_simd.inl per haplotype, and the double reference
// for the pairs GKL's rule sends to fp64 (and for every pair with --precision double).
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "core/error.hpp"
#include "kernels/pairhmm/cpu/pairhmm_cpu_simd.hpp"
#include "kernels/pairhmm/detail/backends.hpp"
#include "kernels/pairhmm/detail/pairhmm_model.hpp"
#include "kernels/pairhmm/pairhmm.hpp"

namespace gpp::kernels::detail {

namespace {

using namespace pairhmm;

struct SimdKernel {
  int lanes;
  SimdSweepFunction sweep;
};

#if defined(GPP_PAIRHMM_X86_SIMD)
// Whether the CPU runs code built for -march=x86-64-v4 (v3 when `avx512` is false). gcc 12 names
// the levels; clang 14 knows only single features and not all of them, so it checks AVX-512
// F/BW/CD/DQ/VL and AVX2, FMA, BMI1/2, SSE4.2, POPCNT (every x86 CPU with those, Haswell and Zen
// on, also has the F16C, LZCNT and MOVBE of x86-64-v3 that clang 14 cannot query).
bool runs_x86_64_level(bool avx512) {
  __builtin_cpu_init();
#if defined(__clang__)
  const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
                  __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt");
  return v3 &&
         (!avx512 || (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl")));
#else
  return avx512 ? __builtin_cpu_supports("x86-64-v4") : __builtin_cpu_supports("x86-64-v3");
#endif
}
#endif

// The widest sweep this CPU runs up to `limit` (PairHmmTuning::cpu_simd: generic, avx2, avx512;
// tests and benchmarks of the narrower builds lower it).
SimdKernel pick_simd_kernel(const std::string& limit) {
#if defined(GPP_PAIRHMM_X86_SIMD)
  if (limit == "avx512" && runs_x86_64_level(true)) return {16, simd_sweep_avx512};
  if ((limit == "avx512" || limit == "avx2") && runs_x86_64_level(false)) {
    return {8, simd_sweep_avx2};
  }
#endif
  return {4, simd_sweep_generic};
}

// 64-byte aligned float storage that only grows.
class AlignedFloats {
 public:
  float* get(std::size_t count) {
    if (count + 16 > storage_.size()) storage_.resize(count + 16);
    auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    return storage_.data() + ((64 - address % 64) % 64) / sizeof(float);
  }

 private:
  std::vector<float> storage_;
};

struct Workspace {
  AlignedFloats coefficients, emissions, scratch;
  std::vector<std::uint8_t> hap_codes;
  std::vector<std::uint32_t> hap_starts;
  float initial[16] = {};
  float sums[16] = {};
  int exponent[16] = {};
  float first_v[16] = {};
  double log10_scale[16] = {};
  bool usable[16] = {};
};

// Flush-to-zero and denormals-are-zero for the fp32 sweep, as GKL does: cells far below the
// accepted range would otherwise take microcode assists. Restored on scope exit.
class FlushDenormals {
 public:
#if defined(__x86_64__) || defined(__i386__)
  FlushDenormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | 0x8040); }
  ~FlushDenormals() { _mm_setcsr(saved_); }

 private:
  unsigned saved_;
#endif
};

ReadQuals read_quals(const PairHmmReadsView& reads, std::uint32_t r) {
  const std::uint32_t b = reads.offsets[r];
  return {reads.base_quals.data() + b, reads.insertion_quals.data() + b,
          reads.deletion_quals.data() + b, reads.gap_continuation_quals.data() + b,
          static_cast<int>(reads.offsets[r + 1] - b)};
}

double reference(const PairHmmBatchView& batch, std::uint32_t r, std::uint32_t h) {
  const auto& reads = batch.reads;
  const std::uint32_t b = reads.offsets[r], len = reads.offsets[r + 1] - b;
  const std::uint32_t hb = batch.haplotypes.offsets[h], hlen = batch.haplotypes.offsets[h + 1] - hb;
  return pairhmm_reference_log10(
      std::string_view(reads.bases.data() + b, len), reads.base_quals.subspan(b, len),
      reads.insertion_quals.subspan(b, len), reads.deletion_quals.subspan(b, len),
      reads.gap_continuation_quals.subspan(b, len),
      std::string_view(batch.haplotypes.bases.data() + hb, hlen));
}

// Up to `lanes` reads of one group, longest first, scored against every haplotype of the group.
struct LaneGroup {
  std::uint32_t group;
  std::uint32_t first;  // into the sorted read list
  std::uint32_t count;
};

class CpuEngine final : public PairHmm::Engine {
 public:
  CpuEngine(PairHmmPrecision precision, const PairHmmTuning& tuning)
      : precision_(precision), kernel_(pick_simd_kernel(tuning.cpu_simd)) {}

  void compute(const PairHmmBatchView& batch, std::span<double> out, PairHmmStats& stats) override {
    validate_pairhmm_offsets(batch, 0, batch.reads.size(), 0, batch.haplotypes.size());
    const auto start = std::chrono::steady_clock::now();
    const auto offsets = pairhmm_result_offsets(batch.groups);
    std::atomic<std::uint64_t> double_pairs{0};
    if (precision_ == PairHmmPrecision::kDouble) {
      compute_double(batch, offsets, out);
      double_pairs = out.size();
    } else {
      compute_float(batch, offsets, out, double_pairs);
    }
    stats.double_pairs = double_pairs;
    stats.compute_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  void compute_double(const PairHmmBatchView& batch, const std::vector<std::uint64_t>& offsets,
                      std::span<double> out) {
    oneapi::tbb::parallel_for(std::size_t{0}, batch.groups.size(), [&](std::size_t g) {
      const auto& group = batch.groups[g];
      oneapi::tbb::parallel_for(std::uint32_t{0}, group.read_count, [&](std::uint32_t r) {
        for (std::uint32_t h = 0; h < group.haplotype_count; ++h) {
          out[offsets[g] + std::uint64_t{r} * group.haplotype_count + h] =
              reference(batch, group.first_read + r, group.first_haplotype + h);
        }
      });
    });
  }

  void compute_float(const PairHmmBatchView& batch, const std::vector<std::uint64_t>& offsets,
                     std::span<double> out, std::atomic<std::uint64_t>& double_pairs) {
    const int lanes = kernel_.lanes;
    // Reads of each group by decreasing length, cut into lane groups of similar lengths.
    std::vector<std::uint32_t> order(batch.reads.size());
    std::vector<LaneGroup> work;
    for (std::uint32_t g = 0; g < batch.groups.size(); ++g) {
      const auto& group = batch.groups[g];
      if (group.haplotype_count == 0) continue;
      auto first = order.begin() + group.first_read;
      for (std::uint32_t r = 0; r < group.read_count; ++r) first[r] = group.first_read + r;
      std::stable_sort(first, first + group.read_count, [&](std::uint32_t a, std::uint32_t b) {
        return batch.reads.offsets[a + 1] - batch.reads.offsets[a] >
               batch.reads.offsets[b + 1] - batch.reads.offsets[b];
      });
      for (std::uint32_t r = 0; r < group.read_count; r += lanes) {
        work.push_back(
            {g, group.first_read + r, std::min<std::uint32_t>(lanes, group.read_count - r)});
      }
    }
    oneapi::tbb::enumerable_thread_specific<Workspace> workspaces;
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::size_t>(0, work.size(), 1), [&](const auto& range) {
          Workspace& ws = workspaces.local();
          for (std::size_t w = range.begin(); w != range.end(); ++w) {
            score_lane_group(batch, offsets, order, work[w], ws, out, double_pairs);
          }
        });
  }

  void score_lane_group(const PairHmmBatchView& batch, const std::vector<std::uint64_t>& offsets,
                        const std::vector<std::uint32_t>& order, const LaneGroup& lg, Workspace& ws,
                        std::span<double> out, std::atomic<std::uint64_t>& double_pairs) const {
    const int lanes = kernel_.lanes;
    const auto& group = batch.groups[lg.group];
    const QualityTables& t = quality_tables();
    const std::uint32_t* reads = order.data() + lg.first;
    int rows = 0;
    for (std::uint32_t l = 0; l < lg.count; ++l) {
      rows = std::max<int>(rows, batch.reads.offsets[reads[l] + 1] - batch.reads.offsets[reads[l]]);
    }
    float* coefficients = ws.coefficients.get(static_cast<std::size_t>(rows + 1) * 4 * lanes);
    float* emissions = ws.emissions.get(static_cast<std::size_t>(rows) * kCodeCount * lanes);
    std::memset(coefficients, 0, sizeof(float) * (rows + 1) * 4 * lanes);
    std::memset(emissions, 0, sizeof(float) * rows * kCodeCount * lanes);
    for (int l = 0; l < lanes; ++l) ws.usable[l] = false;
    for (std::uint32_t l = 0; l < lg.count; ++l)
      fill_lane(batch, reads[l], rows, l, t, ws, coefficients, emissions);

    // The group's haplotypes as codes, once.
    ws.hap_codes.clear();
    ws.hap_starts.clear();
    for (std::uint32_t h = 0; h < group.haplotype_count; ++h) {
      const std::uint32_t b = batch.haplotypes.offsets[group.first_haplotype + h];
      const std::uint32_t e = batch.haplotypes.offsets[group.first_haplotype + h + 1];
      ws.hap_starts.push_back(static_cast<std::uint32_t>(ws.hap_codes.size()));
      for (std::uint32_t j = b; j < e; ++j) {
        ws.hap_codes.push_back(base_code(static_cast<unsigned char>(batch.haplotypes.bases[j])));
      }
    }
    ws.hap_starts.push_back(static_cast<std::uint32_t>(ws.hap_codes.size()));

    std::vector<std::pair<std::uint32_t, std::uint32_t>> fallback;  // (lane, haplotype)
    {
      FlushDenormals ftz;
      for (std::uint32_t h = 0; h < group.haplotype_count; ++h) {
        const int n = static_cast<int>(ws.hap_starts[h + 1] - ws.hap_starts[h]);
        for (int l = 0; l < lanes; ++l) {
          // P(0, j) = v_1 D(0, j) = v_1 2^exponent / n
          ws.initial[l] =
              ws.usable[l] ? static_cast<float>(ws.first_v[l] * std::ldexp(1.0, ws.exponent[l]) / n)
                           : 0.0f;
        }
        SimdSweep sweep;
        sweep.rows = rows;
        sweep.coefficients = coefficients;
        sweep.emissions = emissions;
        sweep.haplotype = ws.hap_codes.data() + ws.hap_starts[h];
        sweep.haplotype_length = n;
        sweep.initial = ws.initial;
        sweep.scratch = ws.scratch.get(static_cast<std::size_t>(3) * (n + 1) * lanes);
        sweep.sums = ws.sums;
        kernel_.sweep(sweep);
        for (std::uint32_t l = 0; l < lg.count; ++l) {
          const float sum = ws.sums[l];
          const std::uint64_t r = reads[l] - group.first_read;
          if (ws.usable[l] && sum >= fp32_min_accepted(ws.exponent[l]) && std::isfinite(sum)) {
            out[offsets[lg.group] + r * group.haplotype_count + h] =
                std::log10(static_cast<double>(sum)) - ws.exponent[l] * kLog10Of2 -
                ws.log10_scale[l];
          } else {
            fallback.emplace_back(l, h);
          }
        }
      }
    }
    for (const auto& [l, h] : fallback) {
      const std::uint64_t r = reads[l] - group.first_read;
      out[offsets[lg.group] + r * group.haplotype_count + h] =
          reference(batch, reads[l], group.first_haplotype + h);
    }
    double_pairs += fallback.size();
  }

  // Lane l's coefficients (transposed: lane-minor) and its fp32 scale, or usable = false.
  void fill_lane(const PairHmmBatchView& batch, std::uint32_t read, int rows, std::uint32_t l,
                 const QualityTables& t, Workspace& ws, float* coefficients,
                 float* emissions) const {
    const int lanes = kernel_.lanes;
    const ReadQuals q = read_quals(batch.reads, read);
    const char* bases = batch.reads.bases.data() + batch.reads.offsets[read];
    bool usable = true;
    double h_min = HUGE_VAL, h_max = 0.0, gap_max = 0.0;
    for (int i = 1; i <= q.length && usable; ++i) {
      usable = unit_row_usable(t, q, i);
      const double h = unit_h(t, q, i);
      h_min = std::min(h_min, h);
      h_max = std::max(h_max, h);
      gap_max = std::max(gap_max, t.error[q.gcp[i - 1] & 127]);
    }
    if (!usable || !(h_min > 0.0)) return;
    const int exponent = unit_fp32_exponent(h_min, h_max, gap_max);
    if (exponent < kMinFp32Exponent) return;
    ws.usable[l] = true;
    ws.exponent[l] = exponent;
    ws.log10_scale[l] = unit_result_log10_scale(q.length);
    ws.first_v[l] = unit_row_f32(t, q, 1).v;
    UnitRowF next = unit_row_f32(t, q, 1);
    for (int i = 1; i <= rows + 1; ++i) {
      const UnitRowF row = next;
      next = unit_row_f32(t, q, i + 1);
      float* k = coefficients + static_cast<std::size_t>(i - 1) * 4 * lanes + l;
      k[0] = next.u;  // the fused form's P needs the next row's u and v
      k[lanes] = next.v;
      k[2 * lanes] = row.c;
      k[3 * lanes] = row.d;
      if (i <= q.length) {
        const int read_code = base_code(static_cast<unsigned char>(bases[i - 1]));
        float* e = emissions + static_cast<std::size_t>(i - 1) * kCodeCount * lanes + l;
        for (int code = 0; code < kCodeCount; ++code) {
          e[code * lanes] = emission<float>(read_code, code, row.match, row.mismatch);
        }
      }
    }
  }

  PairHmmPrecision precision_;
  SimdKernel kernel_;
};

}  // namespace

std::unique_ptr<PairHmm::Engine> make_pairhmm_cpu_engine(PairHmmPrecision precision,
                                                         const PairHmmTuning& tuning) {
  return std::make_unique<CpuEngine>(precision, tuning);
}

}  // namespace gpp::kernels::detail
