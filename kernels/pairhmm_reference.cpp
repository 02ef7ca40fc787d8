// The double-precision PairHMM reference: GATK's LoglessPairHMM recurrences written out literally
// (same coefficients, same order of operations), plus power-of-two rescaling of rows that sink
// towards the bottom of the double range, so that no likelihood underflows to -infinity.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/pairhmm.hpp"
#include "kernels/pairhmm_model.hpp"

namespace gpp::kernels {

double pairhmm_reference_log10(std::string_view read_bases,
                               std::span<const std::uint8_t> base_quals,
                               std::span<const std::uint8_t> insertion_quals,
                               std::span<const std::uint8_t> deletion_quals,
                               std::span<const std::uint8_t> gap_continuation_quals,
                               std::string_view haplotype) {
  using namespace pairhmm;
  const std::size_t m = read_bases.size();
  const std::size_t n = haplotype.size();
  if (m == 0 || n == 0) throw Error("pairhmm: empty read or haplotype");
  if (base_quals.size() != m || insertion_quals.size() != m || deletion_quals.size() != m ||
      gap_continuation_quals.size() != m) {
    throw Error("pairhmm: a read's bases and four quality columns differ in length");
  }
  const QualityTables& t = quality_tables();
  std::vector<std::uint8_t> hap_codes(n);
  for (std::size_t j = 0; j < n; ++j)
    hap_codes[j] = base_code(static_cast<unsigned char>(haplotype[j]));

  // Rows i-1 (prev) and i (cur) of M, I, D; column 0 is the matrix's zero column.
  std::vector<double> prev_m(n + 1, 0.0), prev_i(n + 1, 0.0), prev_d(n + 1);
  std::vector<double> cur_m(n + 1, 0.0), cur_i(n + 1, 0.0), cur_d(n + 1, 0.0);
  const double initial_condition = std::ldexp(1.0, 1020);  // LoglessPairHMM.INITIAL_CONDITION
  std::fill(prev_d.begin(), prev_d.end(), initial_condition / static_cast<double>(n));
  int scaled_by = 0;  // log2 of the factor every value carries on top of the initial condition

  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t p = i - 1;
    const int read_code = base_code(static_cast<unsigned char>(read_bases[p]));
    const double e = t.error[base_quals[p] & 127];
    const double match = 1.0 - e;     // QualityUtils.qualToProb
    const double mismatch = e / 3.0;  // TRISTATE_CORRECTION
    const double gap = t.error[gap_continuation_quals[p] & 127];
    const double t_mm =
        t.match_to_match[(insertion_quals[p] & 127) * kQualities + (deletion_quals[p] & 127)];
    const double t_gm = 1.0 - gap;  // indelToMatch
    const double t_mi = t.error[insertion_quals[p] & 127];
    const double t_md = t.error[deletion_quals[p] & 127];
    cur_m[0] = cur_i[0] = cur_d[0] = 0.0;  // column 0 (after the first row the buffers are reused)
    double row_max = 0.0;
    for (std::size_t j = 1; j <= n; ++j) {
      const double prior = emission<double>(read_code, hap_codes[j - 1], match, mismatch);
      cur_m[j] = prior * (prev_m[j - 1] * t_mm + prev_i[j - 1] * t_gm + prev_d[j - 1] * t_gm);
      cur_i[j] = prev_m[j] * t_mi + prev_i[j] * gap;
      cur_d[j] = cur_m[j - 1] * t_md + cur_d[j - 1] * gap;
      row_max = std::max(row_max, std::max(cur_m[j], std::max(cur_i[j], cur_d[j])));
    }
    // Far below what a double resolves relative to 2^1020, but still normal: bring the row back
    // up by an exact power of two (this changes nothing for pairs GATK computes without underflow).
    if (row_max > 0.0 && row_max < std::ldexp(1.0, -512)) {
      const int shift = 1000 - std::ilogb(row_max);
      for (std::size_t j = 1; j <= n; ++j) {
        cur_m[j] = std::ldexp(cur_m[j], shift);
        cur_i[j] = std::ldexp(cur_i[j], shift);
        cur_d[j] = std::ldexp(cur_d[j], shift);
      }
      scaled_by += shift;
    }
    std::swap(prev_m, cur_m);
    std::swap(prev_i, cur_i);
    std::swap(prev_d, cur_d);
  }
  double sum = 0.0;
  for (std::size_t j = 1; j <= n; ++j) sum += prev_m[j] + prev_i[j];
  return std::log10(sum) - std::log10(initial_condition) - scaled_by * kLog10Of2;
}

}  // namespace gpp::kernels
