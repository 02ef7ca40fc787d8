// The two counting methods of count_covariates (dense histograms; packed keys sorted and reduced
// by runs) give byte-identical reports on the CPU and, where a GPU is present, on the GPU: the
// GPU kernels without indel tables, CPU keys with the GPU sort with them.
#include <gtest/gtest.h>

#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "tests/stages/bqsr/bqsr_inputs.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::bqsr {
namespace {

using Input = test::BqsrInput;

std::string report(const Input& in, const CountingOptions& counting) {
  const RecalTables tables =
      count_covariates(in.reads, in.header, in.genome, CovariateOptions{}, counting);
  return format_recalibration_report(tables, read_group_keys(in.header).identifiers);
}

std::vector<Input> inputs() { return test::bqsr_inputs(); }

TEST(BqsrCounting, SortReduceEqualsDenseOnCpu) {
  for (const Input& in : inputs()) {
    for (const bool indels : {false, true}) {
      const std::string dense = report(in, {.indel_tables = indels});
      const std::string sorted =
          report(in, {.indel_tables = indels, .method = CountingMethod::kSortReduce});
      EXPECT_GT(dense.size(), 50000u);
      EXPECT_TRUE(dense == sorted) << "indels " << indels;
    }
  }
}

using BqsrCountingGpu = ::gpp::test::GpuTest;

TEST_F(BqsrCountingGpu, GpuTablesEqualCpuTables) {
  for (const Input& in : inputs()) {
    for (const bool indels : {false, true}) {
      const std::string cpu = report(in, {.indel_tables = indels});
      for (const CountingMethod method : {CountingMethod::kDense, CountingMethod::kSortReduce}) {
        const std::string gpu = report(
            in, {.indel_tables = indels, .method = method, .backend = kernels::Backend::kGpu});
        EXPECT_TRUE(cpu == gpu) << in.name << " indels " << indels << " sort-reduce "
                                << (method == CountingMethod::kSortReduce);
      }
    }
  }
}

}  // namespace
}  // namespace gpp::stages::bqsr
