// GATK HaplotypeCallerEngine.isActive (single sample) and ReferenceConfidenceModel's ref-vs-any
// genotype likelihoods (see locus_activity.hpp).
#include "stages/call/locus_activity.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
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

namespace {

/// The terms one counted element adds to each of the ploidy + 1 likelihoods
/// (applyPileupElementRefVsNonRefLikelihoodAndCount, evaluated exactly as there), per alt flag
/// and quality: [(is_alt * 256 + qual) * (ploidy + 1) + allele count].
std::vector<double> make_ref_vs_any_terms(int ploidy) {
  const int likelihood_count = ploidy + 1;
  const double log10_ploidy = std::log10(static_cast<double>(ploidy));
  const double log10_one_third = activity_math::log10_one_third();
  std::vector<double> log10_counts(static_cast<std::size_t>(likelihood_count));
  for (int i = 0; i < likelihood_count; ++i) {
    log10_counts[static_cast<std::size_t>(i)] = std::log10(static_cast<double>(i));
  }
  std::vector<double> table(2 * 256 * static_cast<std::size_t>(likelihood_count));
  for (int alt = 0; alt < 2; ++alt) {
    for (int qual = 0; qual < 256; ++qual) {
      const bool is_alt = alt == 1;
      const auto q = static_cast<unsigned>(qual);
      const double right = activity_math::qual_to_prob_log10(q);
      const double wrong = activity_math::qual_to_error_prob_log10(q) + log10_one_third;
      const double reference_likelihood = is_alt ? wrong : right;
      const double non_ref_likelihood = is_alt ? right : wrong;
      double* out = table.data() + (static_cast<std::size_t>(alt) * 256 + q) *
                                       static_cast<std::size_t>(likelihood_count);
      out[0] = reference_likelihood + log10_ploidy;
      out[likelihood_count - 1] = non_ref_likelihood + log10_ploidy;
      for (int i = 1, j = likelihood_count - 2; i < likelihood_count - 1; ++i, --j) {
        out[i] = activity_math::approximate_log10_sum_log10(
            reference_likelihood + log10_counts[static_cast<std::size_t>(j)],
            non_ref_likelihood + log10_counts[static_cast<std::size_t>(i)]);
      }
    }
  }
  return table;
}

/// Ploidies whose terms are built once and shared (larger ones are built per accumulator).
constexpr int kCachedPloidies = 32;

const double* ref_vs_any_terms(int ploidy, std::vector<double>& scratch) {
  if (ploidy <= kCachedPloidies) {
    static std::array<std::once_flag, kCachedPloidies + 1> built;
    static std::array<std::vector<double>, kCachedPloidies + 1> tables;
    const auto p = static_cast<std::size_t>(ploidy);
    std::call_once(built[p], [ploidy, p] { tables[p] = make_ref_vs_any_terms(ploidy); });
    return tables[p].data();
  }
  scratch = make_ref_vs_any_terms(ploidy);
  return scratch.data();
}

}  // namespace

RefVsAnyAccumulator::RefVsAnyAccumulator(int ploidy, std::uint8_t min_base_quality,
                                         std::uint8_t deletion_quality, bool reads_were_realigned)
    : count_(ploidy < 1 ? 0 : static_cast<std::size_t>(ploidy) + 1),
      log10_ploidy_(std::log10(static_cast<double>(ploidy))),
      min_base_quality_(min_base_quality),
      deletion_quality_(deletion_quality),
      reads_were_realigned_(reads_were_realigned),
      likelihoods_(inline_likelihoods_.data()) {
  if (ploidy < 1) throw Error("ref-vs-any likelihoods: ploidy must be >= 1");
  terms_ = ref_vs_any_terms(ploidy, terms_scratch_);
  if (count_ > kInlineLikelihoods) {
    heap_likelihoods_.assign(count_, 0.0);
    likelihoods_ = heap_likelihoods_.data();
  }
}

void RefVsAnyAccumulator::reset(char reference_base) {
  reference_base_ = reference_base;
  read_count_ = 0;
  ref_depth_ = 0;
  non_ref_depth_ = 0;
  std::fill(likelihoods_, likelihoods_ + count_, 0.0);
}

std::span<const double> RefVsAnyAccumulator::finish() {
  const double denominator = read_count_ * log10_ploidy_;
  for (std::size_t i = 0; i < count_; ++i) likelihoods_[i] -= denominator;
  return {likelihoods_, count_};
}

RefVsAnyLikelihoods ref_vs_any_likelihoods(std::span<const PileupElement> pileup,
                                           char reference_base, int ploidy,
                                           std::uint8_t min_base_quality,
                                           std::uint8_t deletion_quality,
                                           RunningAverage* hq_soft_clips) {
  RefVsAnyAccumulator accumulator(ploidy, min_base_quality, deletion_quality);
  accumulator.reset(reference_base);
  for (const PileupElement& element : pileup) {
    const bool is_alt = accumulator.add(element);
    if (is_alt && hq_soft_clips != nullptr && element.is_next_to_soft_clip()) {
      hq_soft_clips->add(count_high_quality_soft_clips(*element.read, kHqSoftClipQualityThreshold));
    }
  }
  const std::span<const double> likelihoods = accumulator.finish();
  RefVsAnyLikelihoods result;
  result.genotype_likelihoods.assign(likelihoods.begin(), likelihoods.end());
  result.ref_depth = accumulator.ref_depth();
  result.non_ref_depth = accumulator.non_ref_depth();
  return result;
}

namespace {

void round_trip_through_pls(std::span<const double> log10_likelihoods, std::span<double> result) {
  double adjust = -std::numeric_limits<double>::infinity();
  for (double l : log10_likelihoods) adjust = std::max(adjust, l);
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double phred = std::min(-10 * (log10_likelihoods[i] - adjust), double{INT_MAX});
    const int pl = std::isnan(phred) ? 0 : static_cast<int>(std::llround(phred));  // Math.round
    result[i] = pl / -10.0;
  }
}

}  // namespace

std::vector<double> round_trip_through_pls(std::span<const double> log10_likelihoods) {
  std::vector<double> result(log10_likelihoods.size());
  round_trip_through_pls(log10_likelihoods, result);
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

void mark_possible_alt_positions(const CallRead& read, std::string_view reference,
                                 std::int64_t first, std::span<char> marks) {
  if (cigar_query_length(read.cigar) != read.bases.size()) return;
  const std::int64_t last = first + static_cast<std::int64_t>(marks.size());  // exclusive
  const auto mark = [&](std::int64_t position) {
    if (position >= first && position < last) marks[static_cast<std::size_t>(position - first)] = 1;
  };
  // Whether element k (if any) is a non-empty M, = or X: its neighbours' edges then need no mark.
  const auto plain_match = [&](std::size_t k) {
    const CigarOp op = cigar_op(read.cigar[k]);
    return cigar_length(read.cigar[k]) > 0 &&
           (op == CigarOp::kMatch || op == CigarOp::kSequenceMatch ||
            op == CigarOp::kSequenceMismatch);
  };
  std::int64_t position = read.start;
  std::size_t query = 0;
  for (std::size_t k = 0; k < read.cigar.size() && position < last; ++k) {
    const CigarOp op = cigar_op(read.cigar[k]);
    const auto length = static_cast<std::int64_t>(cigar_length(read.cigar[k]));
    if (plain_match(k)) {
      if (k > 0 && !plain_match(k - 1)) mark(position);
      if (k + 1 < read.cigar.size() && !plain_match(k + 1)) mark(position + length - 1);
      const std::int64_t from = std::max(position, first);
      const std::int64_t to =
          std::min({position + length, last, static_cast<std::int64_t>(reference.size())});
      for (std::int64_t p = from; p < to; ++p) {
        if (read.bases[query + static_cast<std::size_t>(p - position)] !=
            reference[static_cast<std::size_t>(p)]) {
          marks[static_cast<std::size_t>(p - first)] = 1;
        }
      }
    } else if (op == CigarOp::kDeletion) {
      for (std::int64_t p = std::max(position, first); p < std::min(position + length, last); ++p) {
        marks[static_cast<std::size_t>(p - first)] = 1;
      }
    }
    if (consumes_reference(op)) position += length;
    if (consumes_query(op)) query += static_cast<std::size_t>(length);
  }
}

ActivityProfileState locus_activity(std::int64_t position, std::span<const PileupElement> pileup,
                                    char reference_base, const LocusActivityOptions& options) {
  // One accumulator per thread and options: this runs at every position.
  thread_local LocusActivityOptions cached_options;
  thread_local std::unique_ptr<LocusActivityAccumulator> cached;
  const bool same_options = cached && cached_options.sample_ploidy == options.sample_ploidy &&
                            cached_options.min_base_quality == options.min_base_quality &&
                            cached_options.deletion_quality == options.deletion_quality &&
                            cached_options.snp_heterozygosity == options.snp_heterozygosity &&
                            cached_options.heterozygosity_stdev == options.heterozygosity_stdev;
  if (!same_options) {
    cached = std::make_unique<LocusActivityAccumulator>(options);
    cached_options = options;
  }
  LocusActivityAccumulator& activity = *cached;
  activity.reset(reference_base);
  for (const PileupElement& element : pileup) activity.add(element);
  return activity.finish(position);
}

namespace {

void validate(const LocusActivityOptions& options) {
  if (options.sample_ploidy < 1) throw Error("sample ploidy must be >= 1");
  if (!(options.snp_heterozygosity > 0.0) || !(options.heterozygosity_stdev > 0.0)) {
    throw Error("heterozygosity and its standard deviation must be > 0");
  }
}

const LocusActivityOptions& validated(const LocusActivityOptions& options) {
  validate(options);
  return options;
}

}  // namespace

LocusActivityAccumulator::LocusActivityAccumulator(const LocusActivityOptions& options)
    : likelihoods_(std::max(kMinimumPutativePloidy, validated(options).sample_ploidy),
                   options.min_base_quality, options.deletion_quality),
      ref_pseudocount_(ref_pseudocount(options)),
      snp_pseudocount_(snp_pseudocount(options)),
      counted_quals_above_one_(options.min_base_quality >= 1) {}

void LocusActivityAccumulator::reset(char reference_base) {
  likelihoods_.reset(normalized_reference_base(reference_base));
  hq_soft_clips_ = RunningAverage{};
  elements_ = 0;
}

void LocusActivityAccumulator::add_soft_clips(const PileupElement& element) {
  hq_soft_clips_.add(count_high_quality_soft_clips(*element.read, kHqSoftClipQualityThreshold));
}

ActivityProfileState LocusActivityAccumulator::finish(std::int64_t position) {
  if (elements_ == 0) return ActivityProfileState{position, 0.0};  // an empty pileup
  // No alt element (most positions): when every counted quality is 2 or more (error rate below
  // 0.75), each ref element favours fewer non-ref copies, so hom-ref is the most likely genotype
  // (PL 0) and the posterior 0; and only alt elements count soft clips.
  if (likelihoods_.non_ref_depth() == 0 && counted_quals_above_one_) {
    return ActivityProfileState{position, 0.0};
  }
  const std::span<const double> likelihoods = likelihoods_.finish();
  // GenotypeBuilder.PL(double[]) and back, on the stack for the usual ploidies.
  std::array<double, 16> stack{};
  std::vector<double> heap;
  std::span<double> genotype_likelihoods(stack.data(), likelihoods.size());
  if (likelihoods.size() > stack.size()) {
    heap.resize(likelihoods.size());
    genotype_likelihoods = heap;
  }
  round_trip_through_pls(likelihoods, genotype_likelihoods);
  ActivityProfileState state;
  state.position = position;
  state.active_prob =
      single_sample_non_ref_posterior(genotype_likelihoods, ref_pseudocount_, snp_pseudocount_);
  state.type = hq_soft_clips_.mean > kAverageHqSoftClipsThreshold
                   ? ActivityProfileState::Type::kHighQualitySoftClips
                   : ActivityProfileState::Type::kNone;
  state.result_value = hq_soft_clips_.mean;
  return state;
}

}  // namespace gpp::stages::call
