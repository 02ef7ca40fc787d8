// GATK AlleleLikelihoods.normalizeLikelihoods / filterPoorlyModeledEvidence with
// ReadLikelihoodCalculationEngine's disqualification thresholds (see the header).
#include "stages/call/read_likelihoods.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

constexpr double kLog10QualPerBase = -4.0;

/// ReadLikelihoodCalculationEngine.dynamicReadQualThreshLookupTable: per base quality 1..40,
/// the mean and variance of the per-base contribution.
constexpr std::array<std::array<double, 2>, 40> kDynamicThresholdTable = {{
    {5.996842844, 0.196616587}, {5.870018422, 1.388545569}, {5.401558531, 5.641990128},
    {4.818940919, 10.33176216}, {4.218758304, 14.25799688}, {3.646319832, 17.02880749},
    {3.122346753, 18.64537883}, {2.654731979, 19.27521677}, {2.244479156, 19.13584613},
    {1.88893867, 18.43922003},  {1.583645342, 17.36842261}, {1.3233807, 16.07088712},
    {1.102785365, 14.65952563}, {0.916703025, 13.21718577}, {0.760361881, 11.80207947},
    {0.629457387, 10.45304833}, {0.520175654, 9.194183767}, {0.42918208, 8.038657241},
    {0.353590663, 6.991779595}, {0.290923699, 6.053379213}, {0.23906788, 5.219610436},
    {0.196230431, 4.484302033}, {0.160897421, 3.839943445}, {0.131795374, 3.27839108},
    {0.1078567, 2.791361596},   {0.088189063, 2.370765375}, {0.072048567, 2.008921719},
    {0.058816518, 1.698687797}, {0.047979438, 1.433525748}, {0.039111985, 1.207526336},
    {0.031862437, 1.015402928}, {0.025940415, 0.852465956}, {0.021106532, 0.714585285},
    {0.017163711, 0.598145851}, {0.013949904, 0.500000349}, {0.011332027, 0.41742159},
    {0.009200898, 0.348056286}, {0.007467036, 0.289881373}, {0.006057179, 0.241163527},
    {0.004911394, 0.200422214},
}};

/// AlleleLikelihoods.searchBestAllele(..., canBeReference = symmetric).likelihood.
double best_likelihood(const ReadLikelihoodMatrix& matrix, std::size_t read, bool symmetric,
                       std::ptrdiff_t reference) {
  const std::size_t count = matrix.haplotype_count;
  if (count == 0 || (count == 1 && reference == 0 && !symmetric)) {
    return -std::numeric_limits<double>::infinity();
  }
  const std::size_t first = (symmetric || reference != 0) ? 0 : 1;
  double best = matrix.at(read, first);
  for (std::size_t h = first + 1; h < count; ++h) {
    if (!symmetric && static_cast<std::ptrdiff_t>(h) == reference) continue;
    if (matrix.at(read, h) > best) best = matrix.at(read, h);
  }
  return best;
}

}  // namespace

double log10_global_read_mismapping_rate(int phred_scaled_rate) {
  if (phred_scaled_rate < 0) return -std::numeric_limits<double>::infinity();
  return phred_scaled_rate * -0.1;
}

void cap_likelihoods_by_mismapping_rate(ReadLikelihoodMatrix& matrix, double log10_mismapping_rate,
                                        bool symmetric, std::ptrdiff_t reference_haplotype) {
  if (!(log10_mismapping_rate < 0.0)) {
    throw Error("the global read mismapping rate must be below 1 (log10 rate " +
                std::to_string(log10_mismapping_rate) + ")");
  }
  if (std::isinf(log10_mismapping_rate) || matrix.haplotype_count < 2) return;
  for (std::size_t r = 0; r < matrix.read_count; ++r) {
    const double worst =
        best_likelihood(matrix, r, symmetric, reference_haplotype) + log10_mismapping_rate;
    for (std::size_t h = 0; h < matrix.haplotype_count; ++h) {
      if (matrix.at(r, h) < worst) matrix.at(r, h) = worst;
    }
  }
}

double log10_min_true_likelihood(std::size_t read_length, double expected_error_rate_per_base,
                                 bool cap_errors) {
  const double expected_errors =
      std::ceil(static_cast<double>(read_length) * expected_error_rate_per_base);
  const double max_errors = cap_errors ? std::min(2.0, expected_errors) : expected_errors;
  return max_errors * kLog10QualPerBase;
}

double log10_dynamic_read_qual_threshold(std::span<const std::uint8_t> hmm_base_quals,
                                         double scale) {
  double sum_mean = 0;
  double sum_variance = 0;
  for (std::uint8_t quality : hmm_base_quals) {
    const std::size_t entry = quality <= 1 ? 0 : std::min<std::size_t>(40, quality) - 1;
    sum_mean += kDynamicThresholdTable[entry][0];
    sum_variance += kDynamicThresholdTable[entry][1];
  }
  const double threshold = sum_mean + scale * std::sqrt(sum_variance);
  return threshold * -0.1;
}

std::vector<std::size_t> postprocess_read_likelihoods(
    ReadLikelihoodMatrix& matrix, std::span<const std::size_t> hmm_read_lengths,
    std::span<const std::vector<std::uint8_t>> hmm_base_quals, std::ptrdiff_t reference_haplotype,
    const ReadLikelihoodOptions& options) {
  if (matrix.values.size() != matrix.read_count * matrix.haplotype_count ||
      hmm_read_lengths.size() != matrix.read_count ||
      (options.dynamic_read_disqualification && hmm_base_quals.size() != matrix.read_count)) {
    throw Error("read likelihoods: matrix, read lengths and qualities disagree in size");
  }
  if (matrix.haplotype_count == 0) {
    throw Error("read likelihoods: cannot filter reads against no haplotypes");
  }
  cap_likelihoods_by_mismapping_rate(
      matrix, log10_global_read_mismapping_rate(options.phred_scaled_global_read_mismapping_rate),
      options.symmetrically_normalize_alleles_to_reference, reference_haplotype);

  std::vector<std::size_t> removed;
  std::size_t kept = 0;
  const std::size_t width = matrix.haplotype_count;
  for (std::size_t r = 0; r < matrix.read_count; ++r) {
    double best = -std::numeric_limits<double>::infinity();
    for (std::size_t h = 0; h < width; ++h) {
      if (matrix.at(r, h) > best) best = matrix.at(r, h);
    }
    double threshold;
    if (options.dynamic_read_disqualification) {
      const double dynamic =
          log10_dynamic_read_qual_threshold(hmm_base_quals[r], options.read_disqualification_scale);
      const double standard = log10_min_true_likelihood(
          hmm_read_lengths[r], options.expected_error_rate_per_base, false);
      threshold = dynamic < standard ? dynamic : standard;
    } else {
      threshold =
          log10_min_true_likelihood(hmm_read_lengths[r], options.expected_error_rate_per_base);
    }
    if (best < threshold) {
      removed.push_back(r);
      continue;
    }
    if (kept != r) {
      std::copy_n(matrix.values.begin() + static_cast<std::ptrdiff_t>(r * width), width,
                  matrix.values.begin() + static_cast<std::ptrdiff_t>(kept * width));
    }
    ++kept;
  }
  matrix.read_count = kept;
  matrix.values.resize(kept * width);
  return removed;
}

}  // namespace gpp::stages::call
