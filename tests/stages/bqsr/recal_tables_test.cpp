// RecalTables: the events it holds, bins allocated per (read group, quality) when first written,
// merge and finalize over them (GATK's RecalibrationTables with NestedIntegerArray's lazy leaves).
#include "stages/bqsr/recal_tables.hpp"

#include <gtest/gtest.h>

namespace gpp::stages::bqsr {
namespace {

TEST(RecalTables, EventsNotHeldReadAsAbsent) {
  const CovariateOptions options;
  RecalTables mismatches(2, options, 1);
  mismatches.quality(1, 30, 0).add(3, 1);
  mismatches.context(1, 30, 5, 0).add(3, 1);
  const RecalTables& held = mismatches;
  EXPECT_TRUE(held.quality(1, 30, 0).present);
  for (int event = 1; event < kEventCount; ++event) {
    EXPECT_FALSE(held.read_group(1, event).present);
    EXPECT_FALSE(held.quality(1, 30, event).present);
    EXPECT_FALSE(held.context(1, 30, 5, event).present);
    EXPECT_FALSE(held.cycle(1, 30, 5, event).present);
  }
  EXPECT_EQ(RecalTables::memory_bytes(2, options, 3), 3 * RecalTables::memory_bytes(2, options, 1));
}

TEST(RecalTables, BinsOfAQualityAppearWhenOneIsWritten) {
  const CovariateOptions options;
  RecalTables tables(3, options, kEventCount);
  tables.cycle(2, 17, 40, 2).add(1, 1);
  const RecalTables& held = tables;
  EXPECT_TRUE(held.cycle(2, 17, 40, 2).present);
  EXPECT_FALSE(held.cycle(2, 17, 41, 2).present);   // same block, another bin
  EXPECT_FALSE(held.context(2, 17, 3, 0).present);  // same block, the Context part
  EXPECT_FALSE(held.cycle(2, 18, 40, 2).present);   // another quality: no block
  EXPECT_FALSE(held.cycle(1, 17, 40, 2).present);   // another read group
  // The Cycle keys follow the Context keys in a block: the last Context bin is not a Cycle bin.
  tables.context(0, 5, tables.context_slots() - 1, 0).add(2, 0);
  EXPECT_FALSE(held.cycle(0, 5, 0, 0).present);
  EXPECT_EQ(held.context(0, 5, tables.context_slots() - 1, 0).observations, 2);
}

TEST(RecalTables, MergeAndFinalizeOverTheBlocksWritten) {
  const CovariateOptions options;
  RecalTables a(1, options, 1);
  RecalTables b(1, options, 1);
  a.quality(0, 30, 0).add(10, 1);
  a.context(0, 30, 7, 0).add(10, 1);
  b.quality(0, 30, 0).add(5, 2);
  b.context(0, 30, 7, 0).add(5, 2);
  b.quality(0, 20, 0).add(4, 0);
  b.cycle(0, 20, 9, 0).add(4, 0);
  a.merge(b);
  a.finalize();
  const RecalTables& merged = a;
  EXPECT_EQ(merged.context(0, 30, 7, 0).observations, 15);
  EXPECT_DOUBLE_EQ(merged.context(0, 30, 7, 0).errors(), 3.0);
  EXPECT_DOUBLE_EQ(merged.context(0, 30, 7, 0).estimated_quality, 30.0);
  EXPECT_EQ(merged.cycle(0, 20, 9, 0).observations, 4);
  EXPECT_DOUBLE_EQ(merged.cycle(0, 20, 9, 0).estimated_quality, 20.0);
  EXPECT_FALSE(merged.cycle(0, 30, 9, 0).present);
  // The read-group row combines the quality rows (RecalDatum.combine): 19 observations.
  EXPECT_EQ(merged.read_group(0, 0).observations, 19);
  EXPECT_DOUBLE_EQ(merged.read_group(0, 0).errors(), 3.0);
}

}  // namespace
}  // namespace gpp::stages::bqsr
