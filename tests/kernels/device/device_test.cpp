// Device layer: --device resolution with and without a GPU.
#include "kernels/device/device.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "gpp/build_info.hpp"
#include "tests/test_support.hpp"

namespace gpp::kernels {
namespace {

TEST(Device, ParsesChoices) {
  EXPECT_EQ(parse_device_choice("auto"), DeviceChoice::kAuto);
  EXPECT_EQ(parse_device_choice("gpu"), DeviceChoice::kGpu);
  EXPECT_EQ(parse_device_choice("cpu"), DeviceChoice::kCpu);
  EXPECT_THROW(parse_device_choice("tpu"), Error);
}

TEST(Device, CpuIsAlwaysCpu) { EXPECT_EQ(resolve_backend(DeviceChoice::kCpu), Backend::kCpu); }

TEST(Device, AutoFollowsDetection) {
  const bool has_gpu = !detect_gpus().empty();
  EXPECT_EQ(resolve_backend(DeviceChoice::kAuto), has_gpu ? Backend::kGpu : Backend::kCpu);
  EXPECT_EQ(gpu_unavailable_reason().empty(), has_gpu);
}

TEST(Device, GpuWithoutGpuThrows) {
  if (!detect_gpus().empty()) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW(resolve_backend(DeviceChoice::kGpu), Error);
}

using DeviceGpu = ::gpp::test::GpuTest;

TEST_F(DeviceGpu, ReportsNameAndMemory) {
  const auto gpus = detect_gpus();
  if (gpus.empty()) GTEST_SKIP() << "no GPU";
  EXPECT_TRUE(build_info::kWithCuda);
  EXPECT_FALSE(gpus[0].name.empty());
  EXPECT_GT(gpus[0].total_memory_bytes, std::size_t{1} << 30);
  EXPECT_GE(gpus[0].compute_capability_major, 7);
  EXPECT_EQ(resolve_backend(DeviceChoice::kGpu), Backend::kGpu);
  EXPECT_FALSE(cuda_driver_version().empty());
}

}  // namespace
}  // namespace gpp::kernels
