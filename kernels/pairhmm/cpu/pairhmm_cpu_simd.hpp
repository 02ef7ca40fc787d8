// The CPU PairHMM inner kernel: one haplotype against a "lane group" of reads (one read per SIMD
// lane), fp32, unit formulation (pairhmm_model.hpp). Compiled once per instruction set (generic,
// AVX2, AVX-512) from pairhmm_cpu_simd.inl; the engine picks one at run time.
//
// Lanes hold different reads of the same region, so every lane sees the same haplotype base and the
// emission is a table lookup by haplotype code: no shuffles, no gathers. The sweep goes row by row
// (two rows per pass, which halves the traffic to the row buffers and gives two independent
// deletion chains), keeping row i-1 of M~, I~ and P (the fused form of pairhmm_model.hpp) in
// `scratch`.
//
// These translation units include nothing that other units also instantiate (no standard library
// templates, no shared inline functions), so code built for AVX-512 cannot leak into the rest of
// the program through the linker's choice among identical inline definitions.
#pragma once

#include <cstdint>

namespace gpp::kernels::pairhmm {

struct SimdSweep {
  int rows = 0;  ///< padded read rows: the longest read of the lane group
  /// rows + 1 blocks of 4 x lanes floats (u of row i+1, v of row i+1, c, d); block i - 1 is row i,
  /// block `rows` the final carry row (only its c is read).
  const float* coefficients = nullptr;
  const float* emissions = nullptr;         ///< rows blocks of kCodeCount x lanes floats: lambda~
  const std::uint8_t* haplotype = nullptr;  ///< haplotype_length codes (0-4)
  int haplotype_length = 0;
  const float* initial = nullptr;  ///< lanes floats: P(0, j) = v_1 2^exponent / haplotype_length
  float* scratch = nullptr;        ///< 3 x (haplotype_length + 1) x lanes floats
  float* sums = nullptr;           ///< lanes floats out: sum_j M(m,j) + I(m,j), scaled
};

using SimdSweepFunction = void (*)(const SimdSweep&);

void simd_sweep_generic(const SimdSweep& sweep);  ///< 4 lanes (SSE2 / NEON vectors)
#if defined(GPP_PAIRHMM_X86_SIMD)
void simd_sweep_avx2(const SimdSweep& sweep);    ///< 8 lanes, needs x86-64-v3
void simd_sweep_avx512(const SimdSweep& sweep);  ///< 16 lanes, needs x86-64-v4
#endif

}  // namespace gpp::kernels::pairhmm
