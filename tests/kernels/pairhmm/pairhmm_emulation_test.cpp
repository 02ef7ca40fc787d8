// The CUDA kernels' wavefronts run on the CPU (pairhmm_cuda_emulation.cu): the fp32 tile and
// multi-tile logic and the fp64 kernel's tiles and rescaling, checked against the reference on a
// machine without a GPU. (CUDA builds only: the emulation compiles the kernels' device code.)
#ifdef GPP_WITH_CUDA
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/pairhmm/detail/backends.hpp"
#include "kernels/pairhmm/detail/pairhmm_model.hpp"
#include "kernels/pairhmm/pairhmm.hpp"
#include "tests/kernels/pairhmm/pairhmm_test_support.hpp"

namespace gpp::kernels {
namespace {

using test::pairhmm_reference;
using test::pairhmm_within;
using test::random_pairhmm_batch;
using test::RandomBatchOptions;

constexpr double kTolerance = 1e-5;

// The CUDA kernels' wavefront run on the CPU (tile shapes of both forms; tiles of 32-64 rows make
// most reads cross tile boundaries): equal to the reference wherever fp32 takes the pair.
// Qualities from 6: below that, insertion and deletion qualities can make t_MM zero, and such
// reads go to the fp64 kernel as a whole.
TEST(PairHmm, CudaWavefrontEmulationMatchesReference) {
  RandomBatchOptions o;
  o.groups = 10;
  o.max_reads = 6;
  o.max_read_length = 300;
  o.min_qual = 6;
  o.max_haplotypes = 1;  // reads come from their region's first haplotype: mostly fp32 pairs
  o.related_fraction = 0.9;
  o.seed = 16;
  const auto batch = random_pairhmm_batch(o);
  const auto expected = pairhmm_reference(batch.view());
  struct Shape {
    int threads, rows;
    bool fused;
  };
  for (const Shape shape : {Shape{4, 8, false}, Shape{8, 14, false}, Shape{2, 16, true},
                            Shape{3, 20, true}, Shape{16, 16, true}}) {
    auto actual = detail::pairhmm_emulate_cuda_wavefront(batch.view(), shape.threads, shape.rows,
                                                         shape.fused);
    ASSERT_EQ(actual.size(), expected.size());
    std::size_t recomputed = 0;
    for (std::size_t k = 0; k < actual.size(); ++k) {
      if (std::isnan(
              actual[k])) {  // the GPU sends these to fp64: only likelihoods below fp32's reach
        EXPECT_LT(expected[k], -55.0) << k;
        actual[k] = expected[k];
        ++recomputed;
      }
    }
    EXPECT_LT(recomputed, actual.size() / 2);
    EXPECT_TRUE(pairhmm_within(batch.view(), actual, expected, kTolerance))
        << shape.threads << "x" << shape.rows << (shape.fused ? " fused" : "");
  }
}

// The fp64 kernel run on the CPU: GATK's coefficients through the same wavefront, tiles of 32
// rows with the boundary rescaled between them, also for pairs far below the double range.
TEST(PairHmm, CudaFp64EmulationMatchesReference) {
  RandomBatchOptions o;
  o.groups = 6;
  o.max_reads = 4;
  o.max_read_length = 500;
  o.seed = 18;
  auto batch = random_pairhmm_batch(o);
  RandomBatchOptions far = o;  // unrelated Q60 reads: log10 likelihoods in the thousands
  far.groups = 1;
  far.min_reads = far.max_reads = 2;
  far.min_read_length = 1500;
  far.max_read_length = 1600;
  far.min_qual = 55;
  far.related_fraction = 0.0;
  far.seed = 19;
  batch.append(random_pairhmm_batch(far).view());
  const auto expected = pairhmm_reference(batch.view());
  EXPECT_LT(*std::min_element(expected.begin(), expected.end()), -400.0);
  auto actual = detail::pairhmm_emulate_cuda_fp64(batch.view());
  for (std::size_t k = 0; k < actual.size(); ++k) {
    // Below kDoubleExactLog10 the engine recomputes on the host: the kernel only has to say so.
    if (expected[k] < pairhmm::kDoubleExactLog10) {
      EXPECT_LT(actual[k], pairhmm::kDoubleExactLog10 + 50) << k;
      actual[k] = expected[k];
    }
  }
  EXPECT_TRUE(pairhmm_within(batch.view(), actual, expected, 1e-9));
}

}  // namespace
}  // namespace gpp::kernels
#endif  // GPP_WITH_CUDA
