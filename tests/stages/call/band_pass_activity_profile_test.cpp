// Band-pass smoothing of the activity profile: GATK BandPassActivityProfileUnitTest (testBandPass,
// testBandPassComposition, testKernelCreation), plus HaplotypeCaller's own kernel and the soft-clip
// rule of BandPassActivityProfile.processState. 1-based GATK position P is 0-based P - 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "stages/call/activity_profile.hpp"

namespace gpp::stages::call {
namespace {

constexpr std::int64_t kContigLength = 63025520;  // b37 "20"
constexpr int kMaxProbPropagationDistance = 50;
constexpr double kActiveProbThreshold = 0.002;

ActivityProfile band_pass_profile(int filter_size, double sigma, bool adaptive) {
  return ActivityProfile(0, kContigLength, kMaxProbPropagationDistance, kActiveProbThreshold,
                         BandPassOptions{.enabled = true,
                                         .max_filter_size = filter_size,
                                         .sigma = sigma,
                                         .adaptive_filter_size = adaptive});
}

// BandPassActivityProfileUnitTest.testBandPass over its data provider.
TEST(BandPassActivityProfile, KeepsTheProbabilityMass) {
  for (std::int64_t start : {1, 10, 100, 1000}) {
    for (bool preceding_is_active : {true, false}) {
      for (int n_preceding : {0, 1, 10, 100}) {
        for (int band_pass_size : {0, 1, 10, 100}) {
          for (double sigma : {1.0, 2.0, 17.0}) {
            ActivityProfile profile = band_pass_profile(band_pass_size, sigma, false);
            EXPECT_EQ(profile.filter_size(), band_pass_size);
            EXPECT_EQ(profile.sigma(), sigma);
            EXPECT_EQ(profile.band_size(), band_pass_size * 2 + 1);
            const double preceding_prob = preceding_is_active ? 1.0 : 0.0;
            for (int i = 0; i < n_preceding; ++i) profile.add({start - 1 + i, preceding_prob});
            profile.add({start - 1 + n_preceding, 1.0});
            if (!preceding_is_active && n_preceding >= band_pass_size && band_pass_size < start) {
              double sum = 0.0;
              for (double p : profile.probabilities()) sum += p;
              EXPECT_NEAR(sum, 1.0 * (n_preceding * preceding_prob + 1), 1e-3);
            }
          }
        }
      }
    }
  }
}

// BandPassActivityProfileUnitTest.bandPassInOnePass.
std::vector<double> band_pass_in_one_pass(const ActivityProfile& profile,
                                          const std::vector<double>& active) {
  const auto& kernel = profile.kernel();
  const int f = profile.filter_size();
  const int n = static_cast<int>(active.size());
  const int k = static_cast<int>(kernel.size());
  std::vector<double> result(active.size());
  for (int i = 0; i < n; ++i) {
    const int kernel_from = std::max(f - i, 0);
    const int kernel_to = std::min(k, f + n - i);
    const int active_from = std::max(0, i - f);
    const int active_to = std::min(n, i + f + 1);
    EXPECT_EQ(kernel_to - kernel_from, active_to - active_from);
    double dot = 0.0;  // MathUtils.dotProduct: sum of the element-wise products, in order
    for (int t = 0; t < active_to - active_from; ++t) {
      dot += active[static_cast<std::size_t>(active_from + t)] *
             kernel[static_cast<std::size_t>(kernel_from + t)];
    }
    result[static_cast<std::size_t>(i)] = dot;
  }
  return result;
}

// BandPassActivityProfileUnitTest.testBandPassComposition: the incremental band pass equals the
// one-pass convolution exactly.
TEST(BandPassActivityProfile, IncrementalEqualsOnePassConvolution) {
  for (int band_pass_size : {0, 1, 10, 100, 50}) {
    for (int integration_length : {1, 10, 100, 1000}) {
      ActivityProfile profile = band_pass_profile(band_pass_size, 17.0, true);
      std::vector<double> raw(static_cast<std::size_t>(integration_length + band_pass_size * 2));
      std::int64_t position = 0;
      std::size_t offset = 0;
      for (int i = 0; i < band_pass_size; ++i) {
        profile.add({position++, 0.0});
        raw[offset++] = 0.0;
        raw[raw.size() - offset] = 0.0;
      }
      for (int i = 0; i < integration_length; ++i) {
        profile.add({position++, 1.0});
        raw[offset++] = 1.0;
        for (std::size_t j = 0; j < profile.size(); ++j) {
          ASSERT_GE(profile.probability(j), 0.0);
          ASSERT_LE(profile.probability(j), 1.0 + 1e-3);
        }
      }
      const std::vector<double> expected = band_pass_in_one_pass(profile, raw);
      ASSERT_LE(profile.size(), expected.size());
      for (std::size_t j = 0; j < profile.size(); ++j) {
        EXPECT_EQ(profile.probability(j), expected[j])
            << "band " << band_pass_size << " length " << integration_length << " state " << j;
      }
    }
  }
}

// BandPassActivityProfileUnitTest.testKernelCreation (adaptive size, tolerance 1e-3).
TEST(BandPassActivityProfile, KernelCreation) {
  struct KernelCase {
    double sigma;
    int max_size;
    std::vector<double> expected;
  };
  const std::vector<double> sigma1 = {0.0001338302, 0.004431848, 0.053990966,
                                      0.241970723,  0.398942278, 0.241970723,
                                      0.053990966,  0.004431848, 0.0001338302};
  const std::vector<double> sigma5 = {
      1.1788613551308e-05,  2.67660451529771e-05, 5.83893851582921e-05, 0.000122380386022754,
      0.000246443833694604, 0.000476817640292968, 0.000886369682387602, 0.00158309031659599,
      0.00271659384673712,  0.00447890605896858,  0.00709491856924629,  0.0107981933026376,
      0.0157900316601788,   0.0221841669358911,   0.029945493127149,    0.0388372109966426,
      0.0483941449038287,   0.0579383105522965,   0.0666449205783599,   0.0736540280606647,
      0.0782085387950912,   0.0797884560802865,   0.0782085387950912,   0.0736540280606647,
      0.0666449205783599,   0.0579383105522965,   0.0483941449038287,   0.0388372109966426,
      0.029945493127149,    0.0221841669358911,   0.0157900316601788,   0.0107981933026376,
      0.00709491856924629,  0.00447890605896858,  0.00271659384673712,  0.00158309031659599,
      0.000886369682387602, 0.000476817640292968, 0.000246443833694604, 0.000122380386022754,
      5.83893851582921e-05, 2.67660451529771e-05, 1.1788613551308e-05};
  const std::vector<KernelCase> cases = {
      {0.01, 1000, {1.0}},
      {1.0, 1000, sigma1},
      {1.0, 0, {1.0}},
      {1.0, 1, {0.2740686, 0.4518628, 0.2740686}},
      {1.0, 2, {0.05448868, 0.24420134, 0.40261995, 0.24420134, 0.05448868}},
      {5.0, 1000, sigma5},
  };
  for (const KernelCase& c : cases) {
    const ActivityProfile profile = band_pass_profile(c.max_size, c.sigma, true);
    ASSERT_EQ(profile.kernel().size(), c.expected.size()) << "sigma " << c.sigma;
    for (std::size_t i = 0; i < c.expected.size(); ++i) {
      EXPECT_NEAR(profile.kernel()[i], c.expected[i], 1e-3) << "sigma " << c.sigma << " at " << i;
    }
  }
  // sigma 17 with no size limit: 133 entries (filter 66), the middle 0.0234672376502799.
  const ActivityProfile wide = band_pass_profile(1000, 17.0, true);
  ASSERT_EQ(wide.kernel().size(), 133u);
  EXPECT_NEAR(wide.kernel()[66], 0.0234672376502799, 1e-3);
  EXPECT_NEAR(wide.kernel()[0], 1.25162575710745e-05, 1e-3);
}

// HaplotypeCaller's profile: MAX_FILTER_SIZE 50 is below the 1e-5 cut for sigma 17, so the
// filter is 50 and the propagation distance 50 + 50. Hand-derived: kernel[50 + i] is
// exp(-i^2 / 578) / sum_j exp(-j^2 / 578), |j| <= 50.
TEST(BandPassActivityProfile, HaplotypeCallerKernel) {
  const ActivityProfile profile(0, kContigLength, AssemblyRegionOptions{});
  EXPECT_EQ(profile.filter_size(), 50);
  EXPECT_EQ(profile.max_prob_propagation_distance(), 100);
  double norm = 0.0;
  for (int j = -50; j <= 50; ++j) norm += std::exp(-j * j / 578.0);
  for (int i = -50; i <= 50; ++i) {
    EXPECT_NEAR(profile.kernel()[static_cast<std::size_t>(i + 50)], std::exp(-i * i / 578.0) / norm,
                1e-15);
  }
  // A single active site stays above the 0.002 threshold out to +/- 37 bp.
  EXPECT_GT(profile.kernel()[50 + 37], 0.002);
  EXPECT_LT(profile.kernel()[50 + 38], 0.002);
}

// BandPassActivityProfile.processState: every soft-clip copy is filtered around the ADDED state,
// so with band pass the spread mass (2n + 1 copies) piles up on the kernel centred there.
TEST(BandPassActivityProfile, SoftClipCopiesAreCentredOnTheAddedState) {
  ActivityProfile profile = band_pass_profile(2, 1.0, false);  // 5-entry kernel
  for (int i = 0; i < 10; ++i) profile.add({i, 0.0});
  profile.add(make_activity_profile_state(10, 0.5,
                                          ActivityProfileState::Type::kHighQualitySoftClips,
                                          3.7));  // 3 clips -> 7 copies
  ASSERT_EQ(profile.size(), 13u);                 // positions 0..12
  for (std::size_t i = 0; i < profile.size(); ++i) {
    const int d = static_cast<int>(i) - 10;
    const double expected =
        std::abs(d) <= 2 ? 7 * 0.5 * profile.kernel()[static_cast<std::size_t>(d + 2)] : 0.0;
    EXPECT_NEAR(profile.probability(i), expected, 1e-15) << "position " << i;
  }
}

TEST(BandPassActivityProfile, RejectsANonPositiveSigma) {
  EXPECT_THROW(band_pass_profile(10, 0.0, false), Error);
  EXPECT_THROW(gaussian_kernel(-1, 1.0), Error);
}

}  // namespace
}  // namespace gpp::stages::call
