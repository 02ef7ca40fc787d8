// The CPU PairHMM sweep built for avx512 (16 fp32 lanes); see pairhmm_cpu_simd.hpp.
#define GPP_PAIRHMM_SIMD_NAME simd_sweep_avx512
#define GPP_PAIRHMM_SIMD_LANES 16
#include "kernels/pairhmm/cpu/pairhmm_cpu_simd.inl"
