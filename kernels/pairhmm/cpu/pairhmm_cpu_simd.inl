// Body of the CPU PairHMM sweep (see pairhmm_cpu_simd.hpp). Included by one translation unit per
// instruction set, which defines GPP_PAIRHMM_SIMD_NAME (the function) and GPP_PAIRHMM_SIMD_LANES.
// GCC/Clang vector extensions: the same source becomes SSE, AVX2 or AVX-512 code.
//
// Recurrences (unit formulation, fused form), row i, column j; "ul" = (i-1, j-1), "up" = (i-1, j),
// "l" = (i, j-1); P carries the sum the next row's M multiplies:
//   M = lambda~[hap code] * P_ul   I = M_up + c I_up   D = M_l + d D_l
//   P = lambda~ * P_ul + (u_next I + v_next D)          (one FMA over the exact product)
#include "kernels/pairhmm/cpu/pairhmm_cpu_simd.hpp"

#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace gpp::kernels::pairhmm {

namespace {

constexpr int kLanes = GPP_PAIRHMM_SIMD_LANES;
constexpr int kCodes = 6;  // kCodeCount
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

inline Vec load(const float* p) {
  Vec v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec v) { __builtin_memcpy(p, &v, sizeof v); }

// a * b + c with one rounding. It must be a real fused operation: the point of P is that the small
// terms c join the exact product (pairhmm_model.hpp), and a compiler may not contract a product
// that has another use. Without hardware FMA the exact product is formed in double.
inline Vec fused_multiply_add(Vec a, Vec b, Vec c) {
#if defined(__AVX512F__) && GPP_PAIRHMM_SIMD_LANES == 16
  return reinterpret_cast<Vec>(_mm512_fmadd_ps(
      reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(c)));
#elif defined(__FMA__) && GPP_PAIRHMM_SIMD_LANES == 8
  return reinterpret_cast<Vec>(_mm256_fmadd_ps(
      reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
#elif defined(__aarch64__) && GPP_PAIRHMM_SIMD_LANES == 4
  return reinterpret_cast<Vec>(vfmaq_f32(reinterpret_cast<float32x4_t>(c),
                                         reinterpret_cast<float32x4_t>(a),
                                         reinterpret_cast<float32x4_t>(b)));
#else
  typedef double Wide __attribute__((vector_size(kLanes * sizeof(double))));
  const Wide exact = __builtin_convertvector(a, Wide) * __builtin_convertvector(b, Wide);
  return __builtin_convertvector(exact + __builtin_convertvector(c, Wide), Vec);
#endif
}

struct Row {
  Vec u_next, v_next, c, d;
  const float* emissions;  // kCodes vectors
};

inline Row load_row(const SimdSweep& s, int i) {
  const float* k = s.coefficients + static_cast<long>(i - 1) * 4 * kLanes;
  return {load(k), load(k + kLanes), load(k + 2 * kLanes), load(k + 3 * kLanes),
          s.emissions + static_cast<long>(i - 1) * kCodes * kLanes};
}

// Rows i and i+1 in one pass over the columns: row i reads row i-1 from the buffers, row i+1 takes
// row i from registers, and only row i+1 is written back.
inline void two_rows(const SimdSweep& s, int i, float* mb, float* ib, float* pb) {
  const Row a = load_row(s, i);
  const Row b = load_row(s, i + 1);
  const int n = s.haplotype_length;
  const Vec zero = {};
  Vec p_ul = load(pb);                        // row i-1, column j-1
  Vec am_l = zero, ad_l = zero, ap_l = zero;  // row i, column j-1
  Vec bm_l = zero, bd_l = zero;               // row i+1, column j-1
  store(mb, zero);
  store(ib, zero);
  store(pb, zero);
  for (int j = 1; j <= n; ++j) {
    const int code = s.haplotype[j - 1];
    const long at = static_cast<long>(j) * kLanes;
    const Vec m_up = load(mb + at), i_up = load(ib + at), p_up = load(pb + at);
    const Vec a_lambda = load(a.emissions + code * kLanes);
    const Vec am = a_lambda * p_ul;
    const Vec ai = m_up + a.c * i_up;
    const Vec ad = am_l + a.d * ad_l;
    const Vec ap = fused_multiply_add(a_lambda, p_ul, a.u_next * ai + a.v_next * ad);
    const Vec b_lambda = load(b.emissions + code * kLanes);
    const Vec bm = b_lambda * ap_l;
    const Vec bi = am + b.c * ai;
    const Vec bd = bm_l + b.d * bd_l;
    const Vec bp = fused_multiply_add(b_lambda, ap_l, b.u_next * bi + b.v_next * bd);
    store(mb + at, bm);
    store(ib + at, bi);
    store(pb + at, bp);
    p_ul = p_up;
    am_l = am;
    ad_l = ad;
    ap_l = ap;
    bm_l = bm;
    bd_l = bd;
  }
}

inline void one_row(const SimdSweep& s, int i, float* mb, float* ib, float* pb) {
  const Row a = load_row(s, i);
  const int n = s.haplotype_length;
  const Vec zero = {};
  Vec p_ul = load(pb);
  Vec m_l = zero, d_l = zero;
  store(mb, zero);
  store(ib, zero);
  store(pb, zero);
  for (int j = 1; j <= n; ++j) {
    const int code = s.haplotype[j - 1];
    const long at = static_cast<long>(j) * kLanes;
    const Vec m_up = load(mb + at), i_up = load(ib + at), p_up = load(pb + at);
    const Vec lambda = load(a.emissions + code * kLanes);
    const Vec m = lambda * p_ul;
    const Vec in = m_up + a.c * i_up;
    const Vec d = m_l + a.d * d_l;
    const Vec p = fused_multiply_add(lambda, p_ul, a.u_next * in + a.v_next * d);
    store(mb + at, m);
    store(ib + at, in);
    store(pb + at, p);
    p_ul = p_up;
    m_l = m;
    d_l = d;
  }
}

}  // namespace

void GPP_PAIRHMM_SIMD_NAME(const SimdSweep& s) {
  const int n = s.haplotype_length;
  float* mb = s.scratch;
  float* ib = mb + static_cast<long>(n + 1) * kLanes;
  float* pb = ib + static_cast<long>(n + 1) * kLanes;
  const Vec zero = {};
  const Vec initial = load(s.initial);
  for (int j = 0; j <= n; ++j) {  // row 0: M = I = 0, P = v_1 D = v_1 2^exponent / n
    store(mb + static_cast<long>(j) * kLanes, zero);
    store(ib + static_cast<long>(j) * kLanes, zero);
    store(pb + static_cast<long>(j) * kLanes, initial);
  }
  int i = 1;
  for (; i + 1 <= s.rows; i += 2) two_rows(s, i, mb, ib, pb);
  if (i <= s.rows) one_row(s, i, mb, ib, pb);
  // The final carry row: I~(rows+1, j) = M~(rows, j) + c I~(rows, j) is each column's summand.
  const Vec c = load(s.coefficients + static_cast<long>(s.rows) * 4 * kLanes + 2 * kLanes);
  Vec sum = zero;
  for (int j = 1; j <= n; ++j) {
    const long at = static_cast<long>(j) * kLanes;
    sum += load(mb + at) + c * load(ib + at);
  }
  store(s.sums, sum);
}

}  // namespace gpp::kernels::pairhmm
