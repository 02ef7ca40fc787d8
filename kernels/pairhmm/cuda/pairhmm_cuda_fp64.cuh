// The per-thread pieces of the CUDA PairHMM fp64 kernel (pairhmm_cuda_fp64.cu), host-callable so
// that pairhmm_cuda_emulation.cu can run its wavefront, tile boundaries and rescaling on the CPU.
#pragma once

#include "kernels/pairhmm/cuda/pairhmm_cuda.cuh"
#include "kernels/pairhmm/detail/pairhmm_model.hpp"

#ifdef __CUDA_ARCH__
#define GPP_PAIRHMM_FP64_UNROLL _Pragma("unroll")
#else
#define GPP_PAIRHMM_FP64_UNROLL
#endif

namespace gpp::kernels::pairhmm_cuda {

inline constexpr int kP = 8;  // threads per pair
inline constexpr int kK = 4;  // rows per thread
inline constexpr int kTile = kP * kK;
// Within a tile a pair loses at most ~13 orders of magnitude per row (Q127 mismatch and gap),
// 32 rows about 420: rescaling the boundary to 2^900 (1e271) keeps every relevant cell normal.
inline constexpr int kBoundaryExponent = 900;

/// GATK's coefficients (general formulation) of a thread's rows, and of the next thread's first.
struct Fp64Rows {
  double w[kK], u[kK], a[kK], c[kK], b[kK], d[kK];
  double w_next, u_next, a_next, c_next;
  double u_first;
};

/// Loads rows first_row .. first_row + kK - 1 (carry rows past the read) and writes the thread's
/// emission table: entry (code, row r) at table[(code * kK + r) * 32].
__host__ __device__ inline void load_fp64_rows(const pairhmm::QualityTables& t,
                                               const pairhmm::ReadQuals& q, const char* bases,
                                               int first_row, double* table, Fp64Rows& rows) {
  using namespace pairhmm;
  GPP_PAIRHMM_FP64_UNROLL
  for (int r = 0; r <= kK; ++r) {
    const int i = first_row + r;
    const GeneralRow row = general_row(t, q, i);
    if (r < kK) {
      rows.w[r] = row.w;
      rows.u[r] = row.u;
      rows.a[r] = row.a;
      rows.c[r] = row.c;
      rows.b[r] = row.b;
      rows.d[r] = row.d;
      const int read_code =
          i <= q.length ? static_cast<int>(base_code(static_cast<unsigned char>(bases[i - 1])))
                        : kCodeN;
      GPP_PAIRHMM_FP64_UNROLL
      for (int code = 0; code < kCodeCount; ++code) {
        table[(code * kK + r) * 32] = emission<double>(read_code, code, row.match, row.mismatch);
      }
    } else {
      rows.w_next = row.w;
      rows.u_next = row.u;
      rows.a_next = row.a;
      rows.c_next = row.c;
    }
    if (r == 0) rows.u_first = row.u;
  }
}

/// A thread's rows at the column it computed last, and the first row's received sum one column
/// back.
struct Fp64State {
  double m[kK], in[kK], d[kK];
  double p_prev;
};

/// One wavefront step: M = lambda (w M_ul + u (I_ul + D_ul)); I = a M_up + c I_up; D = b M_l + d
/// D_l. `entry` is the thread's table at the haplotype code (stride 32 between rows).
__host__ __device__ inline void fp64_step(const Fp64Rows& rows, const double* entry, Fp64State& s,
                                          double i_in, double& p_send, double& i_send) {
  double m_new[kK], i_new[kK], d_new[kK];
  GPP_PAIRHMM_FP64_UNROLL
  for (int r = 0; r < kK; ++r) {
    const double lambda = entry[r * 32];
    const int above = r > 0 ? r - 1 : 0;
    m_new[r] = r == 0 ? lambda * s.p_prev
                      : lambda * fma(rows.w[r], s.m[above], rows.u[r] * (s.in[above] + s.d[above]));
    i_new[r] = r == 0 ? i_in : fma(rows.a[r], m_new[above], rows.c[r] * i_new[above]);
    d_new[r] = fma(rows.b[r], s.m[r], rows.d[r] * s.d[r]);
  }
  GPP_PAIRHMM_FP64_UNROLL
  for (int r = 0; r < kK; ++r) {
    s.m[r] = m_new[r];
    s.in[r] = i_new[r];
    s.d[r] = d_new[r];
  }
  p_send = fma(rows.w_next, s.m[kK - 1], rows.u_next * (s.in[kK - 1] + s.d[kK - 1]));
  i_send = fma(rows.a_next, s.m[kK - 1], rows.c_next * s.in[kK - 1]);
}

/// The factor that brings a boundary row's largest value to 2^kBoundaryExponent (as an exponent).
__host__ __device__ inline int boundary_shift(double boundary_max) {
  return boundary_max > 0.0 ? kBoundaryExponent - ilogb(boundary_max) : 0;
}

}  // namespace gpp::kernels::pairhmm_cuda
