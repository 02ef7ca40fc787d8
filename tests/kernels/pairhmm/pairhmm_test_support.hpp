// Inputs and checks shared by the PairHMM tests (CPU, GPU, CLI): GATK's golden cases, random
// batches, the double reference over a whole batch, and a tolerance check naming the worst pair.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/pairhmm/pairhmm.hpp"

namespace gpp::test {

/// GATK/GKL pairhmm-testdata.txt: one pair per line, with GATK's test convention applied (base
/// qualities below 6 raised to 6; the other qualities only lose the +33).
struct PairHmmGoldenCase {
  std::string haplotype, read;
  std::vector<std::uint8_t> base_quals, ins_quals, del_quals, gcp_quals;
  double expected = 0;
};
std::vector<PairHmmGoldenCase> load_pairhmm_golden();

/// Tiny edge cases: one-base reads and haplotypes, N bases (matching anything), lowercase bases,
/// qualities of 0-3 (t_MM zero: the general path; base quality 0: no match possible).
kernels::PairHmmBatch edge_case_batch();

/// The golden cases as a batch of one-pair groups.
kernels::PairHmmBatch golden_batch(const std::vector<PairHmmGoldenCase>& cases);

struct RandomBatchOptions {
  int groups = 10;
  int min_reads = 1, max_reads = 12;
  int min_haplotypes = 1, max_haplotypes = 4;
  int min_read_length = 1, max_read_length = 300;
  int min_haplotype_length = 1, max_haplotype_length = 400;
  int min_qual = 2, max_qual = 60;
  double n_rate = 0.02;  ///< fraction of N bases (reads and haplotypes)
  /// Fraction of reads drawn from their region's first haplotype (with sequencing errors); the
  /// rest are random sequence, whose likelihoods underflow fp32 (and for long reads fp64).
  double related_fraction = 0.8;
  double error_rate = 0.02;         ///< substitutions and indels in related reads
  bool constant_gap_quals = false;  ///< GCP 10 everywhere, as HaplotypeCaller uses
  std::uint64_t seed = 1;
};
kernels::PairHmmBatch random_pairhmm_batch(const RandomBatchOptions& options);

/// pairhmm_reference_log10 for every pair of the batch (oneTBB-parallel), in result order.
std::vector<double> pairhmm_reference(const kernels::PairHmmBatchView& batch);

/// Asserts |actual - expected| <= tolerance and finiteness for every pair; on failure names the
/// worst pair (group, read, haplotype, lengths).
::testing::AssertionResult pairhmm_within(const kernels::PairHmmBatchView& batch,
                                          const std::vector<double>& actual,
                                          const std::vector<double>& expected, double tolerance);

}  // namespace gpp::test
