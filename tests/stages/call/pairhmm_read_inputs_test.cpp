// Tests of stages/call/pairhmm_read_inputs: GATK PairHMMLikelihoodCalculationEngine.
// modifyReadQualities / capMinimumReadQualities, expected values worked out by hand.
#include "stages/call/pairhmm_read_inputs.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::make_read;

using Quals = std::vector<std::uint8_t>;

TEST(PairHmmReadInputs, QualityCapsAndDefaults) {
  CallRead read = make_read("r", 100, "6M", "ACGTTG");
  read.quals = {40, 35, 17, 18, 5, 30};
  read.mapping_quality = 33;
  const PairHmmReadInputs in = prepare_pairhmm_read(read, PcrIndelModel(PcrIndelModelKind::kNone));
  EXPECT_EQ(in.bases, "ACGTTG");
  // capped at MQ 33, then < 18 -> 6
  EXPECT_EQ(in.base_quals, (Quals{33, 33, 6, 18, 6, 30}));
  EXPECT_EQ(in.insertion_quals, Quals(6, 45));
  EXPECT_EQ(in.deletion_quals, Quals(6, 45));
  EXPECT_EQ(in.gap_continuation_quals, Quals(6, 10));
  // without the MQ cap; a lower threshold
  PairHmmInputOptions options;
  options.cap_base_qualities_to_map_quality = false;
  options.base_quality_score_threshold = 10;
  options.gap_continuation_penalty = 12;
  const PairHmmReadInputs raw =
      prepare_pairhmm_read(read, PcrIndelModel(PcrIndelModelKind::kNone), options);
  EXPECT_EQ(raw.base_quals, (Quals{40, 35, 17, 18, 6, 30}));
  EXPECT_EQ(raw.gap_continuation_quals, Quals(6, 12));
  options.base_quality_score_threshold = 5;
  EXPECT_THROW(prepare_pairhmm_read(read, PcrIndelModel(), options), Error);
}

TEST(PairHmmReadInputs, IndelQualitiesFromTagsAndPcrModel) {
  CallRead read = make_read("r", 100, "6M", "AAAACG");
  read.insertion_quals = {50, 3, 44, 44, 44, 44};
  read.deletion_quals = {5, 50, 50, 50, 50, 50};
  // CONSERVATIVE: the AAAA run (L = 4) caps offsets 0..2 at 39; offset 3 (A|C) sees L = 4 backward
  // and C forward: (C)1 + trailing C in AAAA (0) -> L = 1 -> 40; offset 4 (C|G): 1 -> 40; the last
  // base is left alone. Then < 6 -> 6.
  const PairHmmReadInputs in = prepare_pairhmm_read(read, PcrIndelModel());
  EXPECT_EQ(in.insertion_quals, (Quals{39, 6, 39, 40, 40, 44}));
  EXPECT_EQ(in.deletion_quals, (Quals{6, 39, 39, 40, 40, 50}));
}

TEST(PairHmmReadInputs, SoftClipsKeptUnlessAskedToHardClip) {
  CallRead read = make_read("r", 100, "2S4M", "GGACGT");
  EXPECT_EQ(prepare_pairhmm_read(read, PcrIndelModel()).bases, "GGACGT");
  PairHmmInputOptions options;
  options.hard_clip_soft_clipped_bases = true;
  const PairHmmReadInputs in = prepare_pairhmm_read(read, PcrIndelModel(), options);
  EXPECT_EQ(in.bases, "ACGT");
  EXPECT_EQ(in.base_quals.size(), 4u);
}

}  // namespace
}  // namespace gpp::stages::call
