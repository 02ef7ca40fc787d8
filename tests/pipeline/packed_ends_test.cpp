// The on-disk forms of spilled marking's ends give back, field for field, the ends they were made
// from: fragment ends as fragment_end makes them, pair ends with every field set, candidates and
// record kinds — at the extremes of each field's range too.
#include "pipeline/packed_ends.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>

namespace gpp::pipeline::packed {
namespace {

using stages::markdup::ReadEnd;

void expect_same(const ReadEnd& a, const ReadEnd& b) {
  EXPECT_EQ(a.library, b.library);
  EXPECT_EQ(a.read1_ref, b.read1_ref);
  EXPECT_EQ(a.read1_coord, b.read1_coord);
  EXPECT_EQ(a.orientation, b.orientation);
  EXPECT_EQ(a.optical_orientation, b.optical_orientation);
  EXPECT_EQ(a.read2_ref, b.read2_ref);
  EXPECT_EQ(a.read2_coord, b.read2_coord);
  EXPECT_EQ(a.location.tile, b.location.tile);
  EXPECT_EQ(a.location.x, b.location.x);
  EXPECT_EQ(a.location.y, b.location.y);
  EXPECT_EQ(a.read_group, b.read_group);
  EXPECT_EQ(a.score, b.score);
  EXPECT_EQ(a.read1_index, b.read1_index);
  EXPECT_EQ(a.read2_index, b.read2_index);
}

ReadEnd fragment(std::int32_t library, std::int32_t ref, std::int32_t coord, std::int64_t index) {
  ReadEnd e;
  e.library = library;
  e.read1_ref = ref;
  e.read1_coord = coord;
  e.orientation = 1;
  e.read2_ref = 3;
  e.location = {1101, -32768, 32767};
  e.read_group = 7;
  e.score = -12345;
  e.read1_index = index;
  return e;
}

TEST(PackedEnds, FragmentEndsComeBackWhole) {
  constexpr auto kMax32 = std::numeric_limits<std::int32_t>::max();
  for (const ReadEnd& e :
       {fragment(0, 0, 1, 0), fragment(kMax32, 24, kMax32, std::int64_t{1} << 40),
        fragment(-1, -1, -1, std::numeric_limits<std::int64_t>::max()), ReadEnd{}}) {
    std::array<char, kFragmentBytes> bytes{};
    put_fragment(e, bytes.data());
    expect_same(get_fragment(bytes.data()), e);
  }
}

TEST(PackedEnds, PairEndsKeepEveryField) {
  ReadEnd e = fragment(2, 5, 123456789, 9876543210);
  e.optical_orientation = 2;
  e.read2_coord = 2000000000;
  e.read2_index = 9876543211;
  std::array<char, kPairBytes> bytes{};
  put_pair(e, bytes.data());
  expect_same(get_pair(bytes.data()), e);
  // Packed one after another, each comes back from its own bytes.
  std::array<char, 2 * kPairBytes> two{};
  ReadEnd f = e;
  f.read2_index = -1;
  f.score = 0;
  put_pair(e, two.data());
  put_pair(f, two.data() + kPairBytes);
  expect_same(get_pair(two.data()), e);
  expect_same(get_pair(two.data() + kPairBytes), f);
}

TEST(PackedEnds, CandidatesAndKinds) {
  const Candidate c{fragment(1, 2, 3, 4), 0x0C63, 254};
  std::array<char, kCandidateBytes> bytes{};
  put_candidate(c, bytes.data());
  const Candidate back = get_candidate(bytes.data());
  expect_same(back.end, c.end);
  EXPECT_EQ(back.flag, 0x0C63);
  EXPECT_EQ(back.name_length, 254);

  std::array<char, kKindBytes> kind{};
  put_kind({2147483000, 0xFFFF, 0xFFFE}, kind.data());
  EXPECT_EQ(get_kind(kind.data()).library, 2147483000);
  EXPECT_EQ(get_kind(kind.data()).flag, 0xFFFF);
  EXPECT_EQ(get_kind(kind.data()).run, 0xFFFE);
}

}  // namespace
}  // namespace gpp::pipeline::packed
