// The double-precision PairHMM reference: GATK's LoglessPairHMM recurrences written out literally
// (same coefficients, same order of operations), with rows rescaled by powers of two when they
// sink towards the bottom of the double range. That is exact while the pair's likelihood stays
// above 10^kDoubleExactLog10; below it, the cells a row needs can lie further below the row's
// largest than a double reaches, so those pairs are recomputed in log space (exact, slower).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "kernels/pairhmm/detail/pairhmm_model.hpp"
#include "kernels/pairhmm/pairhmm.hpp"

namespace gpp::kernels {

namespace {

using namespace pairhmm;

struct Pair {
  std::string_view read;
  std::span<const std::uint8_t> base_quals, ins, del, gcp;
  std::vector<std::uint8_t> hap_codes;
};

struct RowTransitions {
  int read_code;
  double match, mismatch, t_mm, t_gm, t_mi, t_md, gap;
};

RowTransitions row_transitions(const QualityTables& t, const Pair& p, std::size_t position) {
  const double e = t.error[p.base_quals[position] & 127];
  const double gap = t.error[p.gcp[position] & 127];
  return {base_code(static_cast<unsigned char>(p.read[position])),
          1.0 - e,  // QualityUtils.qualToProb
          e / 3.0,  // TRISTATE_CORRECTION
          t.match_to_match[(p.ins[position] & 127) * kQualities + (p.del[position] & 127)],
          1.0 - gap,  // indelToMatch
          t.error[p.ins[position] & 127],
          t.error[p.del[position] & 127],
          gap};
}

double double_forward(const Pair& p) {
  const QualityTables& t = quality_tables();
  const std::size_t m = p.read.size(), n = p.hap_codes.size();
  // Rows i-1 (prev) and i (cur) of M, I, D; column 0 is the matrix's zero column.
  std::vector<double> prev_m(n + 1, 0.0), prev_i(n + 1, 0.0), prev_d(n + 1);
  std::vector<double> cur_m(n + 1, 0.0), cur_i(n + 1, 0.0), cur_d(n + 1, 0.0);
  const double initial_condition = std::ldexp(1.0, 1020);  // LoglessPairHMM.INITIAL_CONDITION
  std::fill(prev_d.begin(), prev_d.end(), initial_condition / static_cast<double>(n));
  int scaled_by = 0;  // log2 of the factor every value carries on top of the initial condition
  for (std::size_t i = 1; i <= m; ++i) {
    const RowTransitions r = row_transitions(t, p, i - 1);
    cur_m[0] = cur_i[0] = cur_d[0] = 0.0;  // column 0 (after the first row the buffers are reused)
    double row_max = 0.0;
    for (std::size_t j = 1; j <= n; ++j) {
      const double prior = emission<double>(r.read_code, p.hap_codes[j - 1], r.match, r.mismatch);
      cur_m[j] = prior * (prev_m[j - 1] * r.t_mm + prev_i[j - 1] * r.t_gm + prev_d[j - 1] * r.t_gm);
      cur_i[j] = prev_m[j] * r.t_mi + prev_i[j] * r.gap;
      cur_d[j] = cur_m[j - 1] * r.t_md + cur_d[j - 1] * r.gap;
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

// log(e^a + e^b)
double log_sum(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == -std::numeric_limits<double>::infinity()) return a;
  return a + std::log1p(std::exp(b - a));
}

// The same recurrences with every cell held as its natural logarithm: no range limit.
double log_space_forward(const Pair& p) {
  const QualityTables& t = quality_tables();
  const std::size_t m = p.read.size(), n = p.hap_codes.size();
  const double zero = -std::numeric_limits<double>::infinity();
  std::vector<double> prev_m(n + 1, zero), prev_i(n + 1, zero),
      prev_d(n + 1, -std::log(static_cast<double>(n)));
  std::vector<double> cur_m(n + 1, zero), cur_i(n + 1, zero), cur_d(n + 1, zero);
  for (std::size_t i = 1; i <= m; ++i) {
    const RowTransitions r = row_transitions(t, p, i - 1);
    const double l_match = std::log(r.match), l_mismatch = std::log(r.mismatch),
                 l_mm = std::log(r.t_mm), l_gm = std::log(r.t_gm), l_mi = std::log(r.t_mi),
                 l_md = std::log(r.t_md), l_gap = std::log(r.gap);
    cur_m[0] = cur_i[0] = cur_d[0] = zero;
    for (std::size_t j = 1; j <= n; ++j) {
      const double prior = emission<double>(r.read_code, p.hap_codes[j - 1], l_match, l_mismatch);
      cur_m[j] =
          prior + log_sum(prev_m[j - 1] + l_mm, log_sum(prev_i[j - 1], prev_d[j - 1]) + l_gm);
      cur_i[j] = log_sum(prev_m[j] + l_mi, prev_i[j] + l_gap);
      cur_d[j] = log_sum(cur_m[j - 1] + l_md, cur_d[j - 1] + l_gap);
    }
    std::swap(prev_m, cur_m);
    std::swap(prev_i, cur_i);
    std::swap(prev_d, cur_d);
  }
  double sum = zero;
  for (std::size_t j = 1; j <= n; ++j) sum = log_sum(sum, log_sum(prev_m[j], prev_i[j]));
  return sum / std::log(10.0);
}

}  // namespace

double pairhmm_reference_log10(std::string_view read_bases,
                               std::span<const std::uint8_t> base_quals,
                               std::span<const std::uint8_t> insertion_quals,
                               std::span<const std::uint8_t> deletion_quals,
                               std::span<const std::uint8_t> gap_continuation_quals,
                               std::string_view haplotype) {
  const std::size_t m = read_bases.size();
  const std::size_t n = haplotype.size();
  if (m == 0 || n == 0) throw Error("pairhmm: empty read or haplotype");
  if (base_quals.size() != m || insertion_quals.size() != m || deletion_quals.size() != m ||
      gap_continuation_quals.size() != m) {
    throw Error("pairhmm: a read's bases and four quality columns differ in length");
  }
  Pair p{read_bases, base_quals, insertion_quals, deletion_quals, gap_continuation_quals, {}};
  p.hap_codes.resize(n);
  for (std::size_t j = 0; j < n; ++j)
    p.hap_codes[j] = pairhmm::base_code(static_cast<unsigned char>(haplotype[j]));
  const double result = double_forward(p);
  return result >= pairhmm::kDoubleExactLog10 ? result : log_space_forward(p);
}

}  // namespace gpp::kernels
