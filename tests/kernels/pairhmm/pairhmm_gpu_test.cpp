// PairHMM on the GPU: every pair against the double reference (golden, random, long reads through
// the multi-tile kernel, underflowing pairs through the fp64 kernel) and against the CPU backend
// on the pairhmm_bench batches. Every suite skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "io/text/pairhmm_batch_file.hpp"
#include "kernels/pairhmm/pairhmm.hpp"
#include "tests/kernels/pairhmm/pairhmm_test_support.hpp"
#include "tests/test_support.hpp"

namespace gpp::kernels {
namespace {

using test::pairhmm_reference;
using test::pairhmm_within;
using test::random_pairhmm_batch;
using test::RandomBatchOptions;

constexpr double kTolerance = 1e-5;

using PairHmmGpu = ::gpp::test::GpuTest;

TEST_F(PairHmmGpu, MatchesAllGatkGoldenCasesInBothPrecisions) {
  const auto cases = test::load_pairhmm_golden();
  const auto batch = test::golden_batch(cases);
  for (auto precision : {PairHmmPrecision::kFloat, PairHmmPrecision::kDouble}) {
    PairHmm hmm(Backend::kGpu, precision);
    const auto actual = hmm.compute(batch.view());
    ASSERT_EQ(actual.size(), cases.size());
    for (std::size_t k = 0; k < cases.size(); ++k)
      EXPECT_NEAR(actual[k], cases[k].expected, kTolerance) << k;
    EXPECT_EQ(hmm.stats().double_pairs, precision == PairHmmPrecision::kDouble ? 104u : 0u);
  }
}

TEST_F(PairHmmGpu, MatchesReferenceOnRandomRegionsOfEveryLengthBin) {
  RandomBatchOptions o;
  o.groups = 60;
  o.max_reads = 20;
  o.max_read_length = 700;  // every single-tile bin and the first multi-tile reads
  o.min_haplotype_length = 700;
  o.max_haplotype_length = 900;
  o.seed = 31;
  const auto batch = random_pairhmm_batch(o);
  PairHmm hmm(Backend::kGpu);
  EXPECT_TRUE(pairhmm_within(batch.view(), hmm.compute(batch.view()),
                             pairhmm_reference(batch.view()), kTolerance));
}

TEST_F(PairHmmGpu, MatchesReferenceOnHaplotypeCallerLikeQualities) {
  RandomBatchOptions o;
  o.groups = 40;
  o.min_reads = 10;
  o.max_reads = 60;
  o.min_read_length = 50;
  o.max_read_length = 250;
  o.min_haplotype_length = 150;
  o.max_haplotype_length = 400;
  o.min_qual = 6;
  o.max_qual = 45;
  o.constant_gap_quals = true;
  o.seed = 32;
  const auto batch = random_pairhmm_batch(o);
  PairHmm hmm(Backend::kGpu);
  EXPECT_TRUE(pairhmm_within(batch.view(), hmm.compute(batch.view()),
                             pairhmm_reference(batch.view()), kTolerance));
}

TEST_F(PairHmmGpu, LongReadsThroughTheMultiTileKernel) {
  RandomBatchOptions o;
  o.groups = 4;
  o.min_reads = 2;
  o.max_reads = 5;
  o.max_haplotypes = 2;
  o.min_read_length = 600;
  o.max_read_length = 2000;
  o.min_haplotype_length = 2000;
  o.max_haplotype_length = 3000;
  o.min_qual = 20;  // likelihoods that fp32 (multi-tile) takes
  o.related_fraction = 1.0;
  o.error_rate = 0.002;
  o.seed = 33;
  auto batch = random_pairhmm_batch(o);
  // and two reads of 10,000 bases (20 tiles) against a 12,000-base haplotype
  RandomBatchOptions big = o;
  big.groups = 1;
  big.min_reads = big.max_reads = 2;
  big.min_haplotypes = big.max_haplotypes = 1;
  big.min_read_length = big.max_read_length = 10000;
  big.min_haplotype_length = big.max_haplotype_length = 12000;
  big.min_qual = 30;
  big.related_fraction = 1.0;
  big.seed = 34;
  batch.append(random_pairhmm_batch(big).view());
  PairHmm hmm(Backend::kGpu);
  EXPECT_TRUE(pairhmm_within(batch.view(), hmm.compute(batch.view()),
                             pairhmm_reference(batch.view()), kTolerance));
}

TEST_F(PairHmmGpu, UnderflowingPairsAreRecomputedInFp64) {
  RandomBatchOptions o;
  o.groups = 6;
  o.min_reads = 2;
  o.max_reads = 6;
  o.min_read_length = 100;
  o.max_read_length = 1500;
  o.min_haplotype_length = 100;
  o.max_haplotype_length = 1500;
  o.min_qual = 30;
  o.max_qual = 60;
  o.related_fraction = 0.3;
  o.seed = 35;
  const auto batch = random_pairhmm_batch(o);
  PairHmm hmm(Backend::kGpu);
  const auto actual = hmm.compute(batch.view());
  EXPECT_TRUE(pairhmm_within(batch.view(), actual, pairhmm_reference(batch.view()), kTolerance));
  EXPECT_GT(hmm.stats().double_pairs, 0u);
  for (double x : actual) EXPECT_TRUE(std::isfinite(x));
}

TEST_F(PairHmmGpu, DoublePrecisionMatchesReference) {
  RandomBatchOptions o;
  o.groups = 20;
  o.max_read_length = 1200;
  o.seed = 36;
  const auto batch = random_pairhmm_batch(o);
  PairHmm hmm(Backend::kGpu, PairHmmPrecision::kDouble);
  const auto actual = hmm.compute(batch.view());
  EXPECT_TRUE(pairhmm_within(batch.view(), actual, pairhmm_reference(batch.view()), 1e-9));
  EXPECT_EQ(hmm.stats().double_pairs, actual.size());
}

TEST_F(PairHmmGpu, EdgeCasesShortSequencesNsAndLowQualities) {
  const PairHmmBatch batch = test::edge_case_batch();
  for (auto precision : {PairHmmPrecision::kFloat, PairHmmPrecision::kDouble}) {
    PairHmm hmm(Backend::kGpu, precision);
    EXPECT_TRUE(pairhmm_within(batch.view(), hmm.compute(batch.view()),
                               pairhmm_reference(batch.view()), kTolerance));
  }
}

TEST_F(PairHmmGpu, EqualsCpuOnThePairHmmBenchBatches) {
  for (const char* name : {"pairhmm_bench/10s.in", "pairhmm_bench/1m.in"}) {
    PairHmmBatch batch;
    io::read_pairhmm_batch_file(test::data_path(name), batch);
    PairHmm gpu(Backend::kGpu), cpu(Backend::kCpu);
    const auto on_gpu = gpu.compute(batch.view());
    const auto on_cpu = cpu.compute(batch.view());
    EXPECT_TRUE(pairhmm_within(batch.view(), on_gpu, on_cpu, kTolerance)) << name;
  }
}

TEST_F(PairHmmGpu, ManyChunksReusedEngineAndUnorderedGroups) {
  PairHmmBatch one;
  io::read_pairhmm_batch_file(test::data_path("pairhmm_bench/1m.in"), one);
  PairHmmBatch four;  // 1.7 G cells: several chunks through both slots
  for (int k = 0; k < 4; ++k) four.append(one.view());
  PairHmm gpu(Backend::kGpu), cpu(Backend::kCpu);
  const auto expected_one = cpu.compute(one.view());
  for (int round = 0; round < 2; ++round) {
    const auto actual = gpu.compute(four.view());
    ASSERT_EQ(actual.size(), 4 * expected_one.size());
    for (int k = 0; k < 4; ++k) {
      const std::vector<double> part(actual.begin() + k * expected_one.size(),
                                     actual.begin() + (k + 1) * expected_one.size());
      EXPECT_TRUE(pairhmm_within(one.view(), part, expected_one, kTolerance)) << "copy " << k;
    }
  }
  // The same batch in page-locked memory: copied to the GPU without staging.
  PairHmmBatch locked(true);
  locked.append(four.view());
  EXPECT_TRUE(detail::is_page_locked(locked.view().reads.bases.data()));
  const auto from_locked = gpu.compute(locked.view());
  EXPECT_TRUE(pairhmm_within(four.view(), from_locked, gpu.compute(four.view()), 0.0));
  // Groups listed in reverse order: the engine reorders, results follow the group order.
  const auto view = one.view();
  std::vector<PairHmmGroup> reversed(view.groups.rbegin(), view.groups.rend());
  PairHmmBatchView reversed_view = view;
  reversed_view.groups = reversed;
  const auto actual = gpu.compute(reversed_view);
  EXPECT_TRUE(pairhmm_within(reversed_view, actual, cpu.compute(reversed_view), kTolerance));
}

TEST_F(PairHmmGpu, EmptyReadOrHaplotypeInALaterChunkIsAnError) {
  // The engine checks each chunk's offsets just before packing it: an empty read in the last
  // chunk, or after the last region, must still be an error, and the engine must stay usable.
  PairHmmBatch one;
  io::read_pairhmm_batch_file(test::data_path("pairhmm_bench/1m.in"), one);
  PairHmmBatch four;
  for (int k = 0; k < 4; ++k) four.append(one.view());
  const auto view = four.view();
  PairHmm gpu(Backend::kGpu);
  const auto expected = gpu.compute(view);
  const auto with_offsets = [&](std::vector<std::uint32_t>& reads,
                                std::vector<std::uint32_t>& haps) {
    PairHmmBatchView bad = view;
    bad.reads.offsets = reads;
    bad.haplotypes.offsets = haps;
    return bad;
  };
  std::vector<std::uint32_t> reads(view.reads.offsets.begin(), view.reads.offsets.end());
  std::vector<std::uint32_t> haps(view.haplotypes.offsets.begin(), view.haplotypes.offsets.end());
  auto empty_read = reads;
  empty_read[empty_read.size() - 3] = empty_read[empty_read.size() - 4];  // the third-last read
  EXPECT_THROW(gpu.compute(with_offsets(empty_read, haps)), Error);
  auto decreasing_hap = haps;
  decreasing_hap[decreasing_hap.size() - 2] = decreasing_hap[decreasing_hap.size() - 3] - 1;
  EXPECT_THROW(gpu.compute(with_offsets(reads, decreasing_hap)), Error);
  // Without the last region, that read may lie after every region: it is checked too.
  PairHmmBatchView after_last = with_offsets(empty_read, haps);
  after_last.groups = view.groups.first(view.groups.size() - 1);
  EXPECT_THROW(gpu.compute(after_last), Error);
  EXPECT_TRUE(pairhmm_within(view, gpu.compute(view), expected, 0.0));
}

}  // namespace
}  // namespace gpp::kernels
