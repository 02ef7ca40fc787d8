// clang-format off
// PairHMM model arithmetic shared by the CPU and CUDA backends (host and device code):
// quality tables, per-row transition coefficients in the two formulations the kernels use, the
// fp32 scaling rule and GKL's fp32 -> fp64 threshold.
//
// Two formulations of the same recurrences (M, I, D as in pairhmm.hpp, row i = read base i):
//
// General (fp64 paths), GATK's own coefficients:
//   M(i,j) = lambda(i,j) * (w_i M(i-1,j-1) + u_i (I(i-1,j-1) + D(i-1,j-1)))   w = t_MM, u = t_GM
//   I(i,j) = a_i M(i-1,j) + c_i I(i-1,j)                                      a = t_MI, c = t_II
//   D(i,j) = b_i M(i,j-1) + d_i D(i,j-1)                                      b = t_MD, d = t_DD
//
// Unit (fp32 paths): the states rescaled per row, M~ = g_i M, I~ = h_i I, D~ = k_i D, with
//   g_i = t_MM(i+1) (g_0 = g_m = 1), h_i = g_{i-1} / t_MI(i), k_i = g_i / t_MD(i) (k_0 = 1),
// which turns three of the six transition products into 1:
//   M~(i,j) = lambda~(i,j) (M~(i-1,j-1) + u_i I~(i-1,j-1) + v_i D~(i-1,j-1))    lambda~ = g_i lambda
//   I~(i,j) = M~(i-1,j) + c_i I~(i-1,j)        D~(i,j) = M~(i,j-1) + d_i D~(i,j-1)
// with u_i = t_GM(i) / h_{i-1}, v_i = t_GM(i) / k_{i-1}, c_i = t_II(i) h_i / h_{i-1},
// d_i = t_DD(i): 5 floating-point operations per cell instead of 8. It needs t_MM(i) > 0 for
// i >= 2 (true unless insertion and deletion qualities are both below about 4); other reads take
// the general path.
//
// Fused form of the unit formulation (CPU, and GPU tiles over 256 rows): with
//   P(i,j) = M~(i,j) + u_{i+1} I~(i,j) + v_{i+1} D~(i,j),   M~(i,j) = lambda~(i,j) P(i-1,j-1),
//   P(i,j) = fma(lambda~(i,j), P(i-1,j-1), u_{i+1} I~(i,j) + v_{i+1} D~(i,j)),
// the small gap terms join the exact match product inside one fused multiply-add. In the 5-operation
// form they are added to an already rounded M~ and, being below half an ulp of it in most rows, are
// dropped: a systematic loss of up to ~1e-8 per row (2e-5 in log10 over 2,000 rows). The fused
// form costs one more operation per cell and keeps the error at the level of random rounding.
//
// Both formulations append "carry" rows after the read's last row m: row m+1 has lambda = 0 and
// turns I into the summand M(m,j) + I(m,j); later rows copy it down. A kernel whose tile is taller
// than the read therefore finds the result in its last row, whatever the read's length.
//
// fp32 coefficients are rounded to float stochastically (unbiased, with a fixed hash of the row as
// the random source) rather than to nearest: a read whose qualities repeat would otherwise carry
// the same rounding error into every row, and a 2,000-base read would drift by ~1e-4 in log10.
// clang-format on
#pragma once

#include <math.h>

#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"

namespace gpp::kernels::pairhmm {

inline constexpr int kQualities = 128;  // qualities are masked to 7 bits, as GKL does
inline constexpr double kLog10Of2 = 0.30102999566398119521;

/// Base codes: A C G T, N (matches everything) and the separator a kernel reads outside a
/// haplotype (emission 0, so cells outside the matrix stay 0).
enum BaseCode : std::uint8_t {
  kCodeA = 0,
  kCodeC = 1,
  kCodeG = 2,
  kCodeT = 3,
  kCodeN = 4,
  kCodeSeparator = 5
};
inline constexpr int kCodeCount = 6;

GPP_HD inline std::uint8_t base_code(unsigned char base) {
  switch (base | 0x20) {  // lower case
    case 'a':
      return kCodeA;
    case 'c':
      return kCodeC;
    case 'g':
      return kCodeG;
    case 't':
      return kCodeT;
    default:
      return kCodeN;
  }
}

/// Emission of a read base (code) against a haplotype code, given the row's two values.
template <typename Real>
GPP_HD inline Real emission(int read_code, int hap_code, Real match, Real mismatch) {
  if (hap_code == kCodeSeparator) return Real(0);
  return (read_code == hap_code || read_code == kCodeN || hap_code == kCodeN) ? match : mismatch;
}

/// Quality-derived probabilities as GATK computes them (QualityUtils, PairHMMModel).
struct QualityTables {
  double error[kQualities];                        ///< 10^(-q/10)
  double inverse_error[kQualities];                ///< 10^(q/10)
  double match_to_match[kQualities * kQualities];  ///< t_MM(ins, del), index ins * 128 + del
  double inverse_match_to_match[kQualities * kQualities];  ///< 1 / t_MM, 0 where t_MM == 0
};

/// The host copy, built on first use (defined in pairhmm.cpp).
const QualityTables& quality_tables();

/// One read's quality columns (host or device pointers).
struct ReadQuals {
  const std::uint8_t* base = nullptr;
  const std::uint8_t* ins = nullptr;
  const std::uint8_t* del = nullptr;
  const std::uint8_t* gcp = nullptr;
  int length = 0;
};

GPP_HD inline int mm_index(const ReadQuals& r, int position) {
  return (r.ins[position] & 127) * kQualities + (r.del[position] & 127);
}

/// Row i's coefficients, general formulation; rows past the read are carry rows.
struct GeneralRow {
  double match, mismatch;  ///< lambda for equal / different bases
  double w, u, a, c, b, d;
};

GPP_HD inline GeneralRow general_row(const QualityTables& t, const ReadQuals& r, int i) {
  if (i > r.length) return {0, 0, 0, 0, 1, 1, 0, 0};
  const int p = i - 1;
  const double e = t.error[r.base[p] & 127];
  const double gap = t.error[r.gcp[p] & 127];
  return {1.0 - e,
          e / 3.0,
          t.match_to_match[mm_index(r, p)],
          1.0 - gap,
          t.error[r.ins[p] & 127],
          gap,
          t.error[r.del[p] & 127],
          gap};
}

/// Row i's coefficients, unit formulation (exact values, before rounding to float).
struct UnitRow {
  double match, mismatch;  ///< lambda~ for equal / different bases
  double u, v, c, d;
};

/// 1 / g_i of the unit formulation.
GPP_HD inline double unit_inverse_g(const QualityTables& t, const ReadQuals& r, int i) {
  return (i <= 0 || i >= r.length) ? 1.0 : t.inverse_match_to_match[mm_index(r, i)];
}

GPP_HD inline double unit_g(const QualityTables& t, const ReadQuals& r, int i) {
  return (i <= 0 || i >= r.length) ? 1.0 : t.match_to_match[mm_index(r, i)];
}

/// h_i of the unit formulation (i >= 1).
GPP_HD inline double unit_h(const QualityTables& t, const ReadQuals& r, int i) {
  return unit_g(t, r, i - 1) * t.inverse_error[r.ins[i - 1] & 127];
}

// Rounding decorrelation. For high qualities lambda~ is 1 - k ulp with small k, and the rounding
// error of lambda~ * S then stays almost the same from one row to the next: it adds up to a bias
// (about -1e-5 in log10 over 2,000 Q60 rows). Scaling the states of row i by r_i (M~ and D~) and
// r_{i-1} (I~) keeps every unit coefficient and only multiplies lambda~ by rho_i = r_i / r_{i-1}
// and u, c by rho_{i-1}. With rho alternating 2^(1/4) and 2^(-1/4), lambda~ has a full mantissa,
// the errors decorrelate, and r stays 1 (even rows) or 2^(1/4) (odd rows).
inline constexpr double kRhoUp = 1.18920711500272106672;    // 2^(1/4)
inline constexpr double kRhoDown = 0.84089641525371454303;  // 2^(-1/4)
GPP_HD inline double unit_rho(int i) { return (i & 1) ? kRhoUp : kRhoDown; }

/// log10 of the factor r_m the unit formulation's result carries for a read of length m.
GPP_HD inline double unit_result_log10_scale(int m) { return (m & 1) ? 0.25 * kLog10Of2 : 0.0; }

GPP_HD inline UnitRow unit_row(const QualityTables& t, const ReadQuals& r, int i) {
  const int m = r.length;
  if (i > m + 1) return {0, 0, 0, 0, 1, 0};
  if (i == m + 1) {  // I~(m+1) = M~(m) + I~(m) / h_m = r_m (M(m) + I(m)), since g_m = 1
    return {0, 0, 0, 0, t.error[r.ins[m - 1] & 127] * unit_inverse_g(t, r, m - 1) * unit_rho(m), 0};
  }
  const int p = i - 1;
  const double e = t.error[r.base[p] & 127];
  const double g = unit_g(t, r, i) * unit_rho(i);
  const double gap = t.error[r.gcp[p] & 127];
  const double to_match = 1.0 - gap;
  UnitRow row{g * (1.0 - e), g * (e / 3.0), 0, 0, 0, gap};
  if (i >= 2) {
    const double inverse_h_prev = t.error[r.ins[p - 1] & 127] * unit_inverse_g(t, r, i - 2);
    const double inverse_k_prev = t.error[r.del[p - 1] & 127] * unit_inverse_g(t, r, i - 1);
    row.u = to_match * inverse_h_prev * unit_rho(i - 1);
    row.v = to_match * inverse_k_prev;
    row.c = gap * unit_h(t, r, i) * inverse_h_prev * unit_rho(i - 1);
  } else {
    row.v = to_match;  // k_0 = 1
  }
  return row;
}

/// True when the unit formulation is valid for the read (t_MM(i) > 0 for i >= 2, no Q0 gap
/// continuation, whose t_DD = 1 would let D~ grow with the haplotype length).
GPP_HD inline bool unit_row_usable(const QualityTables& t, const ReadQuals& r, int i) {
  const int p = i - 1;
  if ((r.gcp[p] & 127) == 0) return false;
  return i == 1 || t.match_to_match[mm_index(r, p)] > 0.0;
}

/// fp32 scaling: D(0,j) = 2^exponent / n. GKL uses 2^120; the unit formulation's I~ can exceed M~
/// by up to growth = (2 h_max / h_min + 1) / (1 - t_II max), so the exponent drops by log2(growth)
/// (about 2 for reads with constant qualities). A read needing exponent < 64 takes the fp64 path.
GPP_HD inline int unit_fp32_exponent(double h_min, double h_max, double gap_max) {
  const double growth = kRhoUp * (2.0 * (h_max / h_min) + 1.0) / (1.0 - gap_max);
  return 120 - static_cast<int>(std::ceil(std::log2(growth)));
}
inline constexpr int kMinFp32Exponent = 64;

/// GKL's rule: an fp32 sum below 1e-28 at 2^120 scaling is recomputed in fp64. With a smaller
/// exponent the sum must also stay >= 2^-100, keeping 26 bits between it and fp32's flush-to-zero.
GPP_HD inline float fp32_min_accepted(int exponent) {
  const float gkl = 1e-28f * std::ldexp(1.0f, exponent - 120);
  const float floor = std::ldexp(1.0f, -100);
  return gkl > floor ? gkl : floor;
}

/// Scale of the fp64 paths' initial condition (GATK uses 2^1020; 2^1000 leaves headroom for the
/// sums of states the kernels pass between rows). Exact powers of two: the result does not change.
inline constexpr int kFp64Exponent = 1000;

/// Below this log10 likelihood the fp64 paths are no longer exact: the cells a row needs can lie
/// further below the row's largest value than a double reaches (about 600 orders of magnitude),
/// whatever the common scale. Such pairs (only very long or very dissimilar high-quality ones)
/// are recomputed in log space on the host (pairhmm_reference_log10).
inline constexpr double kDoubleExactLog10 = -300.0;

/// A fixed 32-bit hash (avalanche) used as the random source of the stochastic rounding.
GPP_HD inline std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/// `x` rounded to one of its two neighbouring floats, up with probability proportional to the
/// distance from the lower one: E[result] = x, so errors of repeated values do not add up.
GPP_HD inline float round_stochastic(double x, std::uint32_t key) {
  const float nearest = static_cast<float>(x);
  const double nearest_d = nearest;
  if (nearest_d == x) return nearest;
  const float other =
      nearest_d < x ? ::nextafterf(nearest, INFINITY) : ::nextafterf(nearest, -INFINITY);
  const double p = (x - nearest_d) / (static_cast<double>(other) - nearest_d);  // (0, 0.5]
  const double uniform = static_cast<double>(hash32(key) >> 8) * (1.0 / 16777216.0);
  return uniform < p ? other : nearest;
}

/// Row i's unit coefficients rounded to float.
struct UnitRowF {
  float match, mismatch, u, v, c, d;
};

GPP_HD inline UnitRowF unit_row_f32(const QualityTables& t, const ReadQuals& r, int i) {
  const UnitRow x = unit_row(t, r, i);
  const std::uint32_t key = static_cast<std::uint32_t>(i) * 8u;
  return {round_stochastic(x.match, key), round_stochastic(x.mismatch, key + 1),
          round_stochastic(x.u, key + 2), round_stochastic(x.v, key + 3),
          round_stochastic(x.c, key + 4), round_stochastic(x.d, key + 5)};
}

}  // namespace gpp::kernels::pairhmm
