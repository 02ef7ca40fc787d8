// GATK MannWhitneyU (calculateRank, calculateU1andU2, transformTies, calculateZ, test,
// permutationTest) and commons-math's inverse normal CDF (NormalDistribution,
// Erf.erfInv); see mann_whitney_u.hpp for the rules.
#include "stages/call/annotations/mann_whitney_u.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace gpp::stages::call {
namespace {

constexpr int kMinimumNormalN = 10;  // MannWhitneyU.MINIMUM_NORMAL_N

/// Both series ranked together as MannWhitneyU.calculateRank does it (float ranks, 1-based).
struct RankedSeries {
  std::vector<double> values;
  std::vector<float> ranks;
  std::vector<std::uint8_t> from_first;  // 1: series 1
  std::vector<int> tie_run_lengths;
};

RankedSeries rank_together(std::span<const double> series1, std::span<const double> series2) {
  std::vector<double> first(series1.begin(), series1.end());
  std::vector<double> second(series2.begin(), series2.end());
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  const std::size_t n = first.size() + second.size();
  RankedSeries ranked;
  ranked.values.reserve(n);
  ranked.ranks.reserve(n);
  ranked.from_first.reserve(n);
  std::size_t i = 0, j = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const bool take_first = j >= second.size() || (i < first.size() && first[i] <= second[j]);
    ranked.values.push_back(take_first ? first[i++] : second[j++]);
    ranked.ranks.push_back(static_cast<float>(r + 1));
    ranked.from_first.push_back(take_first ? 1 : 0);
  }
  // Runs of equal values share the mean rank, summed and divided in float as GATK does.
  for (std::size_t start = 0; start < n;) {
    float rank = ranked.ranks[start];
    int count = 1;
    for (std::size_t k = start + 1; k < n && ranked.values[k] == ranked.values[start]; ++k) {
      rank += ranked.ranks[k];
      ++count;
    }
    if (count > 1) {
      rank /= static_cast<float>(count);
      for (std::size_t k = start; k < start + count; ++k) ranked.ranks[k] = rank;
      ranked.tie_run_lengths.push_back(count);
    }
    start += count;
  }
  return ranked;
}

/// Java int multiplication (wraps on overflow) for the products GATK computes in int.
double java_int_product(std::int64_t a, std::int64_t b) {
  const auto wrapped =
      static_cast<std::uint32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
  return static_cast<double>(static_cast<std::int32_t>(wrapped));
}

double normal_approximation_z(double u, int n1, int n2, double ties, MannWhitneyTestType type) {
  const double mean = java_int_product(n1, n2) / 2.0;
  double correction;
  if (type == MannWhitneyTestType::kTwoSided) {
    correction = (u - mean) >= 0 ? 0.5 : -0.5;
  } else {
    correction = type == MannWhitneyTestType::kFirstDominates ? -0.5 : 0.5;
  }
  if (ties == 0) correction = 0;
  const int n = n1 + n2;
  const double sigma =
      std::sqrt((java_int_product(n1, n2) / 12.0) * ((n + 1) - ties / java_int_product(n, n - 1)));
  return (u - mean - correction) / sigma;
}

/// commons-math NormalDistribution(0, 1).cumulativeProbability.
double standard_normal_cdf(double x) {
  if (std::fabs(x) > 40) return x < 0 ? 0.0 : 1.0;
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

/// MannWhitneyU.permutationTest: P(U1 < u) + P(U1 == u) / 2 over all labelings of the ranks.
double permutation_p_value(const RankedSeries& ranked, int n1, double u) {
  // Twice every rank is an integer (ranks are integers or half-integers).
  const int n = static_cast<int>(ranked.ranks.size());
  std::vector<int> twice_rank(n);
  int max_sum = 0;
  for (int i = 0; i < n; ++i) {
    twice_rank[i] = static_cast<int>(std::lround(2.0 * ranked.ranks[i]));
    max_sum += twice_rank[i];
  }
  // ways[c][s]: labelings of the ranks seen so far with c in series 1 and twice their rank sum s.
  std::vector<std::vector<std::int64_t>> ways(n1 + 1, std::vector<std::int64_t>(max_sum + 1, 0));
  ways[0][0] = 1;
  for (int i = 0; i < n; ++i) {
    for (int c = std::min(i + 1, n1); c >= 1; --c) {
      for (int s = max_sum; s >= twice_rank[i]; --s) ways[c][s] += ways[c - 1][s - twice_rank[i]];
    }
  }
  // Bin of a labeling: round(2 U1) = 2 * rank sum - n1 (n1 + 1).
  const std::int64_t observed_bin = static_cast<std::int64_t>(std::floor(2.0 * u + 0.5));
  double below = 0, at = 0, total = 0;
  for (int s = 0; s <= max_sum; ++s) {
    const auto count = static_cast<double>(ways[n1][s]);
    if (count == 0) continue;
    const std::int64_t bin = s - static_cast<std::int64_t>(n1) * (n1 + 1);
    total += count;
    if (bin < observed_bin) below += count;
    if (bin == observed_bin) at = count;
  }
  return (at / 2.0 + below) / total;
}

}  // namespace

double mann_whitney_transformed_ties(int rank_count, std::span<const int> tie_run_lengths) {
  double sum = 0.0;
  for (int count : tie_run_lengths) {
    if (count != rank_count) {
      const double t = count;
      sum += t * t * t - t;
    }
  }
  return sum;
}

MannWhitneyUResult mann_whitney_u_test(std::span<const double> series1,
                                       std::span<const double> series2, MannWhitneyTestType type) {
  const int n1 = static_cast<int>(series1.size());
  const int n2 = static_cast<int>(series2.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (n1 == 0 || n2 == 0) return {nan, nan, nan};

  const RankedSeries ranked = rank_together(series1, series2);
  float rank_sum1 = 0, rank_sum2 = 0;
  for (std::size_t i = 0; i < ranked.ranks.size(); ++i) {
    if (ranked.from_first[i]) {
      rank_sum1 += ranked.ranks[i];
    } else {
      rank_sum2 += ranked.ranks[i];
    }
  }
  const double d1 = n1, d2 = n2;
  const double u1 = rank_sum1 - (d1 * (d1 + 1)) / 2;
  const double u2 = rank_sum2 - (d2 * (d2 + 1)) / 2;
  const double ties =
      mann_whitney_transformed_ties(static_cast<int>(ranked.ranks.size()), ranked.tie_run_lengths);
  const double u = type == MannWhitneyTestType::kTwoSided         ? std::min(u1, u2)
                   : type == MannWhitneyTestType::kFirstDominates ? u1
                                                                  : u2;
  MannWhitneyUResult result;
  result.u = u;
  if (n1 >= kMinimumNormalN || n2 >= kMinimumNormalN) {
    result.z = normal_approximation_z(u, n1, n2, ties, type);
    result.p = 2 * standard_normal_cdf(result.z);
    if (type != MannWhitneyTestType::kTwoSided) result.p /= 2;
  } else {
    // GATK runs the one-sided exact test here whatever the requested side.
    result.p = permutation_p_value(ranked, n1, u);
    result.z = inverse_standard_normal_cdf(result.p);
  }
  return result;
}

double inverse_standard_normal_cdf(double p) {
  return std::sqrt(2.0) * inverse_error_function(2 * p - 1);
}

double inverse_error_function(double x) {
  // Giles' single-branch-per-range polynomials, highest degree first, evaluated p = c + p * w.
  static constexpr double kCentral[] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,
      1.115787767802518096e-17,   -1.333171662854620906e-16,  2.0972767875968561637e-17,
      6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
      2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
      4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
      0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
      0.24015818242558961693,     1.6536545626831027356};
  static constexpr double kTail[] = {
      2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
      1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
      2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
      6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
      0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
      -0.0037512085075692412107, 0.005370914553590063617,   1.0052589676941592334,
      3.0838856104922207635};
  static constexpr double kFarTail[] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
      -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
      2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
      -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
      1.0103004648645343977,      4.8499064014085844221};
  auto horner = [](std::span<const double> coefficients, double w) {
    double p = coefficients[0];
    for (std::size_t i = 1; i < coefficients.size(); ++i) p = coefficients[i] + p * w;
    return p;
  };
  // (1 - x)(1 + x), not 1 - x^2, keeps precision near +-1.
  double w = -std::log((1.0 - x) * (1.0 + x));
  double p;
  if (w < 6.25) {
    p = horner(kCentral, w - 3.125);
  } else if (w < 16.0) {
    p = horner(kTail, std::sqrt(w) - 3.25);
  } else if (!std::isinf(w)) {
    p = horner(kFarTail, std::sqrt(w) - 5.0);
  } else {
    p = std::numeric_limits<double>::infinity();
  }
  return p * x;
}

}  // namespace gpp::stages::call
