// GT/PL/GQ of one sample: GATKVariantContextUtils.makeGenotypeCall (USE_PLS_TO_ASSIGN) with
// htsjdk GenotypeLikelihoods.GLsToPLs, getGQLog10FromLikelihoods, GeneralUtils.normalizeFromLog10,
// GenotypeBuilder.log10PError and the VCF writer's GQ cap.
#include "stages/call/genotype_assignment.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {
namespace {

// Java (int) of a long: keep the low 32 bits.
int java_long_to_int(std::int64_t value) {
  return static_cast<int>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value)));
}

// Java Math.min(double, double) for the cases met here: NaN wins.
double java_min(double a, double b) { return std::isnan(a) ? a : std::min(a, b); }

// htsjdk GeneralUtils.normalizeFromLog10 (linear output): 10^(x - max), divided by their sum.
std::vector<double> normalized_linear(std::span<const double> log10_values) {
  const double max_value = log10_values[max_element_index(log10_values)];
  std::vector<double> linear(log10_values.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < linear.size(); ++i) {
    linear[i] = std::pow(10.0, log10_values[i] - max_value);
    sum += linear[i];
  }
  for (double& value : linear) value /= sum;
  return linear;
}

}  // namespace

std::vector<int> pls_from_log10_likelihoods(std::span<const double> log10_likelihoods) {
  double best = -std::numeric_limits<double>::infinity();
  for (const double value : log10_likelihoods) best = std::max(best, value);
  std::vector<int> pls(log10_likelihoods.size());
  for (std::size_t i = 0; i < pls.size(); ++i) {
    const double pl = java_min(-10 * (log10_likelihoods[i] - best), static_cast<double>(INT_MAX));
    pls[i] = java_long_to_int(java_round(pl));
  }
  return pls;
}

std::vector<double> log10_likelihoods_from_pls(std::span<const int> pls) {
  std::vector<double> log10_likelihoods(pls.size());
  for (std::size_t i = 0; i < pls.size(); ++i) log10_likelihoods[i] = pls[i] / -10.0;
  return log10_likelihoods;
}

double gq_log10_from_likelihoods(int chosen, std::span<const double> log10_likelihoods) {
  if (chosen < 0 || chosen >= static_cast<int>(log10_likelihoods.size())) {
    throw Error("GQ: chosen genotype " + std::to_string(chosen) + " is out of range");
  }
  double second = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < static_cast<int>(log10_likelihoods.size()); ++i) {
    if (i != chosen && log10_likelihoods[i] >= second) second = log10_likelihoods[i];
  }
  const double margin = log10_likelihoods[chosen] - second;
  if (margin < 0) {
    // The chosen genotype is not the likeliest: the error is everything but its posterior.
    return std::log10(1.0 - normalized_linear(log10_likelihoods)[chosen]);
  }
  return -1 * margin;
}

Genotype assign_genotype(int ploidy, std::span<const double> log10_likelihoods, int allele_count) {
  if (static_cast<int>(log10_likelihoods.size()) != genotype_count(ploidy, allele_count)) {
    throw Error("genotype call: " + std::to_string(log10_likelihoods.size()) +
                " likelihoods do not match ploidy " + std::to_string(ploidy) + " and " +
                std::to_string(allele_count) + " alleles");
  }
  Genotype call;
  const int best = max_element_index(log10_likelihoods);
  const double log10_gq = gq_log10_from_likelihoods(best, log10_likelihoods);
  if (best == 0 && log10_gq > kSumGlThresholdNoCall) {
    call.alleles.assign(ploidy, kNoCallAlleleIndex);
  } else {
    GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(ploidy);
    for (int i = 0; i < best; ++i) genotype.increase();
    call.alleles = genotype.allele_indices();
  }
  call.pls = pls_from_log10_likelihoods(log10_likelihoods);
  if (allele_count > 1) {
    call.uncapped_gq = java_long_to_int(java_round(log10_gq * -10));
    call.gq = std::min(call.uncapped_gq, kMaxGenotypeQuality);
  }
  return call;
}

}  // namespace gpp::stages::call
