// Strand-bias annotations FS and SOR as GATK computes them from read likelihoods
// (tools/walkers/annotator/StrandBiasTest, FisherStrand, StrandOddsRatio).
//
// Table (StrandBiasTest.getContingencyTable): per sample, every informative read (see
// best_allele.hpp: best allele over all likelihood alleles, ties broken towards REF) whose best
// allele is REF counts in row 0, one whose best allele is any ALT of the call in row 1; column 0
// forward strand, column 1 reverse. A sample's table joins the site table only if its four cells
// sum to more than min_count: 2 for FisherStrand (ARRAY_DIM), 0 for StrandOddsRatio.
//
// FS (FisherStrand): if the table total exceeds 400 every cell becomes (int)(cell / (total / 200))
// (normalizeContingencyTable; the total is summed with overflow checks, Math.addExact); then the
// two-sided Fisher p-value, floored at 1e-320, Phred-scaled, "%.3f".
// SOR (StrandOddsRatio.calculateSOR), cells + 1:
//   ln((t00/t01)(t11/t10) + (t01/t00)(t10/t11)) + ln(min(t00,t01)/max(t00,t01))
//     - ln(min(t10,t11)/max(t10,t11)), "%.3f".
//
// @code
//   fisher_strand_text({{{9, 11}, {12, 10}}}) == "1.204"     // p = 0.7578618
//   java_format_fixed(strand_odds_ratio({{{0, 0}, {0, 0}}}), 3) == "0.693"
// @endcode
#pragma once

#include <cstdint>
#include <string>

#include "stages/call/annotations/fisher_exact_test.hpp"

namespace gpp::stages::call {

/// FisherStrand.MIN_COUNT and StrandOddsRatio.MIN_COUNT: a sample's table is used only if its
/// total is greater than this.
inline constexpr int kFisherStrandMinSampleCount = 2;
inline constexpr int kStrandOddsRatioMinSampleCount = 0;

/// Per-sample strand counts, accumulated into a site table (StrandBiasTest.copyToMainTable).
class StrandTableBuilder {
 public:
  explicit StrandTableBuilder(int min_sample_count) : min_sample_count_(min_sample_count) {}

  /// Counts one informative read of the current sample: row 0 for REF, row 1 for an ALT of the
  /// call (reads whose best allele is neither are not passed in).
  void add_read(bool supports_alt, bool reverse_strand) {
    ++sample_[supports_alt ? 1 : 0][reverse_strand ? 1 : 0];
  }
  /// Closes the current sample: its counts join the table if their sum exceeds the minimum.
  void end_sample();
  /// The site table (call after the last end_sample()).
  const ContingencyTable& table() const { return table_; }

 private:
  int min_sample_count_;
  ContingencyTable sample_{};
  ContingencyTable table_{};
};

/**
 * @brief FisherStrand.pValueForContingencyTable: the table normalized to a total near 200 when it
 * exceeds 400, then the two-sided Fisher exact p-value.
 * @throws gpp::Error if the table total overflows 32 bits (GATK: ArithmeticException)
 */
double fisher_strand_p_value(const ContingencyTable& table);

/// FisherStrand.makeValueObjectForAnnotation(pValue): "%.3f" of the Phred-scaled max(p, 1e-320).
std::string fisher_strand_value_text(double p_value);

/// The FS value written for a table ("%.3f").
std::string fisher_strand_text(const ContingencyTable& table);

/// StrandOddsRatio.calculateSOR (natural log, pseudocount 1).
double strand_odds_ratio(const ContingencyTable& table);

/// The SOR value written for a table ("%.3f").
std::string strand_odds_ratio_text(const ContingencyTable& table);

}  // namespace gpp::stages::call
