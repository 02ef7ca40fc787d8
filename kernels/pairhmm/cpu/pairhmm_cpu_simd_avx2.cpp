// The CPU PairHMM sweep built for avx2 (8 fp32 lanes); see pairhmm_cpu_simd.hpp.
#define GPP_PAIRHMM_SIMD_NAME simd_sweep_avx2
#define GPP_PAIRHMM_SIMD_LANES 8
#include "kernels/pairhmm/cpu/pairhmm_cpu_simd.inl"
