// Marks for functions compiled for both the host and the GPU (one source for the CPU backend, the
// CUDA kernels and the tests that check one against the other): GPP_HD as declared, GPP_HD_INLINE
// forced inline on the GPU and inline on the host. Without CUDA both are plain C++.
#pragma once

#if defined(__CUDACC__)
#define GPP_HD __host__ __device__
#define GPP_HD_INLINE __host__ __device__ __forceinline__
#else
#define GPP_HD
#define GPP_HD_INLINE inline
#endif
