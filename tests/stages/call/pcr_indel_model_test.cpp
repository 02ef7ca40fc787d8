// Tests of stages/call/pcr_indel_model: GATK PairHMMLikelihoodCalculationEngineUnitTest.
// createPcrErrorModelTest (its repeats and lengths), the cap tables of the three models (values
// computed independently: max(10, round(41 - exp(L / (f pi))))), and tandem-repeat lengths derived
// by hand from findTandemRepeatUnits.
#include "stages/call/pcr_indel_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

std::vector<int> caps_of(PcrIndelModelKind kind) {
  const PcrIndelModel model(kind);
  std::vector<int> caps;
  for (int length = 0; length <= kMaxRepeatLength; ++length) caps.push_back(model.cap(length));
  return caps;
}

TEST(PcrIndelModel, CapTables) {
  EXPECT_EQ(caps_of(PcrIndelModelKind::kConservative),
            (std::vector<int>{40, 40, 40, 40, 39, 39, 39, 39, 39, 38, 38,
                              38, 37, 37, 37, 36, 36, 35, 34, 33, 33}));
  EXPECT_EQ(caps_of(PcrIndelModelKind::kAggressive),
            (std::vector<int>{40, 40, 40, 39, 39, 39, 38, 38, 37, 37, 36,
                              35, 34, 33, 32, 30, 28, 26, 23, 20, 17}));
  EXPECT_EQ(caps_of(PcrIndelModelKind::kHostile),
            (std::vector<int>{40, 40, 39, 38, 37, 36, 34, 32, 28, 23, 17,
                              10, 10, 10, 10, 10, 10, 10, 10, 10, 10}));
  EXPECT_EQ(pcr_adjusted_quality(20, 3.0), 33);
}

TEST(TandemRepeatLength, HandDerived) {
  for (std::size_t offset = 0; offset < 4; ++offset) {
    EXPECT_EQ(tandem_repeat_length("AAAAA", offset), 5) << offset;
  }
  // ACACAC: (CA)2 ahead of offset 0; (AC)1 + (AC)2 at offset 1; single units after that
  const std::vector<int> acac = {2, 3, 1, 1, 1};
  for (std::size_t offset = 0; offset < acac.size(); ++offset) {
    EXPECT_EQ(tandem_repeat_length("ACACAC", offset), acac[offset]) << offset;
  }
  // GATK's own example: TTCTT(C)CCC is (C)4 at the first C
  EXPECT_EQ(tandem_repeat_length("TTCTTCCCC", 4), 4);
  // capped at 20
  EXPECT_EQ(tandem_repeat_length(std::string(25, 'A'), 12), 20);
  // the last base has no forward part: the backward count alone
  EXPECT_EQ(tandem_repeat_length("GAAA", 3), 3);
  EXPECT_EQ(tandem_repeat_length("ACGT", 1), 1);
}

// PairHMMLikelihoodCalculationEngineUnitTest.createPcrErrorModelTest: every base but the last gets
// the cap of its repeat length (CONSERVATIVE), starting from INITIAL_QSCORE 40.
TEST(PcrIndelModel, GatkRepeatCases) {
  const PcrIndelModel model(PcrIndelModelKind::kConservative);
  for (const std::string repeat : {"A", "AC", "ACG", "ACGT"}) {
    for (int copies : {1, 2, 3, 5, 10, 15}) {
      std::string read;
      for (int i = 0; i < copies; ++i) read += repeat;
      std::vector<std::uint8_t> ins(read.size(), 40), del(read.size(), 40);
      model.apply(read, ins, del);
      for (std::size_t i = 1; i < read.size(); ++i) {
        const std::uint8_t expected = pcr_adjusted_quality(tandem_repeat_length(read, i - 1), 3.0);
        EXPECT_EQ(ins[i - 1], expected) << repeat << " x" << copies << " at " << i;
        EXPECT_EQ(del[i - 1], expected);
      }
      EXPECT_EQ(ins.back(), 40);
    }
  }
}

TEST(PcrIndelModel, ApplyCapsOnlyDownwardsAndNoneDoesNothing) {
  std::vector<std::uint8_t> ins = {45, 45, 45, 45, 45, 45};
  std::vector<std::uint8_t> del = {45, 20, 45, 45, 45, 45};
  PcrIndelModel(PcrIndelModelKind::kHostile).apply("ACACAC", ins, del);
  EXPECT_EQ(ins, (std::vector<std::uint8_t>{39, 38, 40, 40, 40, 45}));  // L = 2, 3, 1, 1, 1
  EXPECT_EQ(del, (std::vector<std::uint8_t>{39, 20, 40, 40, 40, 45}));
  std::vector<std::uint8_t> untouched = {45, 45};
  PcrIndelModel(PcrIndelModelKind::kNone).apply("AA", untouched, untouched);
  EXPECT_EQ(untouched, (std::vector<std::uint8_t>{45, 45}));
  std::vector<std::uint8_t> too_short = {45};
  EXPECT_THROW(PcrIndelModel().apply("AA", too_short, too_short), Error);
}

}  // namespace
}  // namespace gpp::stages::call
