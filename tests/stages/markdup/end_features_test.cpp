// EndFeatures filled by the reader as its RecordVisitor equal those computed in a pass over the
// records afterwards: for BAM (decoded in parallel steps, kept or not) and SAM (through HTSlib).
#include "stages/markdup/end_features.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include "io/bam/alignment_reader.hpp"
#include "tests/stages/markdup/markdup_cases.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::markdup {
namespace {

// Only rows of records that make an end are defined.
bool makes_end(const io::ReadBatch& reads, std::size_t i) {
  const std::uint16_t f = reads.flag[i];
  return !(f & io::flag::kUnmapped) && !(f & (io::flag::kSecondary | io::flag::kSupplementary));
}

void expect_same_features(const std::string& path, bool keep_bam_records) {
  SCOPED_TRACE(path + (keep_bam_records ? " (kept records)" : ""));
  EndFeatures visited("");
  io::Header header;
  const io::ReadBatch reads = io::read_alignments(
      path, {.keep_bam_records = keep_bam_records, .visitor = &visited}, header);
  EndFeatures computed("");
  computed.compute(reads, header);
  ASSERT_EQ(visited.size(), reads.size());
  std::size_t ends = 0, pairable = 0, located = 0;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (!makes_end(reads, i)) continue;
    ++ends;
    ASSERT_EQ(visited.five_prime[i], computed.five_prime[i]) << "record " << i;
    ASSERT_EQ(visited.score[i], computed.score[i]) << "record " << i;
    ASSERT_EQ(visited.location_read_group[i], computed.location_read_group[i]) << "record " << i;
    if (computed.location_read_group[i] >= 0) {
      ++located;
      ASSERT_EQ(visited.location[i].tile, computed.location[i].tile) << "record " << i;
      ASSERT_EQ(visited.location[i].x, computed.location[i].x) << "record " << i;
      ASSERT_EQ(visited.location[i].y, computed.location[i].y) << "record " << i;
    }
    if ((reads.flag[i] & io::flag::kPaired) && !(reads.flag[i] & io::flag::kMateUnmapped)) {
      ++pairable;
      ASSERT_EQ(visited.name_hash[i], computed.name_hash[i]) << "record " << i;
    }
  }
  EXPECT_GT(ends, 1000u);  // the inputs exercise every field
  EXPECT_GT(pairable, 1000u);
  EXPECT_GT(located, 1000u);
}

// htsjdk's SUM_OF_BASE_QUALITIES as Java computes it: a short sum over signed bytes of the
// qualities that are at least 15, capped, with the QC-fail penalty.
std::int16_t java_score(const std::vector<std::uint8_t>& qual, bool qc_fail) {
  int sum = 0;
  if (!qual.empty() && qual[0] != 0xFF) {
    for (const std::uint8_t q : qual) {
      const auto b = static_cast<std::int8_t>(q);  // Java byte
      if (b >= 15) sum += b;
    }
  }
  auto score = static_cast<std::int16_t>(std::min(sum, 16383));
  if (qc_fail) score = static_cast<std::int16_t>(score - 16384);
  return score;
}

TEST(EndFeatures, DuplicateScoreEqualsJavasSum) {
  std::mt19937 rng(5);
  for (const std::size_t length : {0, 1, 7, 8, 9, 150, 151, 2047, 2048, 2049, 100000}) {
    for (const int spread :
         {41, 256}) {  // Phred range, or any byte (0xFF, >= 128 negative in Java)
      std::vector<std::uint8_t> qual(length);
      for (auto& q : qual)
        q = static_cast<std::uint8_t>(std::uniform_int_distribution<int>(0, spread - 1)(rng));
      if (!qual.empty() && qual[0] == 0xFF) qual[0] = 30;
      for (const bool qc_fail : {false, true}) {
        EXPECT_EQ(duplicate_score(qual, qc_fail), java_score(qual, qc_fail))
            << length << " " << spread;
      }
    }
  }
  // 259 words of 127s: 16-bit partial sums not folded in time would wrap to a total under the cap.
  const std::vector<std::uint8_t> all_high(259 * 8, 127);
  EXPECT_EQ(duplicate_score(all_high, false), 16383);
  const std::vector<std::uint8_t> missing = {0xFF, 0xFF, 0xFF};
  EXPECT_EQ(duplicate_score(missing, false), 0);
  EXPECT_EQ(duplicate_score(missing, true), -16384);
}

TEST(EndFeatures, VisitedWhileReadingEqualsComputedAfter) {
  test::TempDir dir;
  const std::string sam = dir.file("case.sam");
  std::ofstream(sam) << test::make_markdup_case({.seed = 11, .templates = 6000});
  const std::string bam = dir.file("case.bam");
  ASSERT_EQ(test::run_command("samtools view -b -o " + test::shell_quote(bam) + " " +
                              test::shell_quote(sam))
                .exit_code,
            0);
  expect_same_features(sam, false);
  expect_same_features(bam, false);
  expect_same_features(bam, true);
}

}  // namespace
}  // namespace gpp::stages::markdup
