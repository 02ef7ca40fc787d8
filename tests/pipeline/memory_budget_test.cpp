// The sizes --max-memory takes and the shares of it the GPU's page-locked BAM buffers are given:
// the decoder a sixteenth in whole 32 MiB parts (2 to 16, none under 1 GiB), the encoder an
// eighth up to 1 GiB; on the CPU backend the whole limit is the work's.
#include "pipeline/memory_budget.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "core/error.hpp"

namespace gpp::pipeline {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(MemoryBudget, SizesParseWithTheirUnits) {
  EXPECT_EQ(parse_memory_size("8G"), 8 * kGiB);
  EXPECT_EQ(parse_memory_size("768m"), 768 * kMiB);
  EXPECT_EQ(parse_memory_size("512K"), 512 * 1024u);
  EXPECT_EQ(parse_memory_size("1.5G"), 3 * kGiB / 2);
  EXPECT_EQ(parse_memory_size("1000"), 1000u);
  EXPECT_THROW(parse_memory_size("8X"), Error);
  EXPECT_THROW(parse_memory_size("0"), Error);
  EXPECT_THROW(parse_memory_size("G"), Error);
}

TEST(MemoryBudget, DecoderTakesASixteenthInWholeParts) {
  EXPECT_EQ(decoder_host_bytes(512 * kMiB), 0u);       // under 1 GiB: the CPU inflates
  EXPECT_EQ(decoder_host_bytes(1 * kGiB), 64 * kMiB);  // 2 parts of 32 MiB
  EXPECT_EQ(decoder_host_bytes(3 * kGiB), 192 * kMiB);
  EXPECT_EQ(decoder_host_bytes(8 * kGiB), 512 * kMiB);  // 16 parts: the most
  EXPECT_EQ(decoder_host_bytes(64 * kGiB), 512 * kMiB);
}

TEST(MemoryBudget, EncoderTakesAnEighthUpToOneGiB) {
  EXPECT_EQ(encoder_host_bytes(512 * 1024), 64 * 1024u);
  EXPECT_EQ(encoder_host_bytes(2 * kGiB), 256 * kMiB);
  EXPECT_EQ(encoder_host_bytes(8 * kGiB), 1 * kGiB);
  EXPECT_EQ(encoder_host_bytes(100 * kGiB), 1 * kGiB);
}

TEST(MemoryBudget, TheCpuBackendKeepsTheWholeLimit) {
  CommonOptions common;
  common.max_memory = "8G";
  common.device = "cpu";
  common.gpu_write = true;
  EXPECT_EQ(memory_limit(common), 8 * kGiB);
  EXPECT_EQ(memory_budget(common), 8 * kGiB);
}

}  // namespace
}  // namespace gpp::pipeline
