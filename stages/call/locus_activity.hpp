// The per-position "is this site active?" probability of HaplotypeCaller (GATK
// HaplotypeCallerEngine.isActive, single-sample path), and the reference-versus-any genotype
// likelihoods it rests on (ReferenceConfidenceModel.calcGenotypeLikelihoodsOfRefVsAny with
// readsWereRealigned = false; the reference-confidence model after assembly uses the same
// accumulator with readsWereRealigned = true, stages/call/reference_confidence.hpp).
//
// Per pileup element (ReferenceConfidenceModel.applyPileupElementRefVsNonRefLikelihoodAndCount):
//  - deletions get quality --ref-model-del-qual (REF_MODEL_DELETION_QUAL 30) and are never skipped;
//    other elements with quality <= --min-base-quality-score (10) are skipped;
//  - the element is "alt" (isAltBeforeAssembly) if its base differs from the reference base, it is
//    a deletion, or it sits just before/after a deletion or insertion or next to a soft clip;
//  - alt: L(non-ref) = log10(1 - e), L(ref) = log10(e) + log10(1/3); ref: the other way round;
//  - GL[0] += L(ref) + log10(P), GL[P] += L(non-ref) + log10(P), GL[i] (0 < i < P) +=
//    approximateLog10SumLog10(L(ref) + log10(P - i), L(non-ref) + log10(i)); finally every GL gets
//    -(reads counted) * log10(P), with P = max(2, sample ploidy);
//  - an alt element next to a soft clip adds the read's number of soft-clipped bases with quality
//    > 28 to a running average.
// isActive then rounds the GLs to PLs and back (GenotypeBuilder.PL(double[]) /
// getLikelihoods().getAsVector()), and the probability is AlleleFrequencyCalculator
// .calculateSingleSampleBiallelicNonRefPosterior(GLs, true): 0 if hom-ref is the most likely
// genotype (before or after the prior), else 1 - P(hom-ref | data) under the Dirichlet prior with
// pseudocounts ref = het / sd^2 and snp = het * ref (het 0.001, sd 0.01). An empty pileup gives 0.
// If the running average of high-quality soft clips exceeds 6, the state is of type
// HIGH_QUALITY_SOFT_CLIPS with that average as its value (ActivityProfile spreads it).
//
// @code
//   LocusActivityOptions options;                       // GATK defaults
//   ActivityProfileState s = locus_activity(pos, walker.pileup_at(pos), reference[pos], options);
// @endcode
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "stages/call/activity_profile.hpp"
#include "stages/call/pileup.hpp"

namespace gpp::stages::call {

/// HaplotypeCaller arguments the active-site probability depends on (defaults are GATK's).
struct LocusActivityOptions {
  int sample_ploidy = 2;               ///< --sample-ploidy; detection uses max(2, this)
  std::uint8_t min_base_quality = 10;  ///< --min-base-quality-score
  std::uint8_t deletion_quality = 30;  ///< --ref-model-del-qual (REF_MODEL_DELETION_QUAL)
  double snp_heterozygosity = 1e-3;    ///< --heterozygosity
  double heterozygosity_stdev = 0.01;  ///< --heterozygosity-stdev
};

/// GATK MathUtils.RunningAverage (Welford), as isActive feeds it high-quality soft-clip counts.
struct RunningAverage {
  double mean = 0.0;
  double s = 0.0;
  std::int64_t count = 0;
  void add(double observation);
};

/// GATK ReferenceConfidenceModel.RefVsAnyResult.
struct RefVsAnyLikelihoods {
  std::vector<double> genotype_likelihoods;  ///< log10; index = number of non-ref copies
  int ref_depth = 0;
  int non_ref_depth = 0;

  /// GATK getAD: {ref_depth, non_ref_depth}.
  std::vector<int> allele_depths() const { return {ref_depth, non_ref_depth}; }
  int depth() const { return ref_depth + non_ref_depth; }
  /// GATK getGenotypeLikelihoodsCappedByHomRefLikelihood: each GL capped at GL[0].
  std::vector<double> capped_by_hom_ref_likelihood() const;
};

/**
 * @brief GATK ReferenceConfidenceModel.isAltBeforeAssembly: does the element count against the
 *        reference base before assembly?
 */
inline bool is_alt_before_assembly(const PileupElement& element, char reference_base) {
  // Inside an M, = or X element (most elements) no neighbour counts: only the base.
  if (!element.is_deletion() && !element.at_start_of_cigar() && !element.at_end_of_cigar()) {
    return element.read->bases[element.read_offset] != reference_base;
  }
  return element.base() != reference_base || element.is_deletion() ||
         element.is_before_deletion_start() || element.is_after_deletion_end() ||
         element.is_before_insertion() || element.is_after_insertion() ||
         element.is_next_to_soft_clip();
}

/**
 * @brief Marks, in `marks` (one per reference position from `first`), the positions where an
 *        element of `read` may be alt before assembly (is_alt_before_assembly): a base unlike
 *        `reference` (the contig's bases, upper case, from position 0), a deletion, the first and
 *        last bases of an M, = or X element next to any other CIGAR element (insertion, deletion,
 *        skip, clip, or an empty element). A superset: where no read marks a position whose
 *        reference base is A, C, G or T, no element there is alt. A read whose CIGAR does not
 *        match its bases marks nothing (the pileup refuses it).
 */
void mark_possible_alt_positions(const CallRead& read, std::string_view reference,
                                 std::int64_t first, std::span<char> marks);

/**
 * @brief GATK ReferenceConfidenceModel.isAltAfterAssembly: does the element count against the
 *        reference base once the reads were realigned to their best haplotype? (Only a different
 *        base or a deletion; no soft clips are expected after assembly.)
 */
inline bool is_alt_after_assembly(const PileupElement& element, char reference_base) {
  return element.base() != reference_base || element.is_deletion();
}

/**
 * @brief calcGenotypeLikelihoodsOfRefVsAny one pileup element at a time (see
 *        ref_vs_any_likelihoods, which is built on it).
 *
 * Each counted element adds precomputed terms (evaluated once per quality exactly as GATK's
 * loop evaluates them) to the ploidy + 1 likelihoods, in element order, so the sums are GATK's.
 * `reads_were_realigned` picks GATK's alt rule: is_alt_after_assembly when true (the
 * reference-confidence model), is_alt_before_assembly when false (active-region detection).
 * @code
 *   RefVsAnyAccumulator gl(2, 10, 30);
 *   gl.reset('A');
 *   for (const PileupElement& e : pileup) gl.add(e);
 *   std::span<const double> likelihoods = gl.finish();
 * @endcode
 */
class RefVsAnyAccumulator {
 public:
  /// @throws gpp::Error if ploidy < 1
  RefVsAnyAccumulator(int ploidy, std::uint8_t min_base_quality, std::uint8_t deletion_quality,
                      bool reads_were_realigned = false);
  RefVsAnyAccumulator(const RefVsAnyAccumulator&) = delete;
  RefVsAnyAccumulator& operator=(const RefVsAnyAccumulator&) = delete;

  /// Starts a position whose reference base (upper case) is `reference_base`.
  void reset(char reference_base);
  /// Counts one element; true if it was counted as alt (false when skipped for its quality).
  bool add(const PileupElement& element) {
    const bool deletion = element.is_deletion();
    const std::uint8_t qual = deletion ? deletion_quality_ : element.qual();
    if (qual <= min_base_quality_ && !deletion) return false;
    ++read_count_;
    const bool is_alt = reads_were_realigned_ ? is_alt_after_assembly(element, reference_base_)
                                              : is_alt_before_assembly(element, reference_base_);
    ++(is_alt ? non_ref_depth_ : ref_depth_);
    const double* terms = terms_ + (static_cast<std::size_t>(is_alt) * 256 + qual) * count_;
    if (count_ == 3) {  // diploid detection, at every position
      likelihoods_[0] += terms[0];
      likelihoods_[1] += terms[1];
      likelihoods_[2] += terms[2];
    } else {
      for (std::size_t i = 0; i < count_; ++i) likelihoods_[i] += terms[i];
    }
    return is_alt;
  }
  /// The position's log10 likelihoods (index = non-ref copies), each less reads * log10(ploidy).
  std::span<const double> finish();
  int ref_depth() const { return ref_depth_; }
  int non_ref_depth() const { return non_ref_depth_; }

 private:
  static constexpr std::size_t kInlineLikelihoods = 16;
  std::vector<double> terms_scratch_;  ///< terms of a ploidy not kept in the shared cache
  const double* terms_ = nullptr;      ///< [(is_alt * 256 + qual) * count_ + allele count]
  std::size_t count_;                  ///< ploidy + 1
  double log10_ploidy_;
  std::uint8_t min_base_quality_;
  std::uint8_t deletion_quality_;
  bool reads_were_realigned_;
  char reference_base_ = 'N';
  int read_count_ = 0;
  int ref_depth_ = 0;
  int non_ref_depth_ = 0;
  std::array<double, kInlineLikelihoods> inline_likelihoods_{};
  std::vector<double> heap_likelihoods_;
  double* likelihoods_;
};

/**
 * @brief GATK ReferenceConfidenceModel.calcGenotypeLikelihoodsOfRefVsAny (readsWereRealigned =
 *        false, not flow-based).
 *
 * @param ploidy            number of chromosomes (>= 1); GLs has ploidy + 1 entries
 * @param pileup            the elements at one position
 * @param reference_base    the reference base there (upper case)
 * @param min_base_quality  elements with quality <= this are skipped (deletions never are)
 * @param deletion_quality  quality given to deletions
 * @param hq_soft_clips     optional: receives the high-quality soft-clip counts of alt elements
 *                          next to a soft clip
 * @throws gpp::Error if ploidy < 1
 */
RefVsAnyLikelihoods ref_vs_any_likelihoods(std::span<const PileupElement> pileup,
                                           char reference_base, int ploidy,
                                           std::uint8_t min_base_quality,
                                           std::uint8_t deletion_quality,
                                           RunningAverage* hq_soft_clips = nullptr);

/// GATK AlignmentUtils.countHighQualitySoftClips: soft-clipped bases with quality > threshold.
int count_high_quality_soft_clips(const CallRead& read, std::uint8_t quality_threshold);

/// htsjdk GenotypeLikelihoods.fromLog10Likelihoods(gls).getAsPLs() then fromPLs(..).getAsVector():
/// PL = round(min(-10 (GL - max GL), INT_MAX)), GL' = PL / -10.
std::vector<double> round_trip_through_pls(std::span<const double> log10_likelihoods);

/**
 * @brief GATK AlleleFrequencyCalculator.calculateSingleSampleBiallelicNonRefPosterior(gls, true).
 * @param log10_likelihoods  ploidy + 1 genotype log10 likelihoods (index = alt copies)
 * @return 0 when hom-ref is the most likely genotype before or after the prior, else
 *         1 - P(hom-ref | data)
 * @throws gpp::Error if fewer than 2 likelihoods are given
 */
double single_sample_non_ref_posterior(std::span<const double> log10_likelihoods,
                                       double ref_pseudocount, double snp_pseudocount);

/// AlleleFrequencyCalculator.makeCalculator pseudocounts: ref = het / sd^2, snp = het * ref.
double ref_pseudocount(const LocusActivityOptions& options);
double snp_pseudocount(const LocusActivityOptions& options);

/**
 * @brief GATK HaplotypeCallerEngine.isActive for one sample (no force-calling alleles).
 * @param position        0-based reference position of the pileup
 * @param pileup          the elements there (PileupWalker::pileup_at)
 * @param reference_base  the reference base there; lower case and IUPAC codes are read as GATK's
 *                        reference reader gives them (upper case, non-ACGT as N)
 * @return the state to add to the ActivityProfile
 * @throws gpp::Error on invalid options
 */
ActivityProfileState locus_activity(std::int64_t position, std::span<const PileupElement> pileup,
                                    char reference_base, const LocusActivityOptions& options);

/**
 * @brief locus_activity fed one element at a time, for a walk that does not store the pileup
 *        (PileupWalker::for_each_element_at); locus_activity is built on it.
 * @code
 *   LocusActivityAccumulator activity(options);          // once per walk
 *   activity.reset(reference[pos]);
 *   walker.for_each_element_at(pos, [&](const PileupElement& e) { activity.add(e); });
 *   ActivityProfileState state = activity.finish(pos);   // == locus_activity(pos, pileup, ...)
 * @endcode
 */
class LocusActivityAccumulator {
 public:
  /// @throws gpp::Error on invalid options (as locus_activity)
  explicit LocusActivityAccumulator(const LocusActivityOptions& options);

  /// Starts a position; `reference_base` as locus_activity takes it.
  void reset(char reference_base);
  void add(const PileupElement& element) {
    ++elements_;
    if (likelihoods_.add(element) && element.is_next_to_soft_clip()) add_soft_clips(element);
  }
  ActivityProfileState finish(std::int64_t position);

 private:
  void add_soft_clips(const PileupElement& element);

  RefVsAnyAccumulator likelihoods_;
  double ref_pseudocount_;
  double snp_pseudocount_;
  RunningAverage hq_soft_clips_;
  std::size_t elements_ = 0;
  bool counted_quals_above_one_;  ///< bases counted only above a minimum of 1 or more
};

}  // namespace gpp::stages::call
