// GATK StrandBiasTest (per-sample table, passesMinimumThreshold), FisherStrand
// (normalizeContingencyTable, pValueForContingencyTable, makeValueObjectForAnnotation) and
// StrandOddsRatio.calculateSOR; see strand_bias.hpp.
#include "stages/call/annotations/strand_bias.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "stages/call/annotations/java_number_format.hpp"

namespace gpp::stages::call {
namespace {

constexpr double kTargetTableSize = 200.0;  // FisherStrand.TARGET_TABLE_SIZE
constexpr double kMinPValue = 1e-320;       // FisherStrand.MIN_PVALUE

/// Math.addExact over the four cells.
std::int32_t exact_total(const ContingencyTable& table) {
  std::int64_t sum = 0;
  for (const auto& row : table) {
    for (std::int32_t cell : row) {
      sum += cell;
      if (sum > std::numeric_limits<std::int32_t>::max() ||
          sum < std::numeric_limits<std::int32_t>::min()) {
        throw Error("FisherStrand: strand table total overflows a 32-bit integer");
      }
    }
  }
  return static_cast<std::int32_t>(sum);
}

/// QualityUtils.phredScaleErrorRate: |-10 max(log10 p, log10 Double.MIN_VALUE)|.
double phred_scale_error_rate(double error_rate) {
  const double min_log10 = std::log10(std::numeric_limits<double>::denorm_min());
  return std::fabs(-10.0 * std::max(std::log10(error_rate), min_log10));
}

}  // namespace

void StrandTableBuilder::end_sample() {
  const std::int64_t total =
      std::int64_t{sample_[0][0]} + sample_[0][1] + sample_[1][0] + sample_[1][1];
  if (total > min_sample_count_) {
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 2; ++c) table_[r][c] += sample_[r][c];
    }
  }
  sample_ = {};
}

double fisher_strand_p_value(const ContingencyTable& table) {
  const std::int32_t total = exact_total(table);
  ContingencyTable normalized = table;
  if (total > kTargetTableSize * 2) {
    const double factor = total / kTargetTableSize;
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 2; ++c)
        normalized[r][c] = static_cast<std::int32_t>(table[r][c] / factor);
    }
  }
  return fisher_exact_two_sided_p_value(normalized);
}

std::string fisher_strand_value_text(double p_value) {
  return java_format_fixed(phred_scale_error_rate(std::max(p_value, kMinPValue)), 3);
}

std::string fisher_strand_text(const ContingencyTable& table) {
  return fisher_strand_value_text(fisher_strand_p_value(table));
}

double strand_odds_ratio(const ContingencyTable& table) {
  constexpr double kPseudocount = 1;
  const double t00 = table[0][0] + kPseudocount;
  const double t01 = table[0][1] + kPseudocount;
  const double t11 = table[1][1] + kPseudocount;
  const double t10 = table[1][0] + kPseudocount;
  const double ratio = (t00 / t01) * (t11 / t10) + (t01 / t00) * (t10 / t11);
  const double ref_ratio = std::min(t00, t01) / std::max(t00, t01);
  const double alt_ratio = std::min(t10, t11) / std::max(t10, t11);
  return std::log(ratio) + std::log(ref_ratio) - std::log(alt_ratio);
}

std::string strand_odds_ratio_text(const ContingencyTable& table) {
  return java_format_fixed(strand_odds_ratio(table), 3);
}

}  // namespace gpp::stages::call
