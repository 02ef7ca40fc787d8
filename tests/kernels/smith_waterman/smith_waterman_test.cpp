// smith-waterman: GATK's golden cases, a transcription of GATK's aligner as the oracle on random
// pairs, edge cases, and the GPU backend against the CPU backend.
#include "kernels/smith_waterman/smith_waterman.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "core/error.hpp"
#include "tests/kernels/smith_waterman/sw_reference.hpp"
#include "tests/kernels/smith_waterman/sw_test_pairs.hpp"
#include "tests/test_support.hpp"

namespace gpp::kernels {
namespace {

using test::all_strategies;
using test::gatk_parameter_sets;

std::string describe(const SwParameters& p, OverhangStrategy s) {
  return std::to_string(p.match) + "/" + std::to_string(p.mismatch) + "/" +
         std::to_string(p.gap_open) + "/" + std::to_string(p.gap_extend) + " " +
         overhang_strategy_name(s);
}

/// Traceback bytes of one 2,000 x 2,000 pair on the GPU: 8 passes x (2,000 + 31) steps x 32 words.
std::uint64_t sw_words_2000x2000_bytes() { return 8ull * 2031 * 32 * 4; }

void expect_golden_cases(Backend backend) {
  for (const auto& c : test::load_aligner_cases()) {
    SequencePairs pairs;
    pairs.add(c.ref, c.alt);
    const SwAlignments a = SmithWaterman(backend).align(pairs, c.parameters, c.strategy);
    EXPECT_EQ(a.offset(0), c.offset)
        << c.ref << " " << c.alt << " " << describe(c.parameters, c.strategy);
    EXPECT_EQ(cigar_to_string(a.cigar(0)), c.cigar)
        << c.ref << " " << c.alt << " " << describe(c.parameters, c.strategy);
  }
}

void expect_equal(const SwAlignments& a, const SwAlignments& b, const SequencePairs& pairs,
                  const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  int failures = 0;
  for (std::size_t i = 0; i < a.size() && failures < 10; ++i) {
    const std::string ca = cigar_to_string(a.cigar(i)), cb = cigar_to_string(b.cigar(i));
    if (a.offset(i) != b.offset(i) || ca != cb) {
      ++failures;
      ADD_FAILURE() << what << " pair " << i << " ref " << pairs.ref(i) << " alt " << pairs.alt(i)
                    << ": " << a.offset(i) << " " << ca << " vs " << b.offset(i) << " " << cb;
    }
  }
}

TEST(SmithWaterman, GoldenAlignerCasesCpu) { expect_golden_cases(Backend::kCpu); }

TEST(SmithWaterman, DocumentedExample) {
  SequencePairs pairs;
  pairs.add("AAACCCCC", "CCCCC");
  const auto a =
      SmithWaterman(Backend::kCpu).align(pairs, kSwOriginalDefault, OverhangStrategy::kIndel);
  EXPECT_EQ(a.offset(0), 0);
  EXPECT_EQ(cigar_to_string(a.cigar(0)), "3D5M");
}

TEST(SmithWaterman, CpuMatchesGatkTranscriptionOnRandomPairs) {
  const SequencePairs pairs = test::random_pairs(600, 400, 17);
  for (const auto& parameters : gatk_parameter_sets()) {
    for (OverhangStrategy strategy : all_strategies()) {
      const SwAlignments a = SmithWaterman(Backend::kCpu).align(pairs, parameters, strategy);
      int failures = 0;
      for (std::size_t i = 0; i < pairs.size() && failures < 5; ++i) {
        const auto expected =
            test::reference_smith_waterman(pairs.ref(i), pairs.alt(i), parameters, strategy);
        if (a.offset(i) != expected.offset || cigar_to_string(a.cigar(i)) != expected.cigar) {
          ++failures;
          ADD_FAILURE() << describe(parameters, strategy) << " ref " << pairs.ref(i) << " alt "
                        << pairs.alt(i) << ": got " << a.offset(i) << " "
                        << cigar_to_string(a.cigar(i)) << ", GATK " << expected.offset << " "
                        << expected.cigar;
        }
      }
    }
  }
}

TEST(SmithWaterman, CpuMatchesGatkTranscriptionOnLongPairs) {
  // Up to 2,000 x 2,000, and one of 4.3 M cells that the CPU backend aligns alone (not in a group).
  SequencePairs pairs = test::random_pairs(8, 2000, 99, true);
  const SequencePairs big = test::random_pairs(1, 2400, 98, true);
  pairs.add(std::string(big.ref(0)) + std::string(2400 - big.ref(0).size(), 'T'),
            std::string(big.ref(0).substr(0, 1800)));
  for (OverhangStrategy strategy : all_strategies()) {
    const SwAlignments a = SmithWaterman(Backend::kCpu).align(pairs, kSwNewParameters, strategy);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const auto expected =
          test::reference_smith_waterman(pairs.ref(i), pairs.alt(i), kSwNewParameters, strategy);
      EXPECT_EQ(a.offset(i), expected.offset) << i;
      EXPECT_EQ(cigar_to_string(a.cigar(i)), expected.cigar) << i;
    }
  }
}

TEST(SmithWaterman, EveryCpuInstructionSetMatchesGatk) {
  // The CPU backend picks AVX-512, AVX2, a baseline vector width or scalar code at run time;
  // SwTuning::cpu_isa caps it at each one (a CPU without it falls back to a narrower one).
  const SequencePairs pairs = test::random_pairs(120, 300, 31);
  for (const char* isa : {"avx512", "avx2", "baseline", "scalar"}) {
    SwTuning tuning;
    tuning.cpu_isa = isa;
    for (OverhangStrategy strategy : all_strategies()) {
      const SwAlignments a =
          SmithWaterman(Backend::kCpu, tuning).align(pairs, kSwReadToHaplotype, strategy);
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto expected = test::reference_smith_waterman(pairs.ref(i), pairs.alt(i),
                                                             kSwReadToHaplotype, strategy);
        EXPECT_EQ(a.offset(i), expected.offset) << isa << " " << i;
        EXPECT_EQ(cigar_to_string(a.cigar(i)), expected.cigar) << isa << " " << i;
      }
    }
  }
}

TEST(SmithWaterman, ExtremeParametersWrapLikeJavaInts) {
  // Penalties near the int range make GATK's running gaps wrap around; the result must still match.
  const SequencePairs pairs = test::random_pairs(60, 60, 5);
  const std::vector<SwParameters> sets = {{1, -2000000000, -2000000000, -2000000000},
                                          {2000000000, 0, 0, 0},
                                          {0, 0, 0, 0},
                                          {5, 7, 3, 1},
                                          {1, -1, -100000000, -100000000}};
  for (const auto& parameters : sets) {
    for (OverhangStrategy strategy : all_strategies()) {
      const SwAlignments a = SmithWaterman(Backend::kCpu).align(pairs, parameters, strategy);
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto expected =
            test::reference_smith_waterman(pairs.ref(i), pairs.alt(i), parameters, strategy);
        EXPECT_EQ(a.offset(i), expected.offset) << describe(parameters, strategy) << " " << i;
        EXPECT_EQ(cigar_to_string(a.cigar(i)), expected.cigar)
            << describe(parameters, strategy) << " " << i;
      }
    }
  }
}

TEST(SmithWaterman, EmptySequencesHaveNoAlignment) {
  SequencePairs pairs;
  pairs.add("", "ACGT");
  pairs.add("ACGT", "");
  pairs.add("", "");
  pairs.add("ACGT", "CG");
  for (OverhangStrategy strategy : all_strategies()) {
    const auto a = SmithWaterman(Backend::kCpu).align(pairs, kSwOriginalDefault, strategy);
    for (int i = 0; i < 3; ++i) {
      EXPECT_FALSE(a.aligned(static_cast<std::size_t>(i)));
      EXPECT_EQ(cigar_to_string(a.cigar(static_cast<std::size_t>(i))), "*");
    }
    EXPECT_TRUE(a.aligned(3));
  }
}

TEST(SmithWaterman, BytesAreComparedAsTheyAre) {
  // GATK compares raw bytes: N matches N, lower case differs from upper case, anything goes.
  SequencePairs pairs;
  pairs.add("ACGTNNNNACGT", "NNNN");
  pairs.add("acgtACGT", "ACGT");
  pairs.add("AC*GT\x01\xff", "*GT\x01\xff");
  const auto a =
      SmithWaterman(Backend::kCpu).align(pairs, kSwOriginalDefault, OverhangStrategy::kSoftClip);
  EXPECT_EQ(a.offset(0), 4);
  EXPECT_EQ(a.offset(1), 4);
  EXPECT_EQ(a.offset(2), 2);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(cigar_to_string(a.cigar(i)), std::to_string(pairs.alt(i).size()) + "M");
}

TEST(SmithWaterman, StatsCountCellsAndShortcuts) {
  SequencePairs pairs;
  pairs.add("AAACCCCC", "CCCCC");
  pairs.add("AAACCCCC", "CCGCC");
  SwStats stats;
  SmithWaterman(Backend::kCpu)
      .align(pairs, kSwOriginalDefault, OverhangStrategy::kSoftClip, &stats);
  EXPECT_EQ(stats.cells, 80u);
  EXPECT_EQ(stats.substring_pairs, 1u);
  EXPECT_EQ(stats.cpu_pairs, 2u);
}

TEST(SmithWaterman, GpuWithoutGpuIsAClearError) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  SequencePairs pairs;
  pairs.add("ACGT", "CG");
  EXPECT_THROW(
      SmithWaterman(Backend::kGpu).align(pairs, kSwOriginalDefault, OverhangStrategy::kSoftClip),
      Error);
}

// ---- GPU
// ------------------------------------------------------------------------------------------

using SmithWatermanGpu = ::gpp::test::GpuTest;

TEST_F(SmithWatermanGpu, GoldenAlignerCases) { expect_golden_cases(Backend::kGpu); }

TEST_F(SmithWatermanGpu, EqualsCpuOnRandomPairsEveryStrategyAndParameterSet) {
  SequencePairs pairs = test::random_pairs(3000, 2000, 23);
  const SequencePairs long_pairs = test::random_pairs(100, 2000, 24, true);
  for (std::size_t i = 0; i < long_pairs.size(); ++i)
    pairs.add(long_pairs.ref(i), long_pairs.alt(i));
  for (const auto& parameters : gatk_parameter_sets()) {
    for (OverhangStrategy strategy : all_strategies()) {
      SwStats stats;
      const auto gpu = SmithWaterman(Backend::kGpu).align(pairs, parameters, strategy, &stats);
      const auto cpu = SmithWaterman(Backend::kCpu).align(pairs, parameters, strategy);
      expect_equal(gpu, cpu, pairs, describe(parameters, strategy));
      EXPECT_EQ(stats.gpu_pairs, pairs.size());
    }
  }
}

TEST_F(SmithWatermanGpu, EqualsCpuOnEveryLengthUpTo600) {
  // Every alt length 1..600 (every columns-per-lane and pass count up to 3) against long and short
  // refs.
  const SequencePairs seeds = test::random_pairs(1200, 700, 41);
  SequencePairs pairs;
  for (int m = 1; m <= 600; ++m) {
    const std::string ref(seeds.ref(static_cast<std::size_t>(m)));
    std::string alt(seeds.alt(static_cast<std::size_t>(m)));
    while (static_cast<int>(alt.size()) < m) alt += ref.empty() ? "A" : ref;
    alt.resize(static_cast<std::size_t>(m));
    pairs.add(ref, alt);
  }
  for (OverhangStrategy strategy : all_strategies()) {
    const auto gpu = SmithWaterman(Backend::kGpu).align(pairs, kSwReadToHaplotype, strategy);
    const auto cpu = SmithWaterman(Backend::kCpu).align(pairs, kSwReadToHaplotype, strategy);
    expect_equal(gpu, cpu, pairs, overhang_strategy_name(strategy));
  }
}

TEST_F(SmithWatermanGpu, ExtremeParametersAndOddBytes) {
  SequencePairs pairs = test::random_pairs(200, 100, 8);
  pairs.add("AC*GT\x01\xff", "*GT\x01\xff");
  pairs.add("acgtACGT", "ACGT");
  const std::vector<SwParameters> sets = {
      {1, -2000000000, -2000000000, -2000000000}, {0, 0, 0, 0}, {5, 7, 3, 1}};
  for (const auto& parameters : sets) {
    for (OverhangStrategy strategy : all_strategies()) {
      expect_equal(SmithWaterman(Backend::kGpu).align(pairs, parameters, strategy),
                   SmithWaterman(Backend::kCpu).align(pairs, parameters, strategy), pairs,
                   describe(parameters, strategy));
    }
  }
}

TEST_F(SmithWatermanGpu, LargeBatchSpansManyChunks) {
  const SequencePairs pairs = test::random_pairs(200'000, 300, 77);
  const auto gpu =
      SmithWaterman(Backend::kGpu).align(pairs, kSwReadToHaplotype, OverhangStrategy::kSoftClip);
  const auto cpu =
      SmithWaterman(Backend::kCpu).align(pairs, kSwReadToHaplotype, OverhangStrategy::kSoftClip);
  expect_equal(gpu, cpu, pairs, "200k pairs");
}

TEST_F(SmithWatermanGpu, SixteenBitWarpsEqualCpu) {
  // Reads against haplotypes of a few lengths, so that most pairs share a ref length and shape and
  // go two per warp to the 16-bit kernel; the rest (one of each length and shape, and pairs whose
  // values could leave 16 bits) to the 32-bit kernel.
  const SequencePairs seeds = test::random_pairs(4000, 600, 91);
  SequencePairs pairs;
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    std::string ref(seeds.ref(i)), alt(seeds.alt(i));
    const std::size_t n = 100 + 50 * (i % 7);
    while (ref.size() < n) ref += alt + "GATTACA";
    ref.resize(n);
    if (alt.size() > 300) alt.resize(300);
    pairs.add(ref, alt);
  }
  for (const auto& parameters : gatk_parameter_sets()) {
    for (OverhangStrategy strategy : all_strategies()) {
      SwStats stats;
      const auto gpu = SmithWaterman(Backend::kGpu).align(pairs, parameters, strategy, &stats);
      const auto cpu = SmithWaterman(Backend::kCpu).align(pairs, parameters, strategy);
      expect_equal(gpu, cpu, pairs, describe(parameters, strategy));
      EXPECT_EQ(stats.gpu_pairs, pairs.size());
      if (parameters.match == kSwReadToHaplotype.match) {
        EXPECT_GT(stats.gpu_16_bit_pairs, pairs.size() * 9 / 10) << describe(parameters, strategy);
      }
      if (parameters.match == kSwNewParameters.match) {
        EXPECT_EQ(stats.gpu_16_bit_pairs, 0u);
      }
    }
  }
}

TEST_F(SmithWatermanGpu, EmptyAndHugePairs) {
  // Empty sequences get no alignment; a 20,000 x 19,000 pair runs in 75 passes; with a lower
  // per-pair limit it falls back to the CPU.
  SequencePairs pairs;
  pairs.add("", "ACGT");
  pairs.add("ACGT", "");
  std::string ref(20000, 'A'), alt(19000, 'A');
  for (std::size_t i = 0; i < ref.size(); i += 7) ref[i] = 'C';
  for (std::size_t i = 0; i < alt.size(); i += 5) alt[i] = 'G';
  pairs.add(ref, alt);
  pairs.add("ACGTACGT", "CGTA");
  for (const std::uint64_t limit_mb : {0, 64}) {
    SwTuning tuning;
    tuning.gpu_max_pair_bytes = limit_mb << 20;
    for (OverhangStrategy strategy : all_strategies()) {
      SwStats stats;
      const auto gpu =
          SmithWaterman(Backend::kGpu, tuning).align(pairs, kSwNewParameters, strategy, &stats);
      const auto cpu = SmithWaterman(Backend::kCpu).align(pairs, kSwNewParameters, strategy);
      expect_equal(gpu, cpu, pairs, overhang_strategy_name(strategy));
      EXPECT_FALSE(gpu.aligned(0));
      EXPECT_FALSE(gpu.aligned(1));
      EXPECT_EQ(stats.cpu_pairs, limit_mb != 0 ? 1u : 0u);
      EXPECT_EQ(stats.gpu_pairs + stats.cpu_pairs, 2u);
    }
  }
}

TEST_F(SmithWatermanGpu, OutOfMemoryRetriesWithSmallerChunks) {
  // A chunk budget of 200 GB lets the chunks outgrow the GPU (2 MB of traceback codes per 2,000 x
  // 2,000 pair, pairs enough for 2.4x the device memory: chunks grow from 8 k pairs to half of
  // what is left, so the fourth holds more than half the memory while the third holds a quarter);
  // the batch must be retried with smaller chunks and still give the CPU's results.
  const std::uint64_t device_bytes = detect_gpus().front().total_memory_bytes;
  const std::size_t count =
      static_cast<std::size_t>(device_bytes * 12 / 5 / sw_words_2000x2000_bytes()) + 1;
  const SequencePairs seeds = test::random_pairs(64, 2000, 5, true);
  SequencePairs pairs;
  std::string ref(2000, 'A'), alt(2000, 'A');
  for (std::size_t k = 0; k < count; ++k) {
    const std::string_view a = seeds.ref(k % 64), b = seeds.alt((k + 1) % 64);
    for (std::size_t i = 0; i < 2000; ++i) {
      ref[i] = a[(i + k) % a.size()];
      alt[i] = b[(i * 7 + k) % b.size()];
    }
    pairs.add(ref, alt);
  }
  SwTuning tuning;
  tuning.gpu_chunk_bytes = std::uint64_t{204800} << 20;
  SwStats stats;
  const auto gpu = SmithWaterman(Backend::kGpu, tuning)
                       .align(pairs, kSwNewParameters, OverhangStrategy::kSoftClip, &stats);
  EXPECT_GE(stats.gpu_memory_retries, 1u);
  EXPECT_FALSE(stats.gpu_memory_fallback);
  EXPECT_EQ(stats.gpu_pairs, count);
  SequencePairs head;
  for (std::size_t k = 0; k < 300; ++k) head.add(pairs.ref(k), pairs.alt(k));
  const auto cpu =
      SmithWaterman(Backend::kCpu).align(head, kSwNewParameters, OverhangStrategy::kSoftClip);
  for (std::size_t k = 0; k < head.size(); ++k) {
    EXPECT_EQ(gpu.offset(k), cpu.offset(k)) << k;
    EXPECT_EQ(cigar_to_string(gpu.cigar(k)), cigar_to_string(cpu.cigar(k))) << k;
  }
}

}  // namespace
}  // namespace gpp::kernels
