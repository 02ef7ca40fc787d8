// ActivityProfile: GATK ActivityProfileUnitTest (basic profiles, region creation, soft clips,
// active-region cuts) and ActivityProfileStateUnitTest. GATK positions are 1-based on b37 contig
// "20" (63,025,520 bp); here 1-based position P is 0-based P - 1.
#include "stages/call/activity_profile.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "stages/call/activity_math.hpp"

namespace gpp::stages::call {
namespace {

constexpr std::int64_t kContigLength = 63025520;  // b37 "20"
constexpr int kMaxProbPropagationDistance = 50;
constexpr double kActiveProbThreshold = 0.002;

ActivityProfile base_profile(std::int64_t contig_length = kContigLength) {
  return ActivityProfile(0, contig_length, kMaxProbPropagationDistance, kActiveProbThreshold,
                         BandPassOptions{.enabled = false});
}

// BasicActivityProfileTestProvider's BandPass type: zero-size filter, sigma 0.01, not adaptive.
ActivityProfile zero_band_pass_profile() {
  return ActivityProfile(
      0, kContigLength, kMaxProbPropagationDistance, kActiveProbThreshold,
      BandPassOptions{
          .enabled = true, .max_filter_size = 0, .sigma = 0.01, .adaptive_filter_size = false});
}

// ActivityProfileUnitTest.testBasicActivityProfile (its region checks are disabled in GATK).
TEST(ActivityProfile, BasicProfilesKeepTheAddedProbabilities) {
  const std::vector<std::vector<double>> cases = {
      {1.0}, {1.0, 0.0}, {0.0, 1.0}, {1.0, 0.0, 1.0}, {1.0, 1.0, 1.0}};
  for (bool band_pass : {false, true}) {
    for (const auto& probs : cases) {
      ActivityProfile profile = band_pass ? zero_band_pass_profile() : base_profile();
      EXPECT_TRUE(profile.empty());
      for (std::size_t i = 0; i < probs.size(); ++i) {
        profile.add({static_cast<std::int64_t>(i), probs[i]});
        EXPECT_FALSE(profile.empty());
      }
      EXPECT_EQ(profile.start(), 0);
      ASSERT_EQ(profile.size(), probs.size());
      EXPECT_EQ(profile.probabilities(), probs);
    }
  }
}

// ActivityProfileUnitTest.makeRegions.
std::vector<bool> make_regions(int total_region_size, bool start_with_active, int n_parts) {
  std::vector<bool> regions;
  bool is_active = start_with_active;
  const int active_region_size = std::max(total_region_size / n_parts, 1);
  for (int i = 0; i < total_region_size; i += active_region_size) {
    for (int j = 0; j < active_region_size && j + i < total_region_size; ++j) {
      regions.push_back(is_active);
    }
    is_active = !is_active;
  }
  return regions;
}

// ActivityProfileUnitTest.assertGoodRegions.
void assert_good_regions(std::int64_t start, const std::vector<AssemblyRegion>& regions,
                         int max_region_size, std::optional<AssemblyRegion>& last_region,
                         const std::vector<bool>& probs, std::vector<bool>& seen) {
  for (const AssemblyRegion& region : regions) {
    ASSERT_GT(region.size(), 0);
    ASSERT_LE(region.size(), max_region_size);
    if (last_region) {
      ASSERT_EQ(region.start, last_region->end);
    }
    const std::int64_t offset = region.start - start;
    ASSERT_TRUE(offset >= 0 && offset < static_cast<std::int64_t>(probs.size()));
    for (std::int64_t j = 0; j < region.size(); ++j) {
      const auto site = static_cast<std::size_t>(j + offset);
      ASSERT_EQ(region.is_active, probs[site]) << "site " << site;
      ASSERT_FALSE(seen[site]) << "site " << site << " seen twice";
      seen[site] = true;
    }
    last_region = region;
  }
}

// ActivityProfileUnitTest.testRegionCreation over its whole data provider.
TEST(ActivityProfile, RegionCreation) {
  int n_cases = 0;
  for (std::int64_t start_1based : {std::int64_t{1}, std::int64_t{10}, std::int64_t{100},
                                    kContigLength - 100, kContigLength - 10}) {
    for (int size : {1, 10, 100, 1000, 10000}) {
      const int region_size =
          static_cast<int>(std::min<std::int64_t>(size, kContigLength - start_1based));
      for (int max_region_size : {10, 50, 200}) {
        for (bool wait_until_end : {false, true}) {
          for (bool force_conversion : {false, true}) {
            for (bool start_with_active : {true, false}) {
              for (int n_parts : {1, 2, 3, 4, 5, 7, 10, 11, 13}) {
                ++n_cases;
                const std::vector<bool> probs =
                    make_regions(region_size, start_with_active, n_parts);
                const std::int64_t start = start_1based - 1;
                ActivityProfile profile = base_profile();
                std::vector<bool> seen(probs.size(), false);
                std::optional<AssemblyRegion> last_region;
                for (std::size_t i = 0; i < probs.size(); ++i) {
                  profile.add({start + static_cast<std::int64_t>(i), probs[i] ? 1.0 : 0.0});
                  if (!wait_until_end) {
                    assert_good_regions(start,
                                        profile.pop_ready_regions(0, 1, max_region_size, false),
                                        max_region_size, last_region, probs, seen);
                  }
                }
                if (wait_until_end || force_conversion) {
                  assert_good_regions(
                      start, profile.pop_ready_regions(0, 1, max_region_size, force_conversion),
                      max_region_size, last_region, probs, seen);
                }
                for (std::size_t i = 0; i < probs.size(); ++i) {
                  if (force_conversion || static_cast<std::int64_t>(i) + max_region_size +
                                                  profile.max_prob_propagation_distance() <
                                              static_cast<std::int64_t>(probs.size())) {
                    ASSERT_TRUE(seen[i]) << "missed site " << i << " start " << start << " size "
                                         << region_size << " max " << max_region_size;
                  }
                }
                if (HasFatalFailure()) return;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(n_cases, 5400);
}

// ActivityProfileUnitTest.testSoftClips over its data provider.
TEST(ActivityProfile, HighQualitySoftClipsSpreadTheState) {
  for (std::int64_t start_1based : {std::int64_t{1}, std::int64_t{10}, std::int64_t{100},
                                    kContigLength - 100, kContigLength - 10, kContigLength - 1}) {
    for (int n_preceding : {0, 1, 10}) {
      if (n_preceding + start_1based >= kContigLength) continue;
      for (int soft_clip_size : {1, 2, 10, 100}) {
        ActivityProfile profile = base_profile();
        for (int i = 0; i < n_preceding; ++i) profile.add({start_1based - 1 + i, 0.0});
        const std::int64_t clip_position = start_1based - 1 + n_preceding;
        profile.add(make_activity_profile_state(
            clip_position, 1.0, ActivityProfileState::Type::kHighQualitySoftClips, soft_clip_size));
        const int actual_clips = std::min(soft_clip_size, profile.max_prob_propagation_distance());
        if (n_preceding == 0) {
          const std::int64_t expected_size =
              std::min(start_1based + actual_clips, kContigLength) - start_1based + 1;
          EXPECT_EQ(static_cast<std::int64_t>(profile.size()), expected_size);
        }
        for (std::size_t i = 0; i < profile.size(); ++i) {
          const std::int64_t position = profile.start() + static_cast<std::int64_t>(i);
          if (std::abs(position - clip_position) <= actual_clips) {
            EXPECT_GT(profile.probability(i), 0.0) << "within the soft clip at " << position;
          } else {
            EXPECT_EQ(profile.probability(i), 0.0) << "outside the soft clip at " << position;
          }
        }
      }
    }
  }
}

struct CutCase {
  int min_region_size;
  int max_region_size;
  int expected_region_size;
  std::vector<double> probs;
};

// ActivityProfileUnitTest.makeGaussian and findCutSiteForTwoMaxPeaks.
std::vector<double> make_gaussian(int mean, int range, double sigma) {
  std::vector<double> gauss(static_cast<std::size_t>(range));
  for (int i = 0; i < range; ++i) {
    gauss[static_cast<std::size_t>(i)] =
        activity_math::normal_distribution(mean, sigma, i) + kActiveProbThreshold;
  }
  return gauss;
}
int find_cut_site_for_two_max_peaks(const std::vector<double>& probs, int min_region_size) {
  for (int i = static_cast<int>(probs.size()) - 2; i > min_region_size; --i) {
    const double prev = probs[static_cast<std::size_t>(i - 1)];
    const double next = probs[static_cast<std::size_t>(i + 1)];
    const double cur = probs[static_cast<std::size_t>(i)];
    if (cur < next && cur < prev) return i + 1;
  }
  return -1;
}

// ActivityProfileUnitTest.makeActiveRegionCutTests.
std::vector<CutCase> make_cut_cases() {
  std::vector<CutCase> tests;
  for (int active_region_size : {10, 12, 20, 30, 40}) {
    for (int min_size : {1, 5, 10}) {
      const int max_size = active_region_size * 2 / 3;
      if (min_size >= max_size) continue;
      tests.push_back({min_size, max_size, max_size,
                       std::vector<double>(static_cast<std::size_t>(active_region_size), 1.0)});
      for (int end = 1; end < active_region_size; ++end) {
        tests.push_back({min_size, max_size, std::min(end, max_size),
                         std::vector<double>(static_cast<std::size_t>(end), 1.0)});
      }
      std::vector<double> increasing, decreasing;
      for (int i = 0; i < active_region_size; ++i) {
        increasing.push_back((1.0 * (i + 1)) / active_region_size);
        decreasing.push_back(1 - (1.0 * (i + 1)) / active_region_size);
      }
      tests.push_back({min_size, max_size, max_size, increasing});
      tests.push_back({min_size, max_size, max_size, decreasing});
      for (double root_sigma : {1.0, 2.0, 3.0}) {
        for (int peak1 = 0; peak1 < active_region_size / 2; ++peak1) {
          for (int peak2 = active_region_size / 2 + 1; peak2 < active_region_size; ++peak2) {
            const auto gauss1 = make_gaussian(peak1, active_region_size, root_sigma);
            const auto gauss2 = make_gaussian(peak2, active_region_size, root_sigma + 1);
            std::vector<double> probs;
            for (int i = 0; i < active_region_size; ++i) {
              probs.push_back(gauss1[static_cast<std::size_t>(i)] +
                              gauss2[static_cast<std::size_t>(i)]);
            }
            const int cut_site = find_cut_site_for_two_max_peaks(probs, min_size);
            if (cut_site != -1 && cut_site < max_size) {
              tests.push_back({min_size, max_size, std::max(cut_site, min_size), probs});
            }
          }
        }
      }
      for (int first_min = 1; first_min < active_region_size; ++first_min) {
        for (int second_min = first_min + 1; second_min < active_region_size; ++second_min) {
          std::vector<double> probs(static_cast<std::size_t>(active_region_size), 1.0);
          probs[static_cast<std::size_t>(first_min)] = 0.5;
          probs[static_cast<std::size_t>(second_min)] = 0.75;
          int expected_cut;
          if (first_min + 1 < min_size) {
            if (first_min == second_min - 1) {
              expected_cut = max_size;
            } else {
              expected_cut = second_min + 1 > max_size
                                 ? max_size
                                 : (second_min + 1 < min_size ? max_size : second_min + 1);
            }
          } else if (first_min + 1 > max_size) {
            expected_cut = max_size;
          } else {
            expected_cut = first_min + 1;
          }
          tests.push_back({min_size, max_size, expected_cut, probs});
        }
      }
    }
  }
  return tests;
}

// ActivityProfileUnitTest.testActiveRegionCutTests.
TEST(ActivityProfile, ActiveRegionsAreCutAtTheLowestMinimum) {
  const std::vector<CutCase> cases = make_cut_cases();
  EXPECT_GT(cases.size(), 1000u);
  for (const CutCase& c : cases) {
    ActivityProfile profile = base_profile();
    for (int i = 0; i <= c.max_region_size + profile.max_prob_propagation_distance(); ++i) {
      const double prob =
          i < static_cast<int>(c.probs.size()) ? c.probs[static_cast<std::size_t>(i)] : 0.0;
      profile.add({i, prob});
    }
    const auto regions = profile.pop_ready_regions(0, c.min_region_size, c.max_region_size, false);
    ASSERT_GE(regions.size(), 1u);
    EXPECT_EQ(regions[0].start, 0);
    EXPECT_EQ(regions[0].size(), c.expected_region_size)
        << "min " << c.min_region_size << " max " << c.max_region_size;
  }
}

// ActivityProfileStateUnitTest.testActiveProfileResultProvider (a 100 bp contig).
TEST(ActivityProfileState, KeepsItsFields) {
  using Type = ActivityProfileState::Type;
  for (std::int64_t position : {9, 99}) {
    for (double prob : {0.0, 0.5, 1.0}) {
      for (Type type : {Type::kNone, Type::kHighQualitySoftClips}) {
        for (double value : {1.0, 2.0, 4.0}) {
          const ActivityProfileState s = make_activity_profile_state(position, prob, type, value);
          EXPECT_EQ(s.position, position);
          EXPECT_EQ(s.active_prob, prob);
          EXPECT_EQ(s.type, type);
          EXPECT_EQ(s.result_value, value);
        }
      }
      const ActivityProfileState plain = make_activity_profile_state(position, prob);
      EXPECT_EQ(plain.type, Type::kNone);
      EXPECT_EQ(plain.result_value, 0.0);
    }
  }
}

// ActivityProfileStateUnitTest.testError1: a negative result value is rejected.
TEST(ActivityProfileState, RejectsANegativeResultValue) {
  EXPECT_THROW(make_activity_profile_state(9, 0.1, ActivityProfileState::Type::kNone, -1.0), Error);
}

TEST(ActivityProfile, RejectsStatesThatDoNotFollowTheLastOne) {
  ActivityProfile profile = base_profile(100);
  profile.add({10, 0.0});
  EXPECT_THROW(profile.add({12, 0.0}), Error);
  EXPECT_THROW(profile.add({100, 0.0}), Error);                   // off the contig
  EXPECT_THROW(profile.pop_ready_regions(0, 5, 4, true), Error);  // min > max
}

}  // namespace
}  // namespace gpp::stages::call
