// A CPU run of the CUDA fp32 wavefront, for tests on machines without a GPU: the host-callable
// pieces of pairhmm_cuda_kernels.cuh (load_tile_rows, load_lambda, tile_step) driven the way a
// subwarp drives them, shuffles replaced by the previous step's values, the boundary row of the
// multi-tile kernel in a host vector. It checks the wavefront's logic (timing of the values passed
// between threads, the initial condition, carry rows, tile boundaries), not the CUDA plumbing.
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "kernels/pairhmm/cuda/pairhmm_cuda_fp64.cuh"
#include "kernels/pairhmm/cuda/pairhmm_cuda_kernels.cuh"
#include "kernels/pairhmm/detail/backends.hpp"
#include "kernels/pairhmm/pairhmm.hpp"

namespace gpp::kernels::detail {

namespace {

using namespace pairhmm;
using namespace pairhmm_cuda;

// The prepare kernel's work for one read, on the host.
void prepare_read(const PairHmmReadsView& reads, std::uint32_t read,
                  std::vector<float4>& coefficients, std::vector<int>& exponents,
                  std::vector<float>& carry) {
  const QualityTables& t = quality_tables();
  const std::uint32_t begin = reads.offsets[read];
  const ReadQuals q{reads.base_quals.data() + begin, reads.insertion_quals.data() + begin,
                    reads.deletion_quals.data() + begin,
                    reads.gap_continuation_quals.data() + begin,
                    static_cast<int>(reads.offsets[read + 1] - begin)};
  double h_min = HUGE_VAL, h_max = 0.0, gap_max = 0.0;
  bool usable = true;
  for (int i = 1; i <= q.length; ++i) {
    const UnitRowF row = unit_row_f32(t, q, i);
    coefficients[2 * (begin + i - 1)] = make_float4(row.match, row.mismatch, row.u, row.v);
    coefficients[2 * (begin + i - 1) + 1] = make_float4(row.c, row.d, 0.0f, 0.0f);
    usable = usable && unit_row_usable(t, q, i);
    const double h = unit_h(t, q, i);
    h_min = std::fmin(h_min, h);
    h_max = std::fmax(h_max, h);
    gap_max = std::fmax(gap_max, t.error[q.gcp[i - 1] & 127]);
  }
  const bool all = usable && h_min > 0.0 && gap_max < 1.0;
  const int exponent = all ? unit_fp32_exponent(h_min, h_max, gap_max) : 0;
  exponents[read] = exponent >= kMinFp32Exponent ? exponent : 0;
  carry[read] = unit_row_f32(t, q, q.length + 1).c;
}

template <int K, bool kFused>
double emulate_pair(const DeviceBatch& b, std::uint32_t read, const std::vector<std::uint8_t>& hap,
                    int P) {
  constexpr int G = (K + 3) / 4;
  const int exponent = b.exponents[read];
  if (exponent == 0) return std::numeric_limits<double>::quiet_NaN();
  const int length = static_cast<int>(b.read_offsets[read + 1] - b.read_offsets[read]);
  const int n = static_cast<int>(hap.size());
  const int tile_rows = P * K;
  const int tiles = (length + tile_rows - 1) / tile_rows;
  std::vector<float4> tables(static_cast<std::size_t>(P) * kCodeCount * G * 32);
  std::vector<float2> boundary(n);
  std::vector<TileRows<K, kFused>> rows(P);
  std::vector<TileState<K>> state(P);
  std::vector<float> p_send(P), i_send(P), p_in(P), i_in(P);
  float acc = 0.0f;
  for (int tile = 0; tile < tiles; ++tile) {
    const bool first = tile == 0, last = tile + 1 == tiles;
    for (int t = 0; t < P; ++t) {
      load_tile_rows<K, kFused>(b, read, tile * tile_rows + t * K + 1,
                                reinterpret_cast<float*>(tables.data() + t * kCodeCount * G * 32),
                                rows[t]);
    }
    const float initial = static_cast<float>(rows[0].v_first * std::ldexp(1.0, exponent) / n);
    for (int t = 0; t < P; ++t) {
      for (int r = 0; r < K; ++r) state[t].m[r] = state[t].x[r] = state[t].d[r] = 0.0f;
      state[t].p_prev = t == 0 && first ? initial : 0.0f;
      p_send[t] = i_send[t] = 0.0f;
    }
    for (int step = 0; step < n + P - 1; ++step) {
      for (int t = 0; t < P; ++t) {  // what every thread receives, before any of them sends again
        if (t > 0) {
          p_in[t] = p_send[t - 1];
          i_in[t] = i_send[t - 1];
        } else if (first) {
          p_in[0] = initial;
          i_in[0] = 0.0f;
        } else {
          p_in[0] = step < n ? boundary[step].x : 0.0f;
          i_in[0] = step < n ? boundary[step].y : 0.0f;
        }
      }
      for (int t = 0; t < P; ++t) {
        const int column = step - t;
        const int code = column >= 0 && column < n ? static_cast<int>(hap[column]) : kCodeSeparator;
        float lambda[4 * G];
        load_lambda<K>(tables.data() + t * kCodeCount * G * 32, code, lambda);
        tile_step<K, kFused>(rows[t], lambda, state[t], i_in[t], p_send[t], i_send[t]);
        state[t].p_prev = p_in[t];
      }
      const int column = step - (P - 1);
      if (!last) {
        if (column >= 0) boundary[column] = make_float2(p_send[P - 1], i_send[P - 1]);
      } else {
        acc += i_send[P - 1];
      }
    }
  }
  if (!(acc >= fp32_min_accepted(exponent) && acc <= 3.4e38f))
    return std::numeric_limits<double>::quiet_NaN();
  return std::log10(static_cast<double>(acc)) - exponent * kLog10Of2 -
         unit_result_log10_scale(length);
}

// The fp64 kernel's work for one pair: tiles of kTile rows, the boundary rescaled between tiles.
double emulate_fp64_pair(const PairHmmReadsView& reads, std::uint32_t read,
                         const std::vector<std::uint8_t>& hap) {
  const std::uint32_t begin = reads.offsets[read];
  const ReadQuals q{reads.base_quals.data() + begin, reads.insertion_quals.data() + begin,
                    reads.deletion_quals.data() + begin,
                    reads.gap_continuation_quals.data() + begin,
                    static_cast<int>(reads.offsets[read + 1] - begin)};
  const char* bases = reads.bases.data() + begin;
  const int n = static_cast<int>(hap.size());
  const int tiles = (q.length + kTile - 1) / kTile;
  std::vector<double> tables(static_cast<std::size_t>(kP) * kCodeCount * kK * 32);
  std::vector<double> boundary_p(n), boundary_i(n);
  std::vector<Fp64Rows> rows(kP);
  std::vector<Fp64State> state(kP);
  std::vector<double> p_send(kP), i_send(kP), p_in(kP), i_in(kP);
  int shift = 0;
  double scale_in = 1.0, acc = 0.0;
  for (int tile = 0; tile < tiles; ++tile) {
    const bool first = tile == 0, last = tile + 1 == tiles;
    for (int t = 0; t < kP; ++t) {
      load_fp64_rows(quality_tables(), q, bases, tile * kTile + t * kK + 1,
                     tables.data() + t * kCodeCount * kK * 32, rows[t]);
    }
    const double initial = rows[0].u_first * std::ldexp(1.0, kFp64Exponent) / n;
    for (int t = 0; t < kP; ++t) {
      for (int r = 0; r < kK; ++r) state[t].m[r] = state[t].in[r] = state[t].d[r] = 0.0;
      state[t].p_prev = t == 0 && first ? initial : 0.0;
      p_send[t] = i_send[t] = 0.0;
    }
    double boundary_max = 0.0;
    for (int step = 0; step < n + kP - 1; ++step) {
      for (int t = 0; t < kP; ++t) {
        if (t > 0) {
          p_in[t] = p_send[t - 1];
          i_in[t] = i_send[t - 1];
        } else if (first) {
          p_in[0] = initial;
          i_in[0] = 0.0;
        } else {
          p_in[0] = step < n ? boundary_p[step] * scale_in : 0.0;
          i_in[0] = step < n ? boundary_i[step] * scale_in : 0.0;
        }
      }
      for (int t = 0; t < kP; ++t) {
        const int column = step - t;
        const int code = column >= 0 && column < n ? static_cast<int>(hap[column]) : kCodeSeparator;
        fp64_step(rows[t], tables.data() + t * kCodeCount * kK * 32 + code * kK * 32, state[t],
                  i_in[t], p_send[t], i_send[t]);
        state[t].p_prev = p_in[t];
      }
      const int column = step - (kP - 1);
      if (!last) {
        if (column >= 0) {
          boundary_p[column] = p_send[kP - 1];
          boundary_i[column] = i_send[kP - 1];
          boundary_max = std::fmax(boundary_max, std::fmax(p_send[kP - 1], i_send[kP - 1]));
        }
      } else {
        acc += i_send[kP - 1];
      }
    }
    if (!last) {
      const int exponent_shift = boundary_shift(boundary_max);
      scale_in = std::ldexp(1.0, exponent_shift);
      shift += exponent_shift;
    }
  }
  return std::log10(acc) - (kFp64Exponent + shift) * kLog10Of2;
}

std::vector<std::uint8_t> hap_codes(const PairHmmHaplotypesView& haps, std::uint32_t h) {
  std::vector<std::uint8_t> codes;
  for (std::uint32_t j = haps.offsets[h]; j < haps.offsets[h + 1]; ++j) {
    codes.push_back(base_code(static_cast<unsigned char>(haps.bases[j])));
  }
  return codes;
}

}  // namespace

std::vector<double> pairhmm_emulate_cuda_fp64(const PairHmmBatchView& batch) {
  std::vector<double> out;
  for (const auto& g : batch.groups) {
    for (std::uint32_t r = g.first_read; r < g.first_read + g.read_count; ++r) {
      for (std::uint32_t h = g.first_haplotype; h < g.first_haplotype + g.haplotype_count; ++h) {
        out.push_back(emulate_fp64_pair(batch.reads, r, hap_codes(batch.haplotypes, h)));
      }
    }
  }
  return out;
}

std::vector<double> pairhmm_emulate_cuda_wavefront(const PairHmmBatchView& batch, int threads,
                                                   int rows, bool fused) {
  const auto& reads = batch.reads;
  std::vector<float4> coefficients(2 * reads.bases.size());
  std::vector<int> exponents(reads.size());
  std::vector<float> carry(reads.size());
  for (std::uint32_t r = 0; r < reads.size(); ++r)
    prepare_read(reads, r, coefficients, exponents, carry);
  DeviceBatch b;
  b.bases = reads.bases.data();
  b.read_offsets = reads.offsets.data();
  b.coefficients = coefficients.data();
  b.exponents = exponents.data();
  b.carry = carry.data();
  std::vector<double> out;
  for (const auto& g : batch.groups) {
    for (std::uint32_t r = g.first_read; r < g.first_read + g.read_count; ++r) {
      for (std::uint32_t h = g.first_haplotype; h < g.first_haplotype + g.haplotype_count; ++h) {
        std::vector<std::uint8_t> hap;
        for (std::uint32_t j = batch.haplotypes.offsets[h]; j < batch.haplotypes.offsets[h + 1];
             ++j) {
          hap.push_back(base_code(static_cast<unsigned char>(batch.haplotypes.bases[j])));
        }
        double x = 0;
        if (rows == 8 && !fused) {
          x = emulate_pair<8, false>(b, r, hap, threads);
        } else if (rows == 14 && !fused) {
          x = emulate_pair<14, false>(b, r, hap, threads);
        } else if (rows == 16 && fused) {
          x = emulate_pair<16, true>(b, r, hap, threads);
        } else if (rows == 20 && fused) {
          x = emulate_pair<20, true>(b, r, hap, threads);
        } else {
          throw Error("pairhmm emulation: no instance for this tile shape");
        }
        out.push_back(x);
      }
    }
  }
  return out;
}

}  // namespace gpp::kernels::detail
