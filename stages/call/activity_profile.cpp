// GATK ActivityProfile / BandPassActivityProfile: adding states and cutting regions (see
// activity_profile.hpp).
#include "stages/call/activity_profile.hpp"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <string>

#include "core/error.hpp"
#include "stages/call/activity_math.hpp"

namespace gpp::stages::call {

ActivityProfileState make_activity_profile_state(std::int64_t position, double active_prob,
                                                 ActivityProfileState::Type type,
                                                 double result_value) {
  if (result_value < 0) {
    throw Error("activity profile state at " + std::to_string(position) +
                ": result value must be >= 0, got " + std::to_string(result_value));
  }
  return ActivityProfileState{position, active_prob, type, result_value};
}

std::vector<double> gaussian_kernel(int filter_size, double sigma) {
  if (filter_size < 0) throw Error("band pass filter size must be >= 0");
  if (!(sigma > 0.0)) throw Error("band pass sigma must be > 0");
  const int band_size = 2 * filter_size + 1;
  std::vector<double> kernel(static_cast<std::size_t>(band_size));
  for (int i = 0; i < band_size; ++i) {
    kernel[static_cast<std::size_t>(i)] = activity_math::normal_distribution(filter_size, sigma, i);
  }
  double sum = 0.0;  // MathUtils.normalizeSumToOne
  for (double v : kernel) sum += v;
  for (double& v : kernel) v = v / sum;
  return kernel;
}

int determine_filter_size(std::span<const double> kernel, double min_prob_to_keep) {
  if (kernel.empty()) return 0;
  const int middle = static_cast<int>((kernel.size() - 1) / 2);
  int filter_end = middle;
  while (filter_end > 0) {
    if (kernel[static_cast<std::size_t>(filter_end - 1)] < min_prob_to_keep) break;
    --filter_end;
  }
  return middle - filter_end;
}

ActivityProfile::ActivityProfile(std::int32_t contig, std::int64_t contig_length,
                                 int max_prob_propagation_distance, double active_prob_threshold,
                                 const BandPassOptions& band_pass)
    : contig_(contig),
      contig_length_(contig_length),
      max_prob_propagation_distance_(max_prob_propagation_distance),
      active_prob_threshold_(active_prob_threshold),
      band_pass_enabled_(band_pass.enabled),
      sigma_(band_pass.enabled ? band_pass.sigma : 0.0) {
  if (contig_length <= 0) throw Error("activity profile: contig length must be > 0");
  if (max_prob_propagation_distance < 0) {
    throw Error("activity profile: max probability propagation distance must be >= 0");
  }
  if (band_pass_enabled_) {
    const std::vector<double> full_kernel =
        gaussian_kernel(band_pass.max_filter_size, band_pass.sigma);
    filter_size_ = band_pass.adaptive_filter_size
                       ? determine_filter_size(full_kernel, kMinProbToKeepInFilter)
                       : band_pass.max_filter_size;
    kernel_ = gaussian_kernel(filter_size_, band_pass.sigma);
  }
}

ActivityProfile::ActivityProfile(std::int32_t contig, std::int64_t contig_length,
                                 const AssemblyRegionOptions& options)
    : ActivityProfile(contig, contig_length, options.max_prob_propagation_distance,
                      options.active_prob_threshold, BandPassOptions{}) {}

int ActivityProfile::max_prob_propagation_distance() const {
  return max_prob_propagation_distance_ + (band_pass_enabled_ ? filter_size_ : 0);
}

void ActivityProfile::incorporate(std::int64_t position, double prob) {
  const std::int64_t offset = position - *region_start_;
  if (offset > static_cast<std::int64_t>(probs_.size())) {
    throw Error("activity profile: state at " + std::to_string(position) +
                " is not contiguous with the existing states");
  }
  if (offset < 0) return;  // before the profile's start: ignored
  if (offset < static_cast<std::int64_t>(probs_.size())) {
    probs_[static_cast<std::size_t>(offset)] += prob;
  } else {
    probs_.push_back(prob);
  }
}

// BandPassActivityProfile.processState for one state of ActivityProfile.processState.
void ActivityProfile::band_pass(const ActivityProfileState& added, double prob) {
  if (prob > 0.0) {
    for (int i = -filter_size_; i <= filter_size_; ++i) {
      const std::int64_t position = added.position + i;
      if (on_contig(position)) {
        incorporate(position, prob * kernel_[static_cast<std::size_t>(i + filter_size_)]);
      }
    }
  } else {
    incorporate(added.position, added.active_prob);
  }
}

void ActivityProfile::add(const ActivityProfileState& state) {
  if (!on_contig(state.position)) {
    throw Error("activity profile: state at " + std::to_string(state.position) +
                " lies outside the contig of length " + std::to_string(contig_length_));
  }
  if (!region_start_) {
    region_start_ = state.position;
    region_stop_ = state.position;
  } else {
    if (*region_stop_ != state.position - 1) {
      throw Error("activity profile: state at " + std::to_string(state.position) +
                  " is not immediately after the last one at " + std::to_string(*region_stop_));
    }
    region_stop_ = state.position;
  }

  // ActivityProfile.processState: high-quality soft clips spread the state around it.
  const auto emit = [&](std::int64_t position, double prob) {
    if (band_pass_enabled_) {
      band_pass(state, prob);
    } else {
      incorporate(position, prob);
    }
  };
  if (state.type == ActivityProfileState::Type::kHighQualitySoftClips) {
    const double capped = std::min(state.result_value, static_cast<double>(INT_MAX));
    const int n_clips = std::min(static_cast<int>(capped), max_prob_propagation_distance());
    for (int i = -n_clips; i <= n_clips; ++i) {
      const std::int64_t position = state.position + i;
      if (on_contig(position)) emit(position, state.active_prob);
    }
  } else {
    emit(state.position, state.active_prob);
  }
}

std::vector<AssemblyRegion> ActivityProfile::pop_ready_regions(int padding, int min_region_size,
                                                               int max_region_size,
                                                               bool force_conversion) {
  if (padding < 0) throw Error("assembly region padding must be >= 0");
  if (min_region_size <= 0) throw Error("min assembly region size must be >= 1");
  if (max_region_size <= 0) throw Error("max assembly region size must be >= 1");
  if (min_region_size > max_region_size) {
    throw Error("min assembly region size must be <= max assembly region size");
  }
  std::vector<AssemblyRegion> regions;
  while (auto region =
             pop_next_region(padding, min_region_size, max_region_size, force_conversion)) {
    regions.push_back(*region);
  }
  return regions;
}

std::optional<AssemblyRegion> ActivityProfile::pop_next_region(int padding, int min_region_size,
                                                               int max_region_size,
                                                               bool force_conversion) {
  if (probs_.empty()) return std::nullopt;
  if (force_conversion) {
    // Drop the states the band pass put past the last added position (getSpan().size()).
    const std::int64_t span =
        std::max(*region_start_, *region_stop_) - std::min(*region_start_, *region_stop_) + 1;
    if (span < static_cast<std::int64_t>(probs_.size()))
      probs_.resize(static_cast<std::size_t>(span));
  }
  const bool is_active = probs_.front() > active_prob_threshold_;
  const std::int64_t last =
      find_end_of_region(is_active, min_region_size, max_region_size, force_conversion);
  if (last == -1) return std::nullopt;

  const std::int64_t first_position = *region_start_;
  probs_.erase(probs_.begin(), probs_.begin() + (last + 1));
  if (probs_.empty()) {
    region_start_.reset();
    region_stop_.reset();
  } else {
    region_start_ = first_position + last + 1;
  }
  return make_assembly_region(contig_, first_position, first_position + last + 1, is_active,
                              padding, contig_length_);
}

std::int64_t ActivityProfile::find_end_of_region(bool is_active, int min_region_size,
                                                 int max_region_size, bool force_conversion) const {
  const auto n_states = static_cast<std::int64_t>(probs_.size());
  if (!force_conversion && n_states < max_region_size + max_prob_propagation_distance()) {
    return -1;  // later states may still move probability onto these
  }
  // findFirstActivityBoundary
  std::int64_t end_of_region = 0;
  while (end_of_region < n_states && end_of_region < max_region_size) {
    if ((probs_[static_cast<std::size_t>(end_of_region)] > active_prob_threshold_) != is_active) {
      break;
    }
    ++end_of_region;
  }
  if (is_active && end_of_region == max_region_size) {
    end_of_region = find_best_cut_site(end_of_region, min_region_size);
  }
  return end_of_region - 1;
}

std::int64_t ActivityProfile::find_best_cut_site(std::int64_t end_of_active_region,
                                                 int min_region_size) const {
  std::int64_t min_index = end_of_active_region - 1;
  double min_prob = DBL_MAX;
  for (std::int64_t i = min_index; i >= min_region_size - 1; --i) {
    const double current = probs_[static_cast<std::size_t>(i)];
    if (current < min_prob && is_minimum(static_cast<std::size_t>(i))) {
      min_prob = current;
      min_index = i;
    }
  }
  return min_index + 1;
}

bool ActivityProfile::is_minimum(std::size_t index) const {
  if (index + 1 == probs_.size()) return false;  // the last state cannot be a minimum
  if (index < 1) return false;
  const double p = probs_[index];
  return p <= probs_[index + 1] && p < probs_[index - 1];
}

}  // namespace gpp::stages::call
