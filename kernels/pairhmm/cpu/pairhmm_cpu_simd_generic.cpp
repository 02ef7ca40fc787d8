// The CPU PairHMM sweep built for generic (4 fp32 lanes); see pairhmm_cpu_simd.hpp.
#define GPP_PAIRHMM_SIMD_NAME simd_sweep_generic
#define GPP_PAIRHMM_SIMD_LANES 4
#include "kernels/pairhmm/cpu/pairhmm_cpu_simd.inl"
