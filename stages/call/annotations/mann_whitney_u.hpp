// The Mann-Whitney-Wilcoxon rank-sum test exactly as GATK's org.broadinstitute.hellbender.utils.
// MannWhitneyU computes it (the z that BaseQRankSum, MQRankSum and ReadPosRankSum print):
//
//  - both series are sorted and merged (on equal values series 1 first) and ranked 1..n; a run of
//    equal values gets the mean of its ranks. Ranks and their sums are Java floats (single
//    precision), as in MannWhitneyU.Rank, so large depths round the same way GATK does;
//  - U1 = R1 - n1(n1+1)/2, U2 likewise; the one-sided statistic is U1 (FIRST_DOMINATES) or U2,
//    the two-sided one min(U1, U2);
//  - if n1 >= 10 or n2 >= 10 (MINIMUM_NORMAL_N): normal approximation,
//      z = (U - n1 n2 / 2 - c) / sqrt(n1 n2 / 12 * (n + 1 - T / (n (n - 1)))),
//    T = sum of t^3 - t over tie runs (a run holding every value counts 0), continuity
//    correction c = -0.5 (FIRST_DOMINATES), +0.5 (SECOND_DOMINATES), sign(U - mean) * 0.5
//    (two-sided), and c = 0 whenever T = 0 (no ties at all); p = Phi(z), doubled if two-sided;
//  - otherwise the exact permutation test: p = (half the permutations whose U1 equals U plus those
//    whose U1 is smaller) / all permutations, and z = Phi^-1(p) (commons-math
//    NormalDistribution.inverseCumulativeProbability with Giles' erfinv, as GATK uses it).
//
// The permutation distribution is counted by dynamic programming over the ranks instead of
// enumerating the C(n1+n2, n1) label permutations; the counts are identical integers.
//
// @code
//   auto r = mann_whitney_u_test({{10, 20}}, {{50, 60}}, MannWhitneyTestType::kFirstDominates);
//   // r.u == 0, r.p == 1/12, r.z == -1.3829941...
// @endcode
#pragma once

#include <span>

namespace gpp::stages::call {

enum class MannWhitneyTestType { kFirstDominates, kSecondDominates, kTwoSided };

struct MannWhitneyUResult {
  double u = 0;  ///< the test statistic (U1, U2 or min(U1, U2))
  double z = 0;  ///< z score; NaN when a series is empty
  double p = 0;  ///< p-value; NaN when a series is empty
};

/**
 * @brief GATK MannWhitneyU.test(series1, series2, whichSide).
 *
 * @param series1 first group (for the rank-sum annotations: the ALT reads' values)
 * @param series2 second group (the REF reads' values)
 * @param type    which hypothesis (the annotations use kFirstDominates)
 * @return U, z and p; all NaN if either series is empty
 */
MannWhitneyUResult mann_whitney_u_test(std::span<const double> series1,
                                       std::span<const double> series2, MannWhitneyTestType type);

/// GATK MannWhitneyU.transformTies: sum of t^3 - t over the tie-run lengths t, leaving out a run
/// of length rank_count (all values tied).
double mann_whitney_transformed_ties(int rank_count, std::span<const int> tie_run_lengths);

/// commons-math NormalDistribution(0, 1).inverseCumulativeProbability(p) = sqrt(2) erfinv(2p - 1).
/// p in [0, 1]; 0 and 1 give -inf and +inf.
double inverse_standard_normal_cdf(double p);

/// erfinv(x) for x in [-1, 1] with M. Giles' polynomials ("Approximating the erfinv function",
/// GPU Computing Gems 2, 2010) as commons-math Erf.erfInv evaluates them.
double inverse_error_function(double x);

}  // namespace gpp::stages::call
