// The GPP_PAIRHMM_* and GPP_SW_* variables reach the engines' tuning; unset, the defaults stay.
#include "pipeline/tuning_overrides.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace gpp::pipeline {
namespace {

TEST(TuningOverrides, UnsetVariablesLeaveTheDefaults) {
  for (const char* name :
       {"GPP_PAIRHMM_CPU_SIMD", "GPP_PAIRHMM_CHUNKS", "GPP_PAIRHMM_TILES", "GPP_PAIRHMM_PROFILE",
        "GPP_SW_CPU_ISA", "GPP_SW_GPU_BUDGET_MB", "GPP_SW_PROFILE"}) {
    ::unsetenv(name);
  }
  const kernels::PairHmmTuning hmm = pairhmm_tuning();
  EXPECT_EQ(hmm.cpu_simd, "avx512");
  EXPECT_EQ(hmm.gpu_item_columns, 256u);
  EXPECT_EQ(hmm.gpu_chunk_divisor, 6u);
  EXPECT_EQ(hmm.gpu_first_chunk_divisor, 32u);
  EXPECT_EQ(hmm.gpu_bin_streams, 4);
  EXPECT_FALSE(hmm.gpu_narrow_tiles);
  EXPECT_EQ(hmm.gpu_profile, 0);
  const kernels::SwTuning sw = smith_waterman_tuning();
  EXPECT_EQ(sw.cpu_isa, "avx512");
  EXPECT_EQ(sw.gpu_chunk_bytes, 0u);
  EXPECT_EQ(sw.gpu_max_pair_bytes, 0u);
  EXPECT_FALSE(sw.profile);
}

TEST(TuningOverrides, VariablesOverrideTheirSetting) {
  ::setenv("GPP_PAIRHMM_CPU_SIMD", "avx2", 1);
  ::setenv("GPP_PAIRHMM_ITEM_COLUMNS", "1", 1);
  ::setenv("GPP_PAIRHMM_CHUNKS", "8", 1);
  ::setenv("GPP_PAIRHMM_FIRST_CHUNK", "not a number", 1);
  ::setenv("GPP_PAIRHMM_BIN_STREAMS", "2", 1);
  ::setenv("GPP_PAIRHMM_TILES", "narrow", 1);
  ::setenv("GPP_PAIRHMM_PROFILE", "2", 1);
  ::setenv("GPP_SW_CPU_ISA", "scalar", 1);
  ::setenv("GPP_SW_GPU_BUDGET_MB", "100", 1);
  ::setenv("GPP_SW_GPU_MAX_PAIR_MB", "64", 1);
  ::setenv("GPP_SW_PROFILE", "1", 1);
  const kernels::PairHmmTuning hmm = pairhmm_tuning();
  const kernels::SwTuning sw = smith_waterman_tuning();
  for (const char* name : {"GPP_PAIRHMM_CPU_SIMD", "GPP_PAIRHMM_ITEM_COLUMNS", "GPP_PAIRHMM_CHUNKS",
                           "GPP_PAIRHMM_FIRST_CHUNK", "GPP_PAIRHMM_BIN_STREAMS",
                           "GPP_PAIRHMM_TILES", "GPP_PAIRHMM_PROFILE", "GPP_SW_CPU_ISA",
                           "GPP_SW_GPU_BUDGET_MB", "GPP_SW_GPU_MAX_PAIR_MB", "GPP_SW_PROFILE"}) {
    ::unsetenv(name);
  }
  EXPECT_EQ(hmm.cpu_simd, "avx2");
  EXPECT_EQ(hmm.gpu_item_columns, 1u);
  EXPECT_EQ(hmm.gpu_chunk_divisor, 8u);
  EXPECT_EQ(hmm.gpu_first_chunk_divisor, 32u);  // not a number: the default stays
  EXPECT_EQ(hmm.gpu_bin_streams, 2);
  EXPECT_TRUE(hmm.gpu_narrow_tiles);
  EXPECT_EQ(hmm.gpu_profile, 2);
  EXPECT_EQ(sw.cpu_isa, "scalar");
  EXPECT_EQ(sw.gpu_chunk_bytes, std::uint64_t{100} << 20);
  EXPECT_EQ(sw.gpu_max_pair_bytes, std::uint64_t{64} << 20);
  EXPECT_TRUE(sw.profile);
}

}  // namespace
}  // namespace gpp::pipeline
