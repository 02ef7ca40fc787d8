// The pairs table of `gpu-pipeline sw`: one pair per line, tab-separated
//   ref alt match mismatch gap_open gap_extend mode
// where '-' is an empty sequence and mode is SOFTCLIP, INDEL, LEADING_INDEL, IGNORE (GATK's
// aligner with that overhang strategy) or HAPLOTYPE_TO_REFERENCE (GATK
// CigarUtils.calculateCigar with the given scores). Blank lines and lines starting with '#' are
// skipped.
#pragma once

#include <istream>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::pipeline {

/// A row's alignment model: the scores and the mode (an overhang strategy, or calculateCigar).
struct SwModel {
  kernels::SwParameters parameters;
  bool haplotype_to_reference = false;
  kernels::OverhangStrategy strategy = kernels::OverhangStrategy::kIndel;
  auto key() const {
    return std::make_tuple(parameters.match, parameters.mismatch, parameters.gap_open,
                           parameters.gap_extend, haplotype_to_reference,
                           static_cast<int>(strategy));
  }
  bool operator<(const SwModel& other) const { return key() < other.key(); }
};

struct SwPair {
  std::string ref, alt;
  SwModel model;
};

/**
 * @brief Reads the pairs table from `in` (`name` appears in error messages).
 * @throws gpp::Error "NAME: line N: what is wrong" for a line without 7 fields, an empty
 *         sequence field, a score that is not a 32-bit integer or an unknown mode
 */
std::vector<SwPair> parse_sw_pairs(std::istream& in, const std::string& name);

}  // namespace gpp::pipeline
