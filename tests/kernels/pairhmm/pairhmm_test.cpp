// PairHMM on the CPU: the double reference against GATK's golden values, the fp32 engine against
// the reference on golden, random, long and underflowing inputs, and the batch API's errors.
#include "kernels/pairhmm/pairhmm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "core/error.hpp"
#include "kernels/pairhmm/detail/pairhmm_model.hpp"
#include "tests/kernels/pairhmm/pairhmm_test_support.hpp"

namespace gpp::kernels {
namespace {

using test::pairhmm_reference;
using test::pairhmm_within;
using test::random_pairhmm_batch;
using test::RandomBatchOptions;

constexpr double kTolerance = 1e-5;  // GATK's and GKL's PairHMM test tolerance (log10)

TEST(PairHmm, ReferenceMatchesAllGatkGoldenCases) {
  const auto cases = test::load_pairhmm_golden();
  ASSERT_EQ(cases.size(), 104u);
  for (const auto& c : cases) {
    const double actual = pairhmm_reference_log10(c.read, c.base_quals, c.ins_quals, c.del_quals,
                                                  c.gcp_quals, c.haplotype);
    EXPECT_NEAR(actual, c.expected, kTolerance) << c.read << " vs " << c.haplotype;
  }
}

TEST(PairHmm, GklSimpleCase) {
  // GKL PairHmmUnitTest.simpleTest: "ACGT" against itself, every quality Q43 ('+' without -33).
  const std::vector<std::uint8_t> q(4, 43);
  EXPECT_NEAR(pairhmm_reference_log10("ACGT", q, q, q, q, "ACGT"), -0.6022797, kTolerance);
  PairHmmBatch batch;
  batch.add_read("ACGT", q, q, q, q);
  batch.add_haplotype("ACGT");
  batch.end_group();
  EXPECT_NEAR(PairHmm(Backend::kCpu).compute(batch.view())[0], -0.6022797, kTolerance);
}

TEST(PairHmm, CpuMatchesAllGatkGoldenCasesInBothPrecisions) {
  const auto cases = test::load_pairhmm_golden();
  const auto batch = test::golden_batch(cases);
  for (auto precision : {PairHmmPrecision::kFloat, PairHmmPrecision::kDouble}) {
    PairHmm hmm(Backend::kCpu, precision);
    const auto actual = hmm.compute(batch.view());
    ASSERT_EQ(actual.size(), cases.size());
    for (std::size_t k = 0; k < cases.size(); ++k) {
      EXPECT_NEAR(actual[k], cases[k].expected, kTolerance) << "case " << k;
    }
    EXPECT_EQ(hmm.stats().pairs, 104u);
    EXPECT_EQ(hmm.stats().double_pairs, precision == PairHmmPrecision::kDouble ? 104u : 0u);
  }
}

TEST(PairHmm, ResultLayoutIsGroupThenReadMajor) {
  // Two groups; every pair's value must equal its own reference at the documented index.
  RandomBatchOptions o;
  o.groups = 2;
  o.min_reads = 3;
  o.max_reads = 3;
  o.min_haplotypes = 2;
  o.max_haplotypes = 2;
  const auto batch = random_pairhmm_batch(o);
  const auto actual = PairHmm(Backend::kCpu).compute(batch.view());
  ASSERT_EQ(actual.size(), 12u);
  const auto& v = batch.view();
  const auto& g1 = v.groups[1];
  const std::uint32_t r = g1.first_read + 2, h = g1.first_haplotype + 1;
  const auto rb = v.reads.offsets[r], rn = v.reads.offsets[r + 1] - rb;
  const auto hb = v.haplotypes.offsets[h], hn = v.haplotypes.offsets[h + 1] - hb;
  const double expected = pairhmm_reference_log10(
      std::string_view(v.reads.bases.data() + rb, rn), v.reads.base_quals.subspan(rb, rn),
      v.reads.insertion_quals.subspan(rb, rn), v.reads.deletion_quals.subspan(rb, rn),
      v.reads.gap_continuation_quals.subspan(rb, rn),
      std::string_view(v.haplotypes.bases.data() + hb, hn));
  EXPECT_NEAR(actual[6 + 2 * 2 + 1], expected, kTolerance);
}

TEST(PairHmm, CpuFloatMatchesReferenceOnRandomRegions) {
  // Qualities 2-60 at random: many reads have t_MM = 0 somewhere and go to fp64 as a whole.
  RandomBatchOptions o;
  o.groups = 40;
  o.seed = 11;
  const auto batch = random_pairhmm_batch(o);
  PairHmm hmm(Backend::kCpu);
  const auto actual = hmm.compute(batch.view());
  EXPECT_TRUE(pairhmm_within(batch.view(), actual, pairhmm_reference(batch.view()), kTolerance));
  // Qualities 6-45, reads from their region's haplotype: the fp32 sweep takes most pairs.
  o.min_qual = 6;
  o.max_qual = 45;
  o.max_haplotypes = 1;
  o.related_fraction = 0.9;
  o.max_read_length = 700;
  o.min_haplotype_length = 700;  // reads fit in their haplotype
  o.max_haplotype_length = 900;
  o.error_rate = 0.005;
  o.seed = 17;
  const auto fp32_batch = random_pairhmm_batch(o);
  const auto fp32_actual = hmm.compute(fp32_batch.view());
  EXPECT_TRUE(pairhmm_within(fp32_batch.view(), fp32_actual, pairhmm_reference(fp32_batch.view()),
                             kTolerance));
  EXPECT_LT(hmm.stats().double_pairs, fp32_actual.size() / 2);
}

TEST(PairHmm, CpuFloatMatchesReferenceOnHaplotypeCallerLikeQualities) {
  RandomBatchOptions o;
  o.groups = 20;
  o.min_read_length = 50;
  o.max_read_length = 250;
  o.min_haplotype_length = 100;
  o.max_haplotype_length = 400;
  o.min_qual = 6;
  o.max_qual = 45;
  o.constant_gap_quals = true;
  o.seed = 12;
  const auto batch = random_pairhmm_batch(o);
  PairHmm hmm(Backend::kCpu);
  const auto actual = hmm.compute(batch.view());
  EXPECT_TRUE(pairhmm_within(batch.view(), actual, pairhmm_reference(batch.view()), kTolerance));
}

TEST(PairHmm, CpuFloatMatchesReferenceOnLongReads) {
  // Qualities from 20 (lower ones make long reads' likelihoods fall below what GKL's rule leaves
  // to fp32): these pairs go through the fp32 sweep, 500-2,000 rows deep.
  RandomBatchOptions o;
  o.groups = 3;
  o.min_reads = 2;
  o.max_reads = 5;
  o.max_haplotypes = 2;
  o.min_read_length = 500;
  o.max_read_length = 2000;
  o.min_haplotype_length = 2000;
  o.max_haplotype_length = 3000;
  o.min_qual = 20;
  o.related_fraction = 1.0;
  o.error_rate = 0.002;
  o.seed = 13;
  const auto batch = random_pairhmm_batch(o);
  PairHmm hmm(Backend::kCpu);
  const auto actual = hmm.compute(batch.view());
  EXPECT_TRUE(pairhmm_within(batch.view(), actual, pairhmm_reference(batch.view()), kTolerance));
  // Pairs with the haplotype each read came from stay in fp32; the other haplotype underflows.
  EXPECT_LT(hmm.stats().double_pairs, actual.size() * 3 / 4);
}

TEST(PairHmm, UnrelatedPairsUnderflowFloatButStayFinite) {
  RandomBatchOptions o;
  o.groups = 4;
  o.min_reads = 2;
  o.max_reads = 4;
  o.min_read_length = 100;
  o.max_read_length = 800;
  o.min_haplotype_length = 100;
  o.max_haplotype_length = 800;
  o.min_qual = 30;
  o.max_qual = 60;
  o.related_fraction = 0.0;
  o.seed = 14;
  const auto batch = random_pairhmm_batch(o);
  const auto expected = pairhmm_reference(batch.view());
  double lowest = 0;
  for (double x : expected) lowest = std::min(lowest, x);
  EXPECT_LT(lowest, -400.0);  // far below fp32 (and, unscaled, below double for the longest)
  PairHmm hmm(Backend::kCpu);
  const auto actual = hmm.compute(batch.view());
  EXPECT_TRUE(pairhmm_within(batch.view(), actual, expected, kTolerance));
  EXPECT_EQ(hmm.stats().double_pairs, actual.size());
}

TEST(PairHmm, ReferenceStaysFiniteFarBelowTheDoubleRange) {
  // 3,000 Q60 bases against a haplotype they all mismatch: the best explanation inserts the whole
  // read at t_II = 0.1 per base, log10 likelihood about -3,000; GATK would return -infinity.
  const std::string read(3000, 'A'), hap(500, 'C');
  const std::vector<std::uint8_t> q(3000, 60), gap(3000, 10);
  const double x = pairhmm_reference_log10(read, q, q, q, gap, hap);
  EXPECT_TRUE(std::isfinite(x));
  EXPECT_LT(x, -2900.0);
}

// An independent check of the reference far below the double range: the same recurrences in long
// double (15 more exponent bits), every row normalised to its maximum.
long double long_double_forward(const std::string& read, const std::vector<std::uint8_t>& q,
                                const std::vector<std::uint8_t>& gap_open,
                                const std::vector<std::uint8_t>& gcp, const std::string& hap) {
  const auto& t = pairhmm::quality_tables();
  const std::size_t m = read.size(), n = hap.size();
  std::vector<long double> pm(n + 1, 0), pi(n + 1, 0), pd(n + 1, 1.0L / n), cm(n + 1), ci(n + 1),
      cd(n + 1);
  long double log10_scale = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    const long double e = t.error[q[i - 1]], gap = t.error[gcp[i - 1]],
                      mi = t.error[gap_open[i - 1]];
    const long double mm = t.match_to_match[gap_open[i - 1] * 128 + gap_open[i - 1]];
    cm[0] = ci[0] = cd[0] = 0;
    long double top = 0;
    for (std::size_t j = 1; j <= n; ++j) {
      const bool same = read[i - 1] == hap[j - 1];
      cm[j] = (same ? 1 - e : e / 3) * (pm[j - 1] * mm + (pi[j - 1] + pd[j - 1]) * (1 - gap));
      ci[j] = pm[j] * mi + pi[j] * gap;
      cd[j] = cm[j - 1] * mi + cd[j - 1] * gap;
      top = std::max(top, std::max(cm[j], std::max(ci[j], cd[j])));
    }
    for (std::size_t j = 1; j <= n; ++j) {
      cm[j] /= top;
      ci[j] /= top;
      cd[j] /= top;
    }
    log10_scale += std::log10(top);
    std::swap(pm, cm);
    std::swap(pi, ci);
    std::swap(pd, cd);
  }
  long double sum = 0;
  for (std::size_t j = 1; j <= n; ++j) sum += pm[j] + pi[j];
  return std::log10(sum) + log10_scale;
}

TEST(PairHmm, ReferenceIsExactFarBelowTheDoubleRange) {
  std::mt19937 rng(5);
  for (int k = 0; k < 3; ++k) {
    std::string read(700 + 100 * k, 'A'), hap(300, 'A');
    for (auto& c : read) c = "ACGT"[rng() % 4];
    for (auto& c : hap) c = "ACGT"[rng() % 4];
    const std::vector<std::uint8_t> q(read.size(), 50), gap_open(read.size(), 55),
        gcp(read.size(), 50);
    const double x = pairhmm_reference_log10(read, q, gap_open, gap_open, gcp, hap);
    EXPECT_LT(x, -1000.0);
    EXPECT_NEAR(x, static_cast<double>(long_double_forward(read, q, gap_open, gcp, hap)), 1e-6)
        << k;
  }
}

TEST(PairHmm, EdgeCasesShortSequencesNsAndLowQualities) {
  const PairHmmBatch batch = test::edge_case_batch();
  for (auto precision : {PairHmmPrecision::kFloat, PairHmmPrecision::kDouble}) {
    const auto actual = PairHmm(Backend::kCpu, precision).compute(batch.view());
    EXPECT_TRUE(pairhmm_within(batch.view(), actual, pairhmm_reference(batch.view()), kTolerance));
  }
}

TEST(PairHmm, EverySimdWidthMatchesTheReference) {
  RandomBatchOptions o;
  o.groups = 12;
  o.max_reads = 20;
  o.seed = 15;
  const auto batch = random_pairhmm_batch(o);
  const auto expected = pairhmm_reference(batch.view());
  for (const char* level : {"generic", "avx2", "avx512"}) {
    PairHmmTuning tuning;
    tuning.cpu_simd = level;
    PairHmm hmm(Backend::kCpu, PairHmmPrecision::kAuto, tuning);
    EXPECT_TRUE(pairhmm_within(batch.view(), hmm.compute(batch.view()), expected, kTolerance))
        << level;
  }
}

TEST(PairHmm, PageLockedBatchesHoldTheSameData) {
  RandomBatchOptions o;
  o.groups = 3;
  o.seed = 24;
  const auto batch = random_pairhmm_batch(o);
  PairHmmBatch locked(true);  // without a GPU driver: ordinary memory, same behaviour
  locked.append(batch.view());
  const auto a = PairHmm(Backend::kCpu).compute(batch.view());
  const auto b = PairHmm(Backend::kCpu).compute(locked.view());
  EXPECT_EQ(a, b);
  locked.clear();
  EXPECT_EQ(locked.view().pair_count(), 0u);
}

TEST(PairHmm, EngineIsReusableAcrossBatches) {
  PairHmm hmm(Backend::kCpu);
  for (std::uint64_t seed : {21, 22, 23}) {
    RandomBatchOptions o;
    o.groups = 5;
    o.seed = seed;
    const auto batch = random_pairhmm_batch(o);
    EXPECT_TRUE(pairhmm_within(batch.view(), hmm.compute(batch.view()),
                               pairhmm_reference(batch.view()), kTolerance));
  }
}

TEST(PairHmm, InvalidBatchesAreClearErrors) {
  const std::vector<std::uint8_t> q3(3, 30), q2(2, 30);
  PairHmmBatch batch;
  EXPECT_THROW(batch.add_read("ACG", q3, q3, q2, q3), Error);
  EXPECT_THROW(batch.add_read("", {}, {}, {}, {}), Error);
  EXPECT_THROW(batch.add_haplotype(""), Error);
  batch.add_read("ACG", q3, q3, q3, q3);
  EXPECT_THROW(batch.end_group(), Error);  // reads without haplotypes

  const std::vector<std::uint32_t> read_offsets{0, 3}, hap_offsets{0, 2};
  const std::string bases = "ACG", hap = "AC";
  const std::vector<PairHmmGroup> bad_group{{0, 2, 0, 1}};
  PairHmmBatchView view;
  view.reads = {bases, q3, q3, q3, q3, read_offsets};
  view.haplotypes = {hap, hap_offsets};
  view.groups = bad_group;
  PairHmm hmm(Backend::kCpu);
  EXPECT_THROW(hmm.compute(view), Error);
  const std::vector<std::uint32_t> empty_read{0, 0, 3};
  view.reads.offsets = empty_read;
  EXPECT_THROW(hmm.compute(view), Error);
  EXPECT_THROW(parse_pairhmm_precision("half"), Error);
}

TEST(PairHmm, GpuWithoutGpuIsAClearError) {
#ifdef GPP_WITH_CUDA
  if (!detect_gpus().empty()) GTEST_SKIP() << "a GPU is present";
#endif
  EXPECT_THROW(PairHmm{Backend::kGpu}, Error);  // braces: a declaration to clang otherwise
}

}  // namespace
}  // namespace gpp::kernels
