// GATK HaplotypeCallerEngine.isActive (single sample) and ReferenceConfidenceModel's ref-vs-any
// genotype likelihoods (see locus_activity.hpp).
#include "stages/call/locus_activity.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "core/error.hpp"
#include "stages/call/activity_math.hpp"

namespace gpp::stages::call {
namespace {

// HaplotypeCallerEngine.MINIMUM_PUTATIVE_PLOIDY_FOR_ACTIVE_REGION_DISCOVERY.
constexpr int kMinimumPutativePloidy = 2;
// HaplotypeCallerEngine.AVERAGE_HQ_SOFTCLIPS_HQ_BASES_THRESHOLD (exclusive).
constexpr double kAverageHqSoftClipsThreshold = 6.0;
// ReferenceConfidenceModel.HQ_BASE_QUALITY_SOFTCLIP_THRESHOLD (exclusive).
constexpr std::uint8_t kHqSoftClipQualityThreshold = 28;

// CachingIndexedFastaSequenceFile (GATK's reference reader): upper case, IUPAC codes as N.
char normalized_reference_base(char base) {
  switch (base) {
    case 'A':
    case 'a':
      return 'A';
    case 'C':
    case 'c':
      return 'C';
    case 'G':
    case 'g':
      return 'G';
    case 'T':
    case 't':
      return 'T';
    default:
      return 'N';
  }
}

}  // namespace

void RunningAverage::add(double observation) {
  ++count;
  const double old_mean = mean;
  mean += (observation - mean) / static_cast<double>(count);
  s += (observation - old_mean) * (observation - mean);
}

std::vector<double> RefVsAnyLikelihoods::capped_by_hom_ref_likelihood() const {
  std::vector<double> capped(genotype_likelihoods.size());
  for (std::size_t i = 0; i < capped.size(); ++i) {
    capped[i] = std::min(genotype_likelihoods[i], genotype_likelihoods[0]);
  }
  return capped;
}

bool is_alt_before_assembly(const PileupElement& element, char reference_base) {
  return element.base() != reference_base || element.is_deletion() ||
         element.is_before_deletion_start() || element.is_after_deletion_end() ||
         element.is_before_insertion() || element.is_after_insertion() ||
         element.is_next_to_soft_clip();
}

int count_high_quality_soft_clips(const CallRead& read, std::uint8_t quality_threshold) {
  int count = 0;
  std::size_t align_position = 0;
  for (std::uint32_t element : read.cigar) {
    const CigarOp op = cigar_op(element);
    if (op == CigarOp::kSoftClip) {
      for (std::uint32_t n = 0; n < cigar_length(element); ++n) {
        if (read.quals[align_position++] > quality_threshold) ++count;
      }
    } else if (consumes_query(op)) {
      align_position += cigar_length(element);
    }
  }
  return count;
}

RefVsAnyLikelihoods ref_vs_any_likelihoods(std::span<const PileupElement> pileup,
                                           char reference_base, int ploidy,
                                           std::uint8_t min_base_quality,
                                           std::uint8_t deletion_quality,
                                           RunningAverage* hq_soft_clips) {
  if (ploidy < 1) throw Error("ref-vs-any likelihoods: ploidy must be >= 1");
  const int likelihood_count = ploidy + 1;
  const double log10_ploidy = std::log10(static_cast<double>(ploidy));
  const double log10_one_third = activity_math::log10_one_third();

  RefVsAnyLikelihoods result;
  result.genotype_likelihoods.assign(static_cast<std::size_t>(likelihood_count), 0.0);
  auto& gl = result.genotype_likelihoods;
  int read_count = 0;
  for (const PileupElement& element : pileup) {
    const std::uint8_t qual = element.is_deletion() ? deletion_quality : element.qual();
    if (qual <= min_base_quality && !element.is_deletion()) continue;
    ++read_count;

    // applyPileupElementRefVsNonRefLikelihoodAndCount
    const bool is_alt = is_alt_before_assembly(element, reference_base);
    const double right = activity_math::qual_to_prob_log10(qual);
    const double wrong = activity_math::qual_to_error_prob_log10(qual) + log10_one_third;
    const double reference_likelihood = is_alt ? wrong : right;
    const double non_ref_likelihood = is_alt ? right : wrong;
    ++(is_alt ? result.non_ref_depth : result.ref_depth);

    gl[0] += reference_likelihood + log10_ploidy;
    gl[static_cast<std::size_t>(likelihood_count - 1)] += non_ref_likelihood + log10_ploidy;
    for (int i = 1, j = likelihood_count - 2; i < likelihood_count - 1; ++i, --j) {
      gl[static_cast<std::size_t>(i)] += activity_math::approximate_log10_sum_log10(
          reference_likelihood + std::log10(static_cast<double>(j)),
          non_ref_likelihood + std::log10(static_cast<double>(i)));
    }
    if (is_alt && hq_soft_clips != nullptr && element.is_next_to_soft_clip()) {
      hq_soft_clips->add(count_high_quality_soft_clips(*element.read, kHqSoftClipQualityThreshold));
    }
  }
  const double denominator = read_count * log10_ploidy;
  for (double& likelihood : gl) likelihood -= denominator;
  return result;
}

std::vector<double> round_trip_through_pls(std::span<const double> log10_likelihoods) {
  double adjust = -std::numeric_limits<double>::infinity();
  for (double l : log10_likelihoods) adjust = std::max(adjust, l);
  std::vector<double> result(log10_likelihoods.size());
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double phred = std::min(-10 * (log10_likelihoods[i] - adjust), double{INT_MAX});
    const int pl = std::isnan(phred) ? 0 : static_cast<int>(std::llround(phred));  // Math.round
    result[i] = pl / -10.0;
  }
  return result;
}

double single_sample_non_ref_posterior(std::span<const double> log10_likelihoods,
                                       double ref_pseudocount, double snp_pseudocount) {
  if (log10_likelihoods.size() < 2) {
    throw Error("non-ref posterior: need the likelihoods of at least 2 genotypes");
  }
  if (activity_math::max_element_index(log10_likelihoods) == 0) return 0;

  const int ploidy = static_cast<int>(log10_likelihoods.size()) - 1;
  const double log10_e = std::log10(std::numbers::e);  // MathUtils.LOG10_E
  std::vector<double> posteriors(log10_likelihoods.size());
  for (int n = 0; n <= ploidy; ++n) {
    const double log_prior = activity_math::binomial_coefficient_log(ploidy, n) +
                             activity_math::log_gamma(n + snp_pseudocount) +
                             activity_math::log_gamma(ploidy - n + ref_pseudocount);
    posteriors[static_cast<std::size_t>(n)] =
        log10_likelihoods[static_cast<std::size_t>(n)] + log_prior * log10_e;
  }
  if (activity_math::max_element_index(posteriors) == 0) return 0.0;
  const double log10_sum = activity_math::log10_sum_log10(posteriors);
  return 1 - std::pow(10.0, posteriors[0] - log10_sum);
}

double ref_pseudocount(const LocusActivityOptions& options) {
  return options.snp_heterozygosity / std::pow(options.heterozygosity_stdev, 2);
}

double snp_pseudocount(const LocusActivityOptions& options) {
  return options.snp_heterozygosity * ref_pseudocount(options);
}

ActivityProfileState locus_activity(std::int64_t position, std::span<const PileupElement> pileup,
                                    char reference_base, const LocusActivityOptions& options) {
  if (options.sample_ploidy < 1) throw Error("sample ploidy must be >= 1");
  if (!(options.snp_heterozygosity > 0.0) || !(options.heterozygosity_stdev > 0.0)) {
    throw Error("heterozygosity and its standard deviation must be > 0");
  }
  if (pileup.empty()) return ActivityProfileState{position, 0.0};

  const int ploidy = std::max(kMinimumPutativePloidy, options.sample_ploidy);
  RunningAverage hq_soft_clips;
  const RefVsAnyLikelihoods likelihoods =
      ref_vs_any_likelihoods(pileup, normalized_reference_base(reference_base), ploidy,
                             options.min_base_quality, options.deletion_quality, &hq_soft_clips);
  const std::vector<double> genotype_likelihoods =
      round_trip_through_pls(likelihoods.genotype_likelihoods);
  const double prob = single_sample_non_ref_posterior(
      genotype_likelihoods, ref_pseudocount(options), snp_pseudocount(options));

  ActivityProfileState state;
  state.position = position;
  state.active_prob = prob;
  state.type = hq_soft_clips.mean > kAverageHqSoftClipsThreshold
                   ? ActivityProfileState::Type::kHighQualitySoftClips
                   : ActivityProfileState::Type::kNone;
  state.result_value = hq_soft_clips.mean;
  return state;
}

}  // namespace gpp::stages::call
