// The activity profile of HaplotypeCaller: per-position active probabilities, smoothed and cut
// into assembly regions (GATK utils/activityprofile ActivityProfile, BandPassActivityProfile and
// ActivityProfileState).
//
// Adding a state (ActivityProfile.add / processState / incorporateSingleState):
//  - states must come at consecutive positions of one contig;
//  - a HIGH_QUALITY_SOFT_CLIPS state is first copied to every position within
//    min(int(value), max_prob_propagation_distance()) of it (on the contig);
//  - with band pass on (HaplotypeCaller), each copy with probability p > 0 becomes p * kernel[i] at
//    the ADDED state's position + i, i in [-filter, filter] (GATK centres every copy on the added
//    state, so soft-clip copies pile up there; kept as is); a copy with p <= 0 adds 0 there;
//  - the resulting probabilities are summed into the profile; positions before its start are
//    dropped, positions past its end are appended.
// The kernel is a Gaussian (sigma 17) over 2 * 50 + 1 positions, normalised to sum 1, then cut to
// the widest filter whose outermost entries are >= 1e-5 and renormalised
// (BandPassActivityProfile.makeKernel / determineFilterSize); for sigma 17 the filter stays 50.
//
// Popping regions (popReadyAssemblyRegions / findEndOfRegion / findBestCutSite): while the profile
// holds at least max_region_size + max_prob_propagation_distance() states (or always when forced),
// the next region is the run of states from the start with the same activity (prob > threshold)
// as the first, at most max_region_size long; an active run that reaches max_region_size is cut
// after the lowest local minimum (p[i] <= p[i+1] and p[i] < p[i-1]) at index >= min_region_size -
// 1, or at max_region_size if there is none. A forced pop first drops the states past the last
// added position. max_prob_propagation_distance() is the configured distance plus the filter size.
//
// @code
//   ActivityProfile profile(contig, contig_length, AssemblyRegionOptions{});
//   profile.add({position, 1.0});
//   std::vector<AssemblyRegion> regions = profile.pop_ready_regions(100, 50, 300, false);
// @endcode
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "stages/call/assembly_region.hpp"

namespace gpp::stages::call {

/// GATK ActivityProfileState: the probability that one position is active.
struct ActivityProfileState {
  enum class Type : std::uint8_t { kNone, kHighQualitySoftClips };

  std::int64_t position = 0;  ///< 0-based
  double active_prob = 0.0;
  Type type = Type::kNone;
  /// With kHighQualitySoftClips: the number of bp the soft clips affect (mean HQ soft-clip count).
  double result_value = 0.0;
};

/**
 * @brief GATK new ActivityProfileState(loc, prob, type, value), with its check.
 * @throws gpp::Error if result_value < 0
 */
ActivityProfileState make_activity_profile_state(
    std::int64_t position, double active_prob,
    ActivityProfileState::Type type = ActivityProfileState::Type::kNone, double result_value = 0.0);

/// Smoothing of the profile (GATK BandPassActivityProfile); enabled = false is the plain GATK
/// ActivityProfile.
struct BandPassOptions {
  bool enabled = true;
  int max_filter_size = 50;          ///< BandPassActivityProfile.MAX_FILTER_SIZE
  double sigma = 17.0;               ///< BandPassActivityProfile.DEFAULT_SIGMA
  bool adaptive_filter_size = true;  ///< cut the kernel where it falls below 1e-5
};

/// BandPassActivityProfile.MIN_PROB_TO_KEEP_IN_FILTER.
inline constexpr double kMinProbToKeepInFilter = 1e-5;

/// BandPassActivityProfile.makeKernel: normal(filter_size, sigma) at 0 .. 2 * filter_size, summing
/// to 1. @throws gpp::Error if sigma <= 0 or filter_size < 0
std::vector<double> gaussian_kernel(int filter_size, double sigma);

/// BandPassActivityProfile.determineFilterSize: half-width of the kernel once entries below
/// min_prob_to_keep are cut from both ends.
int determine_filter_size(std::span<const double> kernel, double min_prob_to_keep);

class ActivityProfile {
 public:
  /**
   * @param contig         reference index the states belong to
   * @param contig_length  length of that contig (states are never moved off it)
   * @throws gpp::Error on a negative distance or filter size, or sigma <= 0
   */
  ActivityProfile(std::int32_t contig, std::int64_t contig_length,
                  int max_prob_propagation_distance, double active_prob_threshold,
                  const BandPassOptions& band_pass = {});
  /// HaplotypeCaller's profile: band pass 50 / sigma 17 with the options' threshold and distance.
  ActivityProfile(std::int32_t contig, std::int64_t contig_length,
                  const AssemblyRegionOptions& options);

  /**
   * @brief GATK ActivityProfile.add.
   * @throws gpp::Error if the state is not at the position after the last one added, or off the
   *         contig
   */
  void add(const ActivityProfileState& state);

  /**
   * @brief GATK ActivityProfile.popReadyAssemblyRegions: the regions that later states can no
   *        longer change (all of them when force_conversion), removed from the profile.
   * @param padding           assembly region padding (>= 0)
   * @param min_region_size   smallest left part when an active run is cut (>= 1)
   * @param max_region_size   largest region (>= min_region_size)
   * @throws gpp::Error on invalid sizes
   */
  std::vector<AssemblyRegion> pop_ready_regions(int padding, int min_region_size,
                                                int max_region_size, bool force_conversion);

  bool empty() const { return probs_.empty(); }
  std::size_t size() const { return probs_.size(); }
  /// Position of the first state (GATK regionStartLoc); only when !empty().
  std::int64_t start() const { return region_start_.value_or(-1); }
  /// Position of the last state added (GATK getEnd / regionStopLoc); only when !empty().
  std::int64_t end() const { return region_stop_.value_or(-1); }
  /// Probability of the i-th state from start().
  double probability(std::size_t i) const { return probs_[i]; }
  std::vector<double> probabilities() const { return {probs_.begin(), probs_.end()}; }

  /// GATK getMaxProbPropagationDistance (plus the filter size with band pass).
  int max_prob_propagation_distance() const;
  int filter_size() const { return filter_size_; }
  int band_size() const { return 2 * filter_size_ + 1; }
  double sigma() const { return sigma_; }
  const std::vector<double>& kernel() const { return kernel_; }
  std::int32_t contig() const { return contig_; }

 private:
  void incorporate(std::int64_t position, double prob);
  void band_pass(const ActivityProfileState& added, double prob);
  std::optional<AssemblyRegion> pop_next_region(int padding, int min_region_size,
                                                int max_region_size, bool force_conversion);
  std::int64_t find_end_of_region(bool is_active, int min_region_size, int max_region_size,
                                  bool force_conversion) const;
  std::int64_t find_best_cut_site(std::int64_t end_of_active_region, int min_region_size) const;
  bool is_minimum(std::size_t index) const;
  bool on_contig(std::int64_t position) const { return position >= 0 && position < contig_length_; }

  std::int32_t contig_;
  std::int64_t contig_length_;
  int max_prob_propagation_distance_;
  double active_prob_threshold_;
  bool band_pass_enabled_;
  int filter_size_ = 0;
  double sigma_ = 0.0;
  std::vector<double> kernel_;
  std::deque<double> probs_;
  std::optional<std::int64_t> region_start_;
  std::optional<std::int64_t> region_stop_;
};

}  // namespace gpp::stages::call
