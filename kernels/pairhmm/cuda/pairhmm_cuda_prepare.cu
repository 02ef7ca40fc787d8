// CUDA PairHMM helper kernels: per-read fp32 coefficients (the model arithmetic of
// pairhmm_model.hpp, once per read position instead of once per thread and tile) and the padded
// haplotype codes.
#include <cuda_runtime.h>

#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/pairhmm/cuda/pairhmm_cuda_kernels.cuh"

namespace gpp::kernels::pairhmm_cuda {

namespace {

constexpr int kPrepareThreads = 128;

// One warp per read: the coefficients of every row, the fp32 exponent (0 when the unit formulation
// cannot take the read) and the carry row's c.
__global__ void __launch_bounds__(kPrepareThreads)
    prepare_reads_kernel(DeviceBatch b, std::uint32_t reads, float4* coefficients, int* exponents,
                         float* carry) {
  using namespace pairhmm;
  const std::uint32_t read = blockIdx.x * (kPrepareThreads / 32) + threadIdx.x / 32;
  if (read >= reads) return;
  const int lane = threadIdx.x & 31;
  const std::uint32_t begin = b.read_offsets[read];
  const ReadQuals q{b.base_quals + begin, b.ins_quals + begin, b.del_quals + begin,
                    b.gcp_quals + begin, static_cast<int>(b.read_offsets[read + 1] - begin)};
  const QualityTables& t = *b.tables;
  double h_min = HUGE_VAL, h_max = 0.0, gap_max = 0.0;
  bool usable = true;
  for (int i = lane + 1; i <= q.length; i += 32) {
    const UnitRowF row = unit_row_f32(t, q, i);
    float4* out = coefficients + 2 * static_cast<std::size_t>(begin + i - 1);
    out[0] = make_float4(row.match, row.mismatch, row.u, row.v);
    out[1] = make_float4(row.c, row.d, 0.0f, 0.0f);
    usable = usable && unit_row_usable(t, q, i);
    const double h = unit_h(t, q, i);
    h_min = fmin(h_min, h);
    h_max = fmax(h_max, h);
    gap_max = fmax(gap_max, t.error[q.gcp[i - 1] & 127]);
  }
  h_min = subwarp_min<32>(0xffffffffu, h_min);
  h_max = subwarp_max<32>(0xffffffffu, h_max);
  gap_max = subwarp_max<32>(0xffffffffu, gap_max);
  const bool all = __all_sync(0xffffffffu, usable) && h_min > 0.0 && gap_max < 1.0;
  if (lane == 0) {
    const int exponent = all ? unit_fp32_exponent(h_min, h_max, gap_max) : 0;
    exponents[read] = exponent >= kMinFp32Exponent ? exponent : 0;
    carry[read] = unit_row_f32(t, q, q.length + 1).c;
  }
}

// One block per haplotype: kHapPad separators, then its codes; the last block writes the trailing
// separators.
__global__ void encode_haplotypes_kernel(const char* bases, const std::uint32_t* base_offsets,
                                         std::uint32_t haplotypes, std::uint8_t* codes,
                                         const std::uint32_t* starts, std::uint32_t padded_size) {
  const std::uint32_t h = blockIdx.x;
  if (h == haplotypes) {
    for (std::uint32_t p = padded_size - kHapPad + threadIdx.x; p < padded_size; p += blockDim.x) {
      codes[p] = pairhmm::kCodeSeparator;
    }
    return;
  }
  const std::uint32_t start = starts[h];
  const std::uint32_t begin = base_offsets[h], length = base_offsets[h + 1] - begin;
  for (std::uint32_t p = threadIdx.x; p < kHapPad; p += blockDim.x)
    codes[start - kHapPad + p] = pairhmm::kCodeSeparator;
  for (std::uint32_t p = threadIdx.x; p < length; p += blockDim.x) {
    codes[start + p] = pairhmm::base_code(static_cast<unsigned char>(bases[begin + p]));
  }
}

// Word p: the codes of positions p .. p + 3, one per byte, separators past the end.
__global__ void code_words_kernel(const std::uint8_t* codes, std::uint32_t padded_size,
                                  std::uint32_t* words) {
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= padded_size) return;
  std::uint32_t word = 0;
#pragma unroll
  for (std::uint32_t k = 0; k < 4; ++k) {
    const std::uint32_t code = p + k < padded_size ? codes[p + k] : pairhmm::kCodeSeparator;
    word |= code << (8 * k);
  }
  words[p] = word;
}

}  // namespace

void launch_prepare_reads(const DeviceBatch& batch, std::uint32_t reads, float4* coefficients,
                          int* exponents, float* carry, cudaStream_t stream) {
  if (reads == 0) return;
  constexpr std::uint32_t per_block = kPrepareThreads / 32;
  prepare_reads_kernel<<<(reads + per_block - 1) / per_block, kPrepareThreads, 0, stream>>>(
      batch, reads, coefficients, exponents, carry);
  cuda::check_launch("pairhmm prepare_reads");
}

void launch_encode_haplotypes(const char* bases, const std::uint32_t* base_offsets,
                              std::uint32_t haplotypes, std::uint8_t* codes, std::uint32_t* words,
                              const std::uint32_t* starts, std::uint32_t padded_size,
                              cudaStream_t stream) {
  encode_haplotypes_kernel<<<haplotypes + 1, 128, 0, stream>>>(bases, base_offsets, haplotypes,
                                                               codes, starts, padded_size);
  cuda::check_launch("pairhmm encode_haplotypes");
  code_words_kernel<<<(padded_size + 255) / 256, 256, 0, stream>>>(codes, padded_size, words);
  cuda::check_launch("pairhmm code words");
}

}  // namespace gpp::kernels::pairhmm_cuda
