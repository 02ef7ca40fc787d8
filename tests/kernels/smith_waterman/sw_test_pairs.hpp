// Sequence pairs for the Smith-Waterman tests: GATK's golden cases and random pairs built to
// exercise the tie rules (similar pairs, unrelated pairs, tandem repeats, homopolymers, N runs).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::test {

/// One row of tests/data/gatk_golden/sw/aligner_cases.tsv.
struct AlignerCase {
  std::string ref, alt;
  kernels::SwParameters parameters;
  kernels::OverhangStrategy strategy;
  std::int32_t offset;
  std::string cigar;
};
std::vector<AlignerCase> load_aligner_cases();

/// One row of tests/data/gatk_golden/sw/calculate_cigar_cases.tsv ('-' read as empty).
struct CalculateCigarCase {
  std::string ref, alt, cigar;
};
std::vector<CalculateCigarCase> load_calculate_cigar_cases();

/// The four GATK parameter sets and the four strategies.
const std::vector<kernels::SwParameters>& gatk_parameter_sets();
const std::vector<kernels::OverhangStrategy>& all_strategies();

/// `count` random pairs with lengths in [1, max_length] (mostly up to 300), mixing every kind of
/// pair; with `long_pairs`, refs of max_length/2 to max_length and alts as long or longer.
kernels::SequencePairs random_pairs(std::size_t count, int max_length, std::uint64_t seed,
                                    bool long_pairs = false);

}  // namespace gpp::test
