// The BQSR batch kernels (kernels/bqsr.hpp) against the stage's CPU path:
// - the per-base rules of kernels/bqsr/bqsr_rules.hpp, which the stage's whole-read context and
//   cycle keys use, against GATK's ContextCovariate / CycleCovariate written out literally;
// - the kernels' host model, fed by the stage's descriptors, gives the CPU path's tables and
//   qualities (this runs everywhere and checks the logic the CUDA kernels share);
// - on a GPU (suites *Gpu*), the CUDA kernels give the same tables and qualities;
// - a pool of recalibrators on several threads gives one recalibration's qualities.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/text/text_input.hpp"
#include "kernels/bqsr/bqsr_rules.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/apply_bqsr_kernel.hpp"
#include "stages/bqsr/covariates.hpp"
#include "stages/bqsr/kernel_counting.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "tests/stages/bqsr/bqsr_inputs.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::bqsr {
namespace {

namespace kb = kernels::bqsr;

// ContextCovariate as GATK writes it: low-quality tails to N, the read reverse-complemented on the
// negative strand, then each stranded position's `size` bases as a string, encoded when they are
// all ACGT; keys stored at the original offset.
std::vector<int> gatk_context_keys(const std::string& bases, const std::vector<std::uint8_t>& quals,
                                   bool reverse, int size, int low_quality_tail) {
  const int length = static_cast<int>(bases.size());
  std::string clipped = bases;
  for (int k = 0; k < length && quals[k] <= low_quality_tail; ++k) clipped[k] = 'N';
  for (int k = length - 1; k >= 0 && quals[k] <= low_quality_tail; --k) clipped[k] = 'N';
  std::string stranded;
  for (int k = 0; k < length; ++k) {
    const char c = clipped[reverse ? length - 1 - k : k];
    const std::string forward = "ACGTacgt", complement = "TGCAtgca";
    const std::size_t at = forward.find(c);
    stranded += at == std::string::npos ? 'N' : (reverse ? complement[at] : c);
  }
  std::vector<int> keys(static_cast<std::size_t>(length), -1);
  for (int k = size - 1; k < length; ++k) {
    const std::string context =
        stranded.substr(static_cast<std::size_t>(k - size + 1), static_cast<std::size_t>(size));
    int key = 0;
    for (const char c : context) {
      const std::size_t code = std::string("ACGT").find(static_cast<char>(std::toupper(c)));
      if (code == std::string::npos) {
        key = -1;
        break;
      }
      key = key * 4 + static_cast<int>(code);
    }
    keys[static_cast<std::size_t>(reverse ? length - 1 - k : k)] = key;
  }
  return keys;
}

TEST(BqsrKernelRules, ContextAndCycleKeysAreGatks) {
  std::mt19937 rng(20261122);
  const std::string alphabet = "ACGTACGTACGTacgtNR";
  std::size_t checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int length = 1 + static_cast<int>(rng() % 160);
    std::string bases(static_cast<std::size_t>(length), 'A');
    std::vector<std::uint8_t> quals(static_cast<std::size_t>(length));
    for (int k = 0; k < length; ++k) {
      bases[k] = alphabet[rng() % alphabet.size()];
      quals[k] = static_cast<std::uint8_t>(rng() % 42);
    }
    // Low-quality tails of random lengths, sometimes the whole read.
    const int head = static_cast<int>(rng() % 6), tail = static_cast<int>(rng() % 6);
    for (int k = 0; k < std::min(head, length); ++k)
      quals[k] = static_cast<std::uint8_t>(rng() % 3);
    for (int k = 0; k < std::min(tail, length); ++k)
      quals[length - 1 - k] = static_cast<std::uint8_t>(rng() % 3);
    const bool reverse = rng() & 1, second = rng() & 1;
    const CovariateRead read{bases, quals, reverse, second};
    std::vector<int> cycles;
    cycle_keys(read, 500, cycles, nullptr);
    for (int k = 0; k < length; ++k) {
      // CycleCovariate: offset + 1 forward, length - offset reverse, negative for the second read.
      int cycle = reverse ? length - k : k + 1;
      if (second) cycle = -cycle;
      ASSERT_EQ(cycles[k], cycle < 0 ? -cycle * 2 + 1 : cycle * 2) << k;
    }
    for (const int size : {1, 2, 3, 5}) {
      for (const int low_quality_tail : {2, 9}) {
        std::vector<int> keys;
        context_keys(read, size, low_quality_tail, keys);
        const std::vector<int> expected =
            gatk_context_keys(bases, quals, reverse, size, low_quality_tail);
        ASSERT_EQ(keys, expected) << bases << " size " << size << " reverse " << reverse;
        for (const int key : expected) checked += key >= 0;
      }
    }
  }
  EXPECT_GT(checked, 100000u);  // most keys exist: the comparison is not vacuous
}

TEST(BqsrKernelRules, CycleBeyondTheMaximumNamesTheFirstOneInSequencingOrder) {
  const std::string bases(10, 'A');
  const std::vector<std::uint8_t> quals(10, 30);
  std::vector<int> keys;
  const auto message = [&](bool reverse, bool second) {
    try {
      cycle_keys({bases, quals, reverse, second}, 5, keys, nullptr);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(false, false),
            "a read has cycle 6, beyond --maximum-cycle-value 5; raise --maximum-cycle-value");
  EXPECT_EQ(message(false, true),
            "a read has cycle -6, beyond --maximum-cycle-value 5; raise --maximum-cycle-value");
  EXPECT_EQ(message(true, false),
            "a read has cycle 10, beyond --maximum-cycle-value 5; raise --maximum-cycle-value");
}

std::string table_text(const RecalTables& tables, const io::Header& header) {
  return format_recalibration_report(tables, read_group_keys(header).identifiers);
}

const std::vector<CovariateOptions>& covariate_variants() {
  static const std::vector<CovariateOptions> variants = {CovariateOptions{}, [] {
                                                           CovariateOptions o;
                                                           o.mismatches_context_size = 3;
                                                           o.low_quality_tail = 12;
                                                           o.maximum_cycle_value = 300;
                                                           return o;
                                                         }()};
  return variants;
}

void expect_kernel_tables_equal_cpu(kernels::Backend backend) {
  for (const test::BqsrInput& in : test::bqsr_inputs()) {
    for (const CovariateOptions& options : covariate_variants()) {
      const std::string cpu =
          table_text(count_covariates(in.reads, in.header, in.genome, options), in.header);
      EXPECT_GT(cpu.size(), 50000u);
      for (const kb::CountingMethod method :
           {kb::CountingMethod::kDense, kb::CountingMethod::kSortReduce}) {
        const std::string kernel = table_text(
            count_covariates_with_kernels(in.reads, in.header, in.genome, options, backend, method),
            in.header);
        EXPECT_TRUE(kernel == cpu)
            << in.name << " context size " << options.mismatches_context_size << " sort-reduce "
            << (method == kb::CountingMethod::kSortReduce);
      }
    }
  }
}

TEST(BqsrKernelModel, CountingTablesEqualCpuPath) {
  expect_kernel_tables_equal_cpu(kernels::Backend::kCpu);
}

using BqsrKernelGpu = ::gpp::test::GpuTest;

TEST_F(BqsrKernelGpu, CountingTablesEqualCpuPath) {
  expect_kernel_tables_equal_cpu(kernels::Backend::kGpu);
}

struct ApplyInput {
  std::string name;
  io::Header header;
  io::ReadBatch reads;
  RecalibrationReport report;
};

ApplyInput load_apply_input(const std::string& bam, const std::string& table) {
  ApplyInput in;
  in.name = bam + " + " + table;
  in.reads = io::read_alignments(test::data_path(bam), {}, in.header);
  in.report = parse_recalibration_report(io::read_text_file(test::data_path(table)), table);
  return in;
}

struct ApplyCase {
  std::string name;
  ApplyOptions options;
};

/// GATK's ApplyBQSR test BAM and table with the option sets the goldens use and more; the nf-core
/// reads with their own GATK table; the nf-core reads with the HiSeq table (read group not in the
/// table: quantize only).
void for_each_apply_case(const std::function<void(const ApplyInput&, const ApplyCase&)>& check) {
  const ApplyInput hiseq =
      load_apply_input("gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam",
                       "gatk_golden/applybqsr/HiSeq.20mb.1RG.table.gz");
  auto options = [](const std::function<void(ApplyOptions&)>& set) {
    ApplyOptions o;
    set(o);
    return o;
  };
  const std::vector<ApplyCase> cases = {
      {"default", {}},
      {"--quantize-quals 6", options([](ApplyOptions& o) { o.quantize_quals = 6; })},
      {"--quantize-quals -1", options([](ApplyOptions& o) { o.quantize_quals = -1; })},
      {"--static-quantized-quals 10 20 30", options([](ApplyOptions& o) {
         o.static_quantized_quals = {10, 20, 30};
       })},
      {"--static-quantized-quals 10 20 30 --round-down-quantized", options([](ApplyOptions& o) {
         o.static_quantized_quals = {10, 20, 30};
         o.round_down_quantized = true;
       })},
      {"--emit-original-quals --preserve-qscores-less-than 20", options([](ApplyOptions& o) {
         o.emit_original_quals = true;
         o.preserve_qscores_less_than = 20;
       })},
      {"--global-qscore-prior 30 --use-original-qualities", options([](ApplyOptions& o) {
         o.global_qscore_prior = 30.0;
         o.use_original_qualities = true;
       })}};
  for (const ApplyCase& c : cases) check(hiseq, c);
  const ApplyInput nfcore = load_apply_input("nfcore_chr22_40kb/test2.paired_end.sorted.bam",
                                             "nfcore_chr22_40kb/test2.baserecalibrator.table");
  check(nfcore, {"default", {}});
  const ApplyInput foreign = load_apply_input("nfcore_chr22_40kb/test2.paired_end.sorted.bam",
                                              "gatk_golden/applybqsr/HiSeq.20mb.1RG.table.gz");
  check(foreign, {"--allow-missing-read-group --quantize-quals -1", options([](ApplyOptions& o) {
                    o.quantize_quals = -1;
                    o.allow_missing_read_group = true;
                  })});
}

std::size_t differing_bases(const io::Column<std::uint8_t>& a, const io::Column<std::uint8_t>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  std::size_t n = 0;
  for (std::size_t k = 0; k < a.size(); ++k) n += a[k] != b[k];
  return n;
}

TEST(ApplyBqsrKernelModel, QualitiesEqualCpuPath) {
  for_each_apply_case([](const ApplyInput& in, const ApplyCase& c) {
    const AppliedQualities cpu = apply_recalibration(in.reads, in.header, in.report, c.options);
    EXPECT_GT(differing_bases(cpu.qual, in.reads.qual), 0u) << in.name << " " << c.name;
    io::Column<std::uint8_t> model;
    recalibrate_with_kernels(in.reads, prepare_apply(in.header, in.report, c.options), c.options,
                             kernels::Backend::kCpu, model);
    EXPECT_EQ(differing_bases(model, cpu.qual), 0u) << in.name << " " << c.name;
  });
}

TEST(ApplyBqsrKernelModel, MissingReadGroupIsAnError) {
  const ApplyInput foreign = load_apply_input("nfcore_chr22_40kb/test2.paired_end.sorted.bam",
                                              "gatk_golden/applybqsr/HiSeq.20mb.1RG.table.gz");
  io::Column<std::uint8_t> model;
  EXPECT_THROW(
      recalibrate_with_kernels(foreign.reads, prepare_apply(foreign.header, foreign.report, {}), {},
                               kernels::Backend::kCpu, model),
      Error);
}

// Slices of a batch recalibrated on six threads at once by a pool of three recalibrators get the
// qualities and tags of the whole batch recalibrated at once.
void expect_pool_equals_whole_batch(kernels::Backend backend) {
  for_each_apply_case([backend](const ApplyInput& in, const ApplyCase& c) {
    const AppliedQualities whole =
        apply_recalibration(in.reads, in.header, in.report, c.options, backend);
    RecalibratorPool pool(in.header, in.report, c.options, backend, 3);
    constexpr std::size_t kSlices = 6;
    std::vector<io::ReadBatch> slices(kSlices);
    for (std::size_t i = 0; i < in.reads.size(); ++i) slices[i % kSlices].append_row(in.reads, i);
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (io::ReadBatch& slice : slices) {
      threads.emplace_back([&pool, &slice, &failures] {
        try {
          pool.apply_in_place(slice);
        } catch (...) {
          ++failures;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    ASSERT_EQ(failures.load(), 0) << in.name << " " << c.name;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < in.reads.size(); ++i) {
      const io::ReadBatch& slice = slices[i % kSlices];
      const std::size_t row = i / kSlices;
      const auto qual = slice.read_qual(row);
      const auto aux = slice.read_aux(row);
      const bool same_qual =
          std::equal(qual.begin(), qual.end(),
                     whole.qual.begin() + static_cast<std::ptrdiff_t>(in.reads.seq_offset[i]));
      const bool same_aux =
          aux.size() == whole.aux_offset[i + 1] - whole.aux_offset[i] &&
          std::equal(aux.begin(), aux.end(),
                     whole.aux.begin() + static_cast<std::ptrdiff_t>(whole.aux_offset[i]));
      differing += !same_qual || !same_aux;
    }
    EXPECT_EQ(differing, 0u) << in.name << " " << c.name;
  });
}

// What a pool may make: each recalibrator holds about twice a batch's bases, on the GPU three
// times up to 128 Mi bases of them more, within a sixteenth of the memory.
TEST(ApplyBqsrKernelModel, PoolSizeKeepsItsBatchesWithinASixteenthOfTheMemory) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  EXPECT_EQ(RecalibratorPool::most_within(8192 * kMiB, 27 * kMiB), 4u);    // 54 MiB each
  EXPECT_EQ(RecalibratorPool::most_within(16384 * kMiB, 190 * kMiB), 2u);  // 380 MiB each
  EXPECT_EQ(RecalibratorPool::most_within(8192 * kMiB, 333 * kMiB), 1u);   // 550 MiB
  EXPECT_EQ(RecalibratorPool::most_within(0, 27 * kMiB), 1u);
  EXPECT_EQ(RecalibratorPool::most_within(std::uint64_t{1} << 40, 1), 4u);
}

TEST(ApplyBqsrKernelModel, PoolOnSeveralThreadsEqualsOneRecalibration) {
  expect_pool_equals_whole_batch(kernels::Backend::kCpu);
}

using ApplyBqsrKernelGpu = ::gpp::test::GpuTest;

TEST_F(ApplyBqsrKernelGpu, PoolOnSeveralThreadsEqualsOneRecalibration) {
  expect_pool_equals_whole_batch(kernels::Backend::kGpu);
}

TEST_F(ApplyBqsrKernelGpu, QualitiesAndTagsEqualCpuPath) {
  for_each_apply_case([](const ApplyInput& in, const ApplyCase& c) {
    const AppliedQualities cpu = apply_recalibration(in.reads, in.header, in.report, c.options);
    const AppliedQualities gpu =
        apply_recalibration(in.reads, in.header, in.report, c.options, kernels::Backend::kGpu);
    EXPECT_EQ(differing_bases(gpu.qual, cpu.qual), 0u) << in.name << " " << c.name;
    EXPECT_TRUE(gpu.aux == cpu.aux && gpu.aux_offset == cpu.aux_offset) << in.name << " " << c.name;
  });
}

}  // namespace
}  // namespace gpp::stages::bqsr
