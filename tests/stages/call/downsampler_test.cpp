// Tests of stages/call/downsampler: GATK PositionalDownsamplerUnitTest's stack sizes (any
// replacement rule keeps min(max, stack) reads per stack), Java String.hashCode values known
// from the JDK, and the replacement choices of the non-random reservoir worked out by hand.
#include "stages/call/downsampler.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::make_read;

struct Stack {
  int count;
  std::int32_t contig;  ///< -1: unmapped with no position
  std::int64_t start;
  bool unmapped = false;  ///< unmapped but placed at (contig, start)
};

std::vector<CallRead> reads_of(const std::vector<Stack>& stacks) {
  std::vector<CallRead> reads;
  int serial = 0;
  for (const Stack& s : stacks) {
    for (int i = 0; i < s.count; ++i) {
      CallRead read = make_read("read" + std::to_string(serial++), s.start, "4M", "ACGT");
      read.contig = s.contig;
      if (s.contig < 0) read.start = -1;
      if (s.unmapped || s.contig < 0) read.flag |= 0x4;
      reads.push_back(read);
    }
  }
  return reads;
}

/// Sizes of the runs of kept reads sharing (contig, start).
std::vector<int> stack_sizes(const std::vector<CallRead>& reads,
                             const std::vector<std::size_t>& kept) {
  std::vector<int> sizes;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const CallRead& read = reads[kept[k]];
    if (k > 0 && reads[kept[k - 1]].contig == read.contig &&
        reads[kept[k - 1]].start == read.start) {
      ++sizes.back();
    } else {
      sizes.push_back(1);
    }
  }
  return sizes;
}

// PositionalDownsamplerUnitTest.positionalDownsamplerTestData (contigs "1", "2" -> 0, 1;
// positions 1, 2 -> 0, 1)
TEST(PositionalDownsampler, GatkStackSizes) {
  struct Case {
    std::vector<Stack> stacks;
    int target;
    std::vector<int> expected;
  };
  const std::vector<Case> cases = {
      {{{10, 0, 0}}, 1, {1}},
      {{{10, 0, 0}}, 5, {5}},
      {{{10, 0, 0}}, 10, {10}},
      {{{10, 0, 0}}, 15, {10}},
      {{{10, 0, 0}, {8, 0, 1}}, 5, {5, 5}},
      {{{10, 0, 0}, {5, 0, 1}}, 5, {5, 5}},
      {{{10, 0, 0}, {3, 0, 1}}, 5, {5, 3}},
      {{{10, 0, 0}, {10, 1, 0}}, 5, {5, 5}},
      {{{10, 0, 0}, {10, 1, 0}, {10, 1, 1}}, 5, {5, 5, 5}},
      {{{10, 0, 0}, {10, 1, 0}, {10, 1, 1}}, 10, {10, 10, 10}},
      {{{3, 0, 0}, {10, 1, 0}, {4, 1, 1}}, 5, {3, 5, 4}},
      {{{3, 0, 0}, {10, 1, 0}, {4, 1, 1}}, 1, {1, 1, 1}},
      {{{10, 0, 0}, {10, 1, 0}, {10, 1, 1}, {100, -1, 0}}, 5, {5, 5, 5, 100}},
      {{{10, 0, 0}, {10, 0, 0, true}}, 5, {5}},
      {{{10, 0, 0}, {10, 0, 0, true}, {5, 1, 0}, {5, 1, 0, true}}, 5, {5, 5}},
      {{{10, 0, 0}, {10, 0, 0, true}, {5, 1, 0}, {5, 1, 0, true}, {100, -1, 0}}, 5, {5, 5, 100}},
      {{{10, -1, 0}}, 1, {10}},
      {{}, 1, {}},
  };
  for (const Case& c : cases) {
    const auto reads = reads_of(c.stacks);
    const auto kept = downsample_by_alignment_start(reads, c.target);
    EXPECT_EQ(stack_sizes(reads, kept), c.expected) << c.target;
    for (std::size_t k = 1; k < kept.size(); ++k) {  // still coordinate-ordered
      const CallRead& a = reads[kept[k - 1]];
      const CallRead& b = reads[kept[k]];
      if (a.contig >= 0 && b.contig >= 0) {
        EXPECT_LE(a.contig * 10 + a.start, b.contig * 10 + b.start);
      }
    }
  }
}

TEST(JavaStringHash, KnownValues) {
  EXPECT_EQ(java_string_hash(""), 0);
  EXPECT_EQ(java_string_hash("hello"), 99162322);
  EXPECT_EQ(java_string_hash("r0"), 3582);
  EXPECT_EQ(java_string_hash("polygenelubricants"), INT32_MIN);
}

// Hand-derived: max 2, reads r0..r5 at one start. n-th read (n > 2) takes slot |hash| mod n:
// r2: 3584 mod 3 = 2 (dropped); r3: 3585 mod 4 = 1 (slot 1); r4: 3586 mod 5 = 1 (slot 1);
// r5: 3587 mod 6 = 5 (dropped). Then r6 starts a new stack.
TEST(PositionalDownsampler, NonRandomReservoirChoices) {
  std::vector<CallRead> reads;
  for (int i = 0; i < 7; ++i) {
    reads.push_back(make_read("r" + std::to_string(i), i < 6 ? 100 : 101, "4M", "ACGT"));
  }
  EXPECT_EQ(downsample_by_alignment_start(reads, 2), (std::vector<std::size_t>{0, 4, 6}));
  // no downsampling when the limit is 0 (GATK: no downsampler)
  EXPECT_EQ(downsample_by_alignment_start(reads, 0).size(), 7u);
  // |INT_MIN| taken as 2^31: 2^31 mod 5 = 3, so the 5th read replaces slot 3 of 4
  reads[4].name = "polygenelubricants";
  EXPECT_EQ(downsample_by_alignment_start(std::span(reads).first(5), 4),
            (std::vector<std::size_t>{0, 1, 2, 4}));
}

TEST(PositionalDownsampler, RejectsUnsortedReads) {
  const std::vector<CallRead> reads = {make_read("a", 101, "4M", "ACGT"),
                                       make_read("b", 100, "4M", "ACGT")};
  EXPECT_THROW(downsample_by_alignment_start(reads, 5), Error);
}

}  // namespace
}  // namespace gpp::stages::call
