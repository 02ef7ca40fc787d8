// --gpu-write: BAM output compressed by the block encoder (kernels/bgzf_deflate) holds the same
// records as the default output, reads back with samtools, and gets the index samtools would
// build for it; the GPU writes the same bytes as the CPU.
#include <gtest/gtest.h>

#include "tests/test_support.hpp"

namespace gpp::test {
namespace {

std::string records(const std::string& bam) {
  const auto r = run_command("samtools view " + shell_quote(bam));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

void sort_to(const std::string& output, const std::string& extra) {
  const auto r =
      run_command(shell_quote(binary_path()) + " sort --verbosity ERROR -I " +
                  shell_quote(data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam")) +
                  " -O " + shell_quote(output) + extra);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(GpuWrite, BlockEncodedBamHoldsTheSameRecordsAndIndex) {
  TempDir dir;
  sort_to(dir.file("default.bam"), " --device cpu");
  sort_to(dir.file("block.bam"), " --device cpu --gpu-write");
  EXPECT_EQ(run_command("samtools quickcheck " + shell_quote(dir.file("block.bam"))).exit_code, 0);
  const std::string expected = records(dir.file("default.bam"));
  EXPECT_GT(expected.size(), 1000000u);
  EXPECT_TRUE(records(dir.file("block.bam")) == expected);
  EXPECT_NE(test::read_file(dir.file("block.bam")),
            test::read_file(dir.file("default.bam")));  // another encoder
  ASSERT_EQ(run_command("samtools index -o " + shell_quote(dir.file("samtools.bai")) + " " +
                        shell_quote(dir.file("block.bam")))
                .exit_code,
            0);
  EXPECT_TRUE(test::read_file(dir.file("block.bam.bai")) ==
              test::read_file(dir.file("samtools.bai")));
}

using GpuWriteGpu = ::gpp::test::GpuTest;

TEST_F(GpuWriteGpu, GpuWritesTheCpuBytes) {
  // The same command line (it goes into the @PG header line) in two directories; hiding the GPU
  // makes --device auto run the encoder on the CPU.
  TempDir cpu, gpu;
  const std::string command =
      shell_quote(binary_path()) + " sort --verbosity ERROR --gpu-write -I " +
      shell_quote(data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam")) +
      " -O out.bam";
  ASSERT_EQ(
      run_command("cd " + shell_quote(cpu.path().string()) + " && CUDA_VISIBLE_DEVICES= " + command)
          .exit_code,
      0);
  ASSERT_EQ(run_command("cd " + shell_quote(gpu.path().string()) + " && " + command).exit_code, 0);
  const std::string cpu_bam = test::read_file(cpu.file("out.bam"));
  EXPECT_GT(cpu_bam.size(), 1000000u);
  EXPECT_TRUE(test::read_file(gpu.file("out.bam")) == cpu_bam);
  EXPECT_TRUE(test::read_file(gpu.file("out.bam.bai")) == test::read_file(cpu.file("out.bam.bai")));
}

}  // namespace
}  // namespace gpp::test
