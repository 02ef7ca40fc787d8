// Post-processing of HaplotypeCaller's read x haplotype log10 likelihoods, in GATK's order
// (PairHMMLikelihoodCalculationEngine.computeReadLikelihoods):
//   1. AlleleLikelihoods.normalizeLikelihoods: per read, every likelihood below
//      best + log10(mismapping rate) is raised to it, with the mismapping rate from
//      --phred-scaled-global-read-mismapping-rate 45 (-4.5; a negative phred disables the cap).
//      "Symmetric" (the default): the best may be the reference haplotype; otherwise the best is
//      taken over the other haplotypes only. Nothing happens with fewer than two haplotypes.
//   2. AlleleLikelihoods.filterPoorlyModeledEvidence with
//      ReadLikelihoodCalculationEngine.log10MinTrueLikelihood: a read is removed if its best
//      likelihood is < -4 * min(2, ceil(0.02 * L)), L the length of the read the PairHMM saw
//      (the exact double expression GATK evaluates). With --dynamic-read-disqualification-
//      threshold (DRAGEN mode) the threshold is the lower of that and a base-quality-derived one
//      (calculateLog10DynamicReadQualThreshold).
// Each read is treated on its own, so per-sample matrices need no special handling.
//
// @code
//   ReadLikelihoodMatrix m{{-10.0, -20.0}, 1, 2};       // 1 read x 2 haplotypes, read-major
//   auto removed = postprocess_read_likelihoods(m, read_lengths, {}, 0);
//   // m.values == {-10.0, -14.5}; removed is empty unless -10 < threshold
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpp::stages::call {

/// ReadLikelihoodCalculationEngine.DEFAULT_EXPECTED_ERROR_RATE_PER_BASE.
inline constexpr double kDefaultExpectedErrorRatePerBase = 0.02;
/// LikelihoodEngineArgumentCollection.phredScaledGlobalReadMismappingRate.
inline constexpr int kDefaultPhredScaledGlobalReadMismappingRate = 45;

/// Log10 likelihoods, read-major: value(r, h) = values[r * haplotype_count + h] (the layout of
/// kernels::PairHmm results within one group).
struct ReadLikelihoodMatrix {
  std::vector<double> values;
  std::size_t read_count = 0;
  std::size_t haplotype_count = 0;

  double& at(std::size_t read, std::size_t haplotype) {
    return values[read * haplotype_count + haplotype];
  }
  double at(std::size_t read, std::size_t haplotype) const {
    return values[read * haplotype_count + haplotype];
  }
};

struct ReadLikelihoodOptions {
  int phred_scaled_global_read_mismapping_rate = kDefaultPhredScaledGlobalReadMismappingRate;
  bool symmetrically_normalize_alleles_to_reference = true;  ///< !--disable-symmetric-hmm-...
  double expected_error_rate_per_base = kDefaultExpectedErrorRatePerBase;
  /// --enable-dynamic-read-disqualification-for-genotyping
  bool dynamic_read_disqualification = false;
  double read_disqualification_scale = 1.0;  ///< --dynamic-read-disqualification-threshold
};

/// QualityUtils.qualToErrorProbLog10(phred) = phred * -0.1, or -infinity for a negative phred
/// (AssemblyBasedCallerUtils.getGlobalMismatchingRateFromArgs).
double log10_global_read_mismapping_rate(int phred_scaled_rate);

/// Step 1 on every read. @throws gpp::Error if log10_mismapping_rate is not negative (GATK's
/// check; -infinity disables the cap). `reference_haplotype` is the reference's column (or -1 for
/// none); it matters only when the normalisation is not symmetric.
void cap_likelihoods_by_mismapping_rate(ReadLikelihoodMatrix& matrix, double log10_mismapping_rate,
                                        bool symmetric, std::ptrdiff_t reference_haplotype);

/// ReadLikelihoodCalculationEngine.log10MinTrueLikelihood: -4 * min(2, ceil(length * rate)), or
/// -4 * ceil(length * rate) when !cap_errors (the dynamic mode's standard threshold).
double log10_min_true_likelihood(std::size_t read_length, double expected_error_rate_per_base,
                                 bool cap_errors = true);

/// ReadLikelihoodCalculationEngine.calculateLog10DynamicReadQualThreshold over the qualities the
/// PairHMM used.
double log10_dynamic_read_qual_threshold(std::span<const std::uint8_t> hmm_base_quals,
                                         double scale);

/**
 * @brief Steps 1 and 2: caps `matrix` in place, then removes the poorly modelled reads from it.
 *
 * @param matrix              read x haplotype log10 likelihoods
 * @param hmm_read_lengths    per read, the length of the read the PairHMM saw
 * @param hmm_base_quals      per read, the base qualities the PairHMM used (needed only for the
 *                            dynamic threshold; may be empty otherwise)
 * @param reference_haplotype the reference haplotype's column, or -1
 * @param options             HaplotypeCaller's switches (defaults: HaplotypeCaller's)
 * @return indices (into the input rows) of the removed reads, ascending; the matrix keeps the
 *         other rows in order
 * @throws gpp::Error if the sizes disagree, or the matrix has no haplotype column
 */
std::vector<std::size_t> postprocess_read_likelihoods(
    ReadLikelihoodMatrix& matrix, std::span<const std::size_t> hmm_read_lengths,
    std::span<const std::vector<std::uint8_t>> hmm_base_quals, std::ptrdiff_t reference_haplotype,
    const ReadLikelihoodOptions& options = {});

}  // namespace gpp::stages::call
