// GATK's MannWhitneyU (stages/call/annotations/mann_whitney_u). Cases marked "MannWhitneyUUnitTest"
// are GATK's src/test/.../utils/MannWhitneyUUnitTest.java with its inputs and expected values;
// the others were computed by GATK's own MannWhitneyU.java (commit 51797aa, compiled against
// commons-math 3.6.1 on OpenJDK 17) or by hand as noted.
#include "stages/call/annotations/mann_whitney_u.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace gpp::stages::call {
namespace {

using V = std::vector<double>;
constexpr double kDelta = 0.00001;  // MannWhitneyUUnitTest.DELTA_PRECISION

// MannWhitneyUUnitTest.testSimpleU (two-sided U = min(U1, U2)).
TEST(MannWhitneyU, SimpleU) {
  struct Case {
    V s1, s2;
    double u;
  };
  const Case cases[] = {
      {{20, 20, 20, 20, 20}, {20, 20, 20, 20, 21}, 10},
      {{20, 20, 20, 20, 21}, {20, 20, 20, 20, 21}, 12.5},
      {{13, 14, 15, 15, 16}, {16, 20, 20, 21, 21}, 0.5},
      {{13, 14, 15, 15, 16}, {16, 20, 20, 21, 21, 21, 21, 22, 23, 27}, 0.5},
      {{13, 14, 15, 15, 16, 18, 20, 22, 25, 24, 25, 26, 27, 28, 22, 23, 19, 30, 28, 22, 17},
       {16, 20, 20, 21, 21, 21, 21, 22, 23, 27, 26, 28, 29, 32, 31, 22, 21, 19, 16, 24, 29},
       180.5},
      {{13, 14, 15, 15, 16, 18, 13, 14, 15, 15, 16, 18,
        13, 14, 15, 15, 16, 18, 13, 14, 15, 15, 16, 18},
       {21, 22, 23, 27, 26, 28, 29, 21, 22, 23, 27, 26, 28, 29,
        21, 22, 23, 27, 26, 28, 29, 21, 22, 23, 27, 26, 28, 29},
       0},
      {{11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20},
       {12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21},
       145},
      {{11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20},
       {12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21},
       162},
      {{20, 20, 20, 20, 20}, {20, 20, 20, 20, 20, 20, 20, 20, 20, 20}, 25},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(mann_whitney_u_test(c.s1, c.s2, MannWhitneyTestType::kTwoSided).u, c.u);
  }
}

// MannWhitneyUUnitTest.testOnesidedP.
TEST(MannWhitneyU, OneSidedP) {
  struct Case {
    V s1, s2;
    double p;
  };
  const Case cases[] = {
      {{0, 0}, {1, 1}, 0.083333333},
      {{20, 20, 20, 20, 20}, {20, 20, 20, 20, 21}, .25},
      {{20, 20, 20, 20, 21}, {20, 20, 20, 20, 21}, .5},
      {{13, 14, 15, 15, 16}, {16, 20, 20, 21, 21}, 0.00396825},
      {{13, 14, 15, 15, 16}, {16, 20, 20, 21, 21, 21, 21, 22, 23, 27}, 0.001469192},
      {{20, 20, 20, 20, 20}, {20, 20, 20, 20, 20, 20, 20, 20, 20, 20}, .5},
      {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0.001984},
      {{6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}, 0.99801587},
      {{16, 20, 20, 21, 21, 21, 21, 22, 23, 27, 16, 20, 20, 21, 21, 21, 21, 22, 23, 27},
       {22, 23, 27, 16, 20, 20, 21, 21, 21, 21, 22, 23, 27, 60, 60},
       .08303102},
      {{16, 20, 20, 21, 21, 21, 21, 21, 20}, {22, 23, 27, 16, 20, 20, 20, 20, 21}, 0.388204},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(mann_whitney_u_test(c.s1, c.s2, MannWhitneyTestType::kFirstDominates).p, c.p,
                kDelta);
  }
}

// MannWhitneyUUnitTest.testOnesidedZ.
TEST(MannWhitneyU, OneSidedZ) {
  struct Case {
    V s1, s2;
    double z;
  };
  const Case cases[] = {
      {{20}, {20, 20, 20}, 0},
      {{1}, {1, 2, 3}, -0.67448975},
      {{1, 2, 3}, {3}, -0.67448975},
      {{1, 2, 3}, {1}, 0.67448975},
      {{3, 3}, {1, 2, 3}, 1.036433},
      {{20, 20, 20}, {20, 20, 20}, 0},
      {{20, 20, 20, 20, 20}, {20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20}, 0},
      {{1}, {2}, -0.67448975},
      {{1}, {1}, 0},
      {{60, 70, 70, 60, 60, 60, 60, 60}, {60, 60, 60, 60, 60}, .91732119},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(mann_whitney_u_test(c.s1, c.s2, MannWhitneyTestType::kFirstDominates).z, c.z,
                kDelta);
  }
}

// MannWhitneyUUnitTest.testTooManyTies.
TEST(MannWhitneyU, TooManyTies) {
  const std::vector<int> ties = {26,    3,    6,    4,    13,    18,    29,   36,  60,
                                 58,    87,   63,   98,   125,   158,   185,  193, 171,
                                 17592, 115,  100,  141,  216,   298,   451,  719, 1060,
                                 1909,  3210, 5167, 7135, 10125, 11035, 3541, 732, 9};
  EXPECT_EQ(mann_whitney_transformed_ties(64890, ties), 8.41378729572e+12);
}

// Java's Random and Collections.shuffle, to reproduce MannWhitneyUUnitTest's shuffled inputs.
class JavaRandom {
 public:
  explicit JavaRandom(std::int64_t seed) : seed_((seed ^ 0x5DEECE66DLL) & kMask) {}
  int next_int(int bound) {
    int r = next(31);
    const int m = bound - 1;
    if ((bound & m) == 0) return static_cast<int>((bound * static_cast<std::int64_t>(r)) >> 31);
    // Java's int arithmetic wraps (the test `u - r + m < 0` relies on it); C++'s would overflow.
    const auto wrapped = [](std::int64_t v) { return static_cast<std::int32_t>(v); };
    for (int u = r; wrapped(std::int64_t{u} - (r = u % bound) + m) < 0; u = next(31)) {
    }
    return r;
  }
  template <typename T>
  void shuffle(std::vector<T>& list) {
    for (int i = static_cast<int>(list.size()); i > 1; --i)
      std::swap(list[i - 1], list[next_int(i)]);
  }

 private:
  static constexpr std::int64_t kMask = (std::int64_t{1} << 48) - 1;
  int next(int bits) {
    // In unsigned arithmetic: Java's long multiplication wraps, C++'s signed one may not overflow.
    seed_ = static_cast<std::int64_t>(
        (static_cast<std::uint64_t>(seed_) * 0x5DEECE66DULL + 0xBULL) & kMask);
    return static_cast<int>(seed_ >> (48 - bits));
  }
  std::int64_t seed_;
};

void make_distribution(V& result, int target, int skew, int observations) {
  double current = target - skew;
  for (int i = 0; i < observations; ++i) {
    result.push_back(current++);
    if (current > target + skew) current = target - skew;
  }
}

// MannWhitneyUUnitTest.testDistribution (two-sided p of similar / different distributions).
TEST(MannWhitneyU, Distribution) {
  const int observations = 100, skew = 3;
  V d20, d30, d20_40;
  make_distribution(d20, 20, skew, observations);
  make_distribution(d30, 30, skew, observations);
  make_distribution(d20_40, 20, skew, observations / 2);
  make_distribution(d20_40, 40, skew, observations / 2);
  JavaRandom random(47382911);  // Utils.resetRandomGenerator()
  random.shuffle(d20);
  random.shuffle(d30);
  random.shuffle(d20_40);
  struct Case {
    const V* first;
    const V* second;
    bool equal;
  };
  const Case cases[] = {{&d20, &d20, true},   {&d30, &d30, true},  {&d20_40, &d20_40, true},
                        {&d20, &d30, false},  {&d30, &d20, false}, {&d20, &d20_40, false},
                        {&d30, &d20_40, true}};
  for (int reduce : {0, 10, 50, 100}) {
    for (const Case& c : cases) {
      V second = *c.second;
      if (reduce > 0) {
        const double mean = std::accumulate(second.begin(), second.begin() + reduce, 0.0) / reduce;
        second.erase(second.begin(), second.begin() + reduce);
        second.insert(second.end(), reduce, mean);
      }
      const double p = mann_whitney_u_test(*c.first, second, MannWhitneyTestType::kTwoSided).p;
      ASSERT_FALSE(std::isnan(p));
      if (c.equal) {
        if (reduce >= observations / 2) continue;
        EXPECT_GT(p, 0.1) << reduce;
      } else {
        EXPECT_LT(p, 0.01) << reduce;
      }
    }
  }
}

// Values printed by GATK's MannWhitneyU.java for the same inputs.
TEST(MannWhitneyU, MatchesGatkImplementation) {
  // Exact permutation test: U = 0 among the 6 labelings, p = (1/2) / 6.
  auto r = mann_whitney_u_test(V{10, 20}, V{50, 60}, MannWhitneyTestType::kFirstDominates);
  EXPECT_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p, 1.0 / 12);
  EXPECT_NEAR(r.z, -1.3829941271006383, 1e-13);
  r = mann_whitney_u_test(V{30, 30, 30}, V{30, 30, 20, 30, 30},
                          MannWhitneyTestType::kFirstDominates);
  EXPECT_EQ(r.u, 9);
  EXPECT_DOUBLE_EQ(r.p, 0.6875);
  EXPECT_NEAR(r.z, 0.48877641111466946, 1e-13);
  // Normal approximation with ties and the -0.5 continuity correction.
  r = mann_whitney_u_test(V{29, 60, 60, 60}, V(12, 60), MannWhitneyTestType::kFirstDominates);
  EXPECT_EQ(r.u, 18);
  EXPECT_NEAR(r.z, -1.5877132402714709, 1e-13);
  EXPECT_NEAR(r.p, 0.0561755988452321, 1e-13);
  // Normal approximation, no ties at all -> no continuity correction.
  V a, b;
  for (int i = 0; i < 12; ++i) a.push_back(20 + i % 5);
  for (int i = 0; i < 15; ++i) b.push_back(25 + i % 7);
  r = mann_whitney_u_test(a, b, MannWhitneyTestType::kFirstDominates);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.z, -4.38121776729073, 1e-12);
}

TEST(MannWhitneyU, EmptySeriesGivesNaN) {
  const auto r = mann_whitney_u_test(V{}, V{1, 2}, MannWhitneyTestType::kFirstDominates);
  EXPECT_TRUE(std::isnan(r.z));
  EXPECT_TRUE(std::isnan(r.p));
}

// Expected values: commons-math 3.6.1 NormalDistribution(0, 1).inverseCumulativeProbability and
// Erf.erfInv on OpenJDK 17. Near 0 the 2p - 1 cancellation costs digits (the true quantile of 1e-10
// is -6.3613409024...), as in GATK.
TEST(MannWhitneyU, InverseNormal) {
  EXPECT_EQ(inverse_standard_normal_cdf(0.5), 0.0);
  EXPECT_NEAR(inverse_standard_normal_cdf(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(inverse_standard_normal_cdf(0.25), -0.6744897501960816, 1e-14);
  EXPECT_NEAR(inverse_standard_normal_cdf(1e-10), -6.361340889697421, 1e-12);
  EXPECT_TRUE(std::isinf(inverse_standard_normal_cdf(1.0)));
  EXPECT_NEAR(inverse_error_function(0.5), 0.47693627620446977, 1e-15);
}

}  // namespace
}  // namespace gpp::stages::call
