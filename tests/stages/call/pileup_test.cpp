// Pileups: GATK PileupElementUnitTest (adjacent elements, immediately before/after, prev/next
// around I/P/S) and LocusIteratorByStateUnitTest (X and = operators, indels in a pileup, adapter
// clipping), plus hand-derived cases for deletions, N and read order. 1-based GATK position P is
// 0-based P - 1.
#include "stages/call/pileup.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/active_region_test_reads.hpp"

namespace gpp::stages::call {
namespace {

using test::make_read;

// PileupElement.createPileupForReadAndOffset: the first element with that read offset.
PileupElement element_at_offset(const CallRead& read, int offset) {
  for (const PileupElement& e : pileup_elements_of_read(read)) {
    if (e.read_offset == offset) return e;
  }
  ADD_FAILURE() << "no element at offset " << offset;
  return {};
}

constexpr CigarOp kAllOps[] = {
    CigarOp::kMatch,   CigarOp::kInsertion,     CigarOp::kDeletion,
    CigarOp::kSkip,    CigarOp::kSoftClip,      CigarOp::kHardClip,
    CigarOp::kPadding, CigarOp::kSequenceMatch, CigarOp::kSequenceMismatch};

// PileupElementUnitTest.testAdjacentElements (adjacentElementTestData).
TEST(PileupElement, AdjacentElements) {
  const CallRead read = make_read("read", 0, "10M10D10N10P10=10X10M10S10H");
  struct Row {
    int offset;
    bool at_start, at_end;
    int prev, next;  // -1: none
  };
  const int kD = static_cast<int>(CigarOp::kDeletion), kP = static_cast<int>(CigarOp::kPadding);
  const int kEq = static_cast<int>(CigarOp::kSequenceMatch);
  const int kX = static_cast<int>(CigarOp::kSequenceMismatch);
  const int kM = static_cast<int>(CigarOp::kMatch), kS = static_cast<int>(CigarOp::kSoftClip);
  std::vector<Row> rows;
  const int blocks[][2] = {{-1, kD}, {kP, kX}, {kEq, kM}, {kX, kS}};
  for (int b = 0; b < 4; ++b) {
    for (int i = 0; i < 10; ++i)
      rows.push_back({10 * b + i, i == 0, i == 9, blocks[b][0], blocks[b][1]});
  }
  for (const Row& row : rows) {
    const PileupElement pe = element_at_offset(read, row.offset);
    EXPECT_EQ(pe.at_start_of_cigar(), row.at_start) << row.offset;
    EXPECT_EQ(pe.at_end_of_cigar(), row.at_end) << row.offset;
    EXPECT_EQ(pe.previous_op, row.prev < 0 ? kNoCigarOp : row.prev) << row.offset;
    EXPECT_EQ(pe.next_op, row.next < 0 ? kNoCigarOp : row.next) << row.offset;
    for (CigarOp op : kAllOps) {
      EXPECT_EQ(pe.is_immediately_after(op), row.at_start && static_cast<int>(op) == row.prev);
      EXPECT_EQ(pe.is_immediately_before(op), row.at_end && static_cast<int>(op) == row.next);
    }
  }
}

// PileupElementUnitTest.testIsImmediatelyAfter_* on 10M10D10M.
TEST(PileupElement, AroundADeletion) {
  const CallRead read = make_read("read", 0, "10M10D10M");
  const PileupElement inside = element_at_offset(read, 5);
  EXPECT_FALSE(inside.at_start_of_cigar());
  EXPECT_FALSE(inside.at_end_of_cigar());
  const PileupElement last_m = element_at_offset(read, 9);
  EXPECT_TRUE(last_m.at_end_of_cigar());
  EXPECT_TRUE(last_m.is_immediately_before(CigarOp::kDeletion));
  EXPECT_TRUE(last_m.is_before_deletion_start());
  EXPECT_FALSE(last_m.is_after_deletion_end());
  const PileupElement after = element_at_offset(read, 10);
  EXPECT_TRUE(after.at_start_of_cigar());
  EXPECT_TRUE(after.is_immediately_after(CigarOp::kDeletion));
  EXPECT_TRUE(after.is_after_deletion_end());
  EXPECT_FALSE(after.is_before_deletion_start());
  const PileupElement inside_final = element_at_offset(read, 15);
  for (CigarOp op : kAllOps) {
    EXPECT_FALSE(inside_final.is_immediately_after(op));
    EXPECT_FALSE(inside_final.is_immediately_before(op));
  }
  // The 10 deletion elements: offset of the base before, 'D', quality 16.
  const auto elements = pileup_elements_of_read(read);
  ASSERT_EQ(elements.size(), 30u);
  for (int i = 10; i < 20; ++i) {
    EXPECT_TRUE(elements[i].is_deletion());
    EXPECT_EQ(elements[i].read_offset, 9);
    EXPECT_EQ(elements[i].base(), 'D');
    EXPECT_EQ(elements[i].qual(), 16);
    EXPECT_FALSE(elements[i].is_before_deletion_start());
  }
}

// PileupElementUnitTest.testImmediateBeforeAndAfterTest_simple: 1M{I,P,S}1M.
TEST(PileupElement, ImmediatelyBeforeAndAfterAMiddleOperation) {
  for (const char* cigar : {"1M1I1M", "1M1P1M", "1M1S1M"}) {
    const CigarOp middle = cigar_op(test::parse_cigar(cigar)[1]);
    const std::string bases = std::string(cigar) == "1M1P1M" ? "AA" : "AAA";
    const auto elements = pileup_elements_of_read(make_read("r", 0, cigar, bases));
    ASSERT_EQ(elements.size(), 2u) << cigar;
    EXPECT_EQ(elements[0].previous_op, kNoCigarOp);
    EXPECT_EQ(elements[0].next_op, static_cast<std::uint8_t>(middle));
    EXPECT_EQ(elements[1].previous_op, static_cast<std::uint8_t>(middle));
    EXPECT_EQ(elements[1].next_op, kNoCigarOp);
    for (CigarOp op : kAllOps) {
      EXPECT_EQ(elements[0].is_immediately_before(op), op == middle) << cigar;
      EXPECT_FALSE(elements[0].is_immediately_after(op)) << cigar;
      EXPECT_FALSE(elements[1].is_immediately_before(op)) << cigar;
      EXPECT_EQ(elements[1].is_immediately_after(op), op == middle) << cigar;
    }
  }
  // isNextToSoftClip / isBeforeInsertion / isAfterInsertion.
  const auto soft = pileup_elements_of_read(make_read("r", 0, "1M1S1M", "AAA"));
  EXPECT_TRUE(soft[0].is_next_to_soft_clip());
  EXPECT_TRUE(soft[1].is_next_to_soft_clip());
  const auto ins = pileup_elements_of_read(make_read("r", 0, "1M1I1M", "AAA"));
  EXPECT_TRUE(ins[0].is_before_insertion());
  EXPECT_TRUE(ins[1].is_after_insertion());
}

// PileupElementUnitTest.testPrevAndNextTest (first M, then I/P/S permutations, last M or D):
// the nearest on-genome element across I, P and S decides before/after deletion.
TEST(PileupElement, NearestOnGenomeElementSkipsIPS) {
  for (const char* middle : {"1I", "1P", "1S", "1I1P", "1S1I", "1P1S1I"}) {
    std::string cigar = std::string("1M") + middle + "1D1M";
    const std::size_t query = cigar_query_length(test::parse_cigar(cigar));
    const auto elements =
        pileup_elements_of_read(make_read("r", 0, cigar, std::string(query, 'A')));
    ASSERT_EQ(elements.size(), 3u);  // M, D, M
    EXPECT_TRUE(elements[0].is_before_deletion_start()) << cigar;
    EXPECT_FALSE(elements[0].previous_on_genome_is_deletion);
    EXPECT_TRUE(elements[1].is_deletion());
    EXPECT_TRUE(elements[2].is_after_deletion_end()) << cigar;
  }
}

// LocusIteratorByStateUnitTest.testXandEQOperators: 4 reads over 10 positions.
TEST(PileupWalker, XAndEqualOperators) {
  std::vector<CallRead> reads = {make_read("r1", 0, "10M", "AAAAAAAAAA", 20),
                                 make_read("r2", 0, "3=1X5=1X", "AAACAAAAAC", 20),
                                 make_read("r3", 0, "3=1X5M1X", "AAACAAAAAC", 20),
                                 make_read("r4", 0, "10M", "AAACAAAAAC", 20)};
  PileupWalker walker;
  for (const auto& r : reads) walker.add_read(r);
  for (std::int64_t pos = 0; pos < 10; ++pos) EXPECT_EQ(walker.pileup_at(pos).size(), 4u);
  EXPECT_EQ(walker.pileup_at(10).size(), 0u);
  EXPECT_EQ(walker.reads_in_flight(), 0u);
}

// LocusIteratorByStateUnitTest.testIndelsInRegularPileup: the base before the insertion is found.
TEST(PileupWalker, IndelsInRegularPileup) {
  std::vector<CallRead> reads = {make_read("before", 0, "10M", "AAAAAAAAAA", 20),
                                 make_read("during", 1, "4M2I6M", "AAAACTAAAAAA", 20),
                                 make_read("after", 2, "10M", "AAAAAAAAAA", 20)};
  PileupWalker walker;
  for (const auto& r : reads) walker.add_read(r);
  int found = 0;
  for (std::int64_t pos = 0; pos < 12; ++pos) {
    for (const PileupElement& p : walker.pileup_at(pos)) {
      if (p.qual() >= 10 && p.is_before_insertion()) {
        ++found;
        EXPECT_EQ(pos, 4);  // the 4th base of "during", at 1-based 2 + 3
        EXPECT_EQ(p.read->name, "during");
        EXPECT_EQ(p.read_offset, 3);
      }
      if (p.is_after_insertion()) {
        EXPECT_EQ(p.read_offset, 6);
      }
    }
  }
  EXPECT_EQ(found, 1);
}

// LocusIteratorByStateUnitTest.testAdapterClipping over its data provider.
TEST(PileupWalker, AdapterBasesAreLeftOut) {
  const std::int64_t start = 10 - 1;
  for (int good_bases : {10, 20, 30}) {
    for (int n_clips : {0, 1, 2, 10}) {
      for (bool on_left : {true, false}) {
        const int length = n_clips + good_bases;
        CallRead read = make_read("read1", start, std::to_string(length) + "M", "", 31);
        read.flag = 0x1 | 0x2;  // paired, properly paired
        int clips_left = 0, clips_right = 0;
        if (on_left) {
          read.flag |= 0x10;                  // reverse, mate forward
          read.mate_start = start + n_clips;  // 1-based start + nClips
          read.insert_size = length;
          clips_left = n_clips;
        } else {
          read.flag |= 0x20;            // forward, mate reverse
          read.mate_start = start - 1;  // 1-based start - 1
          read.insert_size = good_bases;
          clips_right = n_clips;
        }
        PileupWalker walker;
        walker.add_read(read);
        std::vector<std::int64_t> covered;
        for (std::int64_t pos = 0; pos < 60; ++pos) {
          if (!walker.pileup_at(pos).empty()) covered.push_back(pos);
        }
        ASSERT_EQ(static_cast<int>(covered.size()), good_bases) << n_clips << (on_left ? "L" : "R");
        EXPECT_EQ(covered.front(), start + clips_left);
        EXPECT_EQ(covered.back(), start + length - 1 - clips_right);
      }
    }
  }
}

TEST(PileupWalker, AdaptorRuleNeedsAWellDefinedFragment) {
  CallRead read = make_read("r", 100, "50M");
  read.flag = 0x1 | 0x20;
  read.mate_start = 90;
  read.insert_size = 30;  // forward: bases at >= 130 are adaptor
  EXPECT_FALSE(is_base_inside_adaptor(read, 129));
  EXPECT_TRUE(is_base_inside_adaptor(read, 130));
  read.insert_size = 101;  // TLEN > 100: never clipped
  EXPECT_FALSE(is_base_inside_adaptor(read, 149));
  read.insert_size = 30;
  read.flag = 0x20;  // unpaired
  EXPECT_FALSE(is_base_inside_adaptor(read, 149));
  read.flag = 0x1 | 0x8 | 0x20;  // mate unmapped
  EXPECT_FALSE(is_base_inside_adaptor(read, 149));
  read.flag = 0x1;  // both forward
  EXPECT_FALSE(is_base_inside_adaptor(read, 149));
  read.flag = 0x1 | 0x20;
  read.mate_start = 50;  // mate start + TLEN before the read's start: not a facing pair
  EXPECT_FALSE(is_base_inside_adaptor(read, 149));
}

TEST(PileupWalker, SkipsGiveNoElementAndReadOrderIsKept) {
  std::vector<CallRead> reads = {make_read("a", 0, "3M4N3M"), make_read("b", 0, "10M"),
                                 make_read("c", 2, "5M")};
  PileupWalker walker;
  for (const auto& r : reads) walker.add_read(r);
  std::vector<std::vector<std::string>> names;
  for (std::int64_t pos = 0; pos < 10; ++pos) {
    std::vector<std::string> here;
    for (const auto& e : walker.pileup_at(pos)) here.push_back(e.read->name);
    names.push_back(here);
  }
  using V = std::vector<std::string>;
  EXPECT_EQ(names[0], (V{"a", "b"}));
  EXPECT_EQ(names[2], (V{"a", "b", "c"}));
  EXPECT_EQ(names[3], (V{"b", "c"}));  // a is in its N
  EXPECT_EQ(names[6], (V{"b", "c"}));
  EXPECT_EQ(names[7], (V{"a", "b"}));
  EXPECT_EQ(names[9], (V{"a", "b"}));
}

TEST(PileupWalker, SoftClipsAndInsertionsMoveTheReadOffset) {
  const CallRead read = make_read("r", 5, "2S3M1I2M", "GGACGTCA");
  PileupWalker walker;
  walker.add_read(read);
  EXPECT_TRUE(walker.pileup_at(4).empty());
  const auto first = walker.pileup_at(5);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].read_offset, 2);
  EXPECT_EQ(first[0].base(), 'A');
  EXPECT_TRUE(first[0].is_next_to_soft_clip());
  EXPECT_EQ(walker.pileup_at(7)[0].base(), 'G');
  EXPECT_TRUE(walker.pileup_at(7)[0].is_before_insertion());
  EXPECT_EQ(walker.pileup_at(8)[0].read_offset, 6);  // after the inserted T
  EXPECT_TRUE(walker.pileup_at(8)[0].is_after_insertion());
  EXPECT_EQ(walker.pileup_at(9)[0].base(), 'A');
  EXPECT_TRUE(walker.pileup_at(10).empty());
}

// AlignmentStateMachine: reads starting or ending with a deletion are malformed.
TEST(PileupWalker, MalformedReadsAndOrder) {
  PileupWalker walker;
  EXPECT_THROW(walker.add_read(make_read("d", 0, "2D5M")), Error);
  EXPECT_THROW(walker.add_read(make_read("d", 0, "2H2D5M")), Error);
  EXPECT_THROW(walker.add_read(make_read("d", 0, "5M2D")), Error);
  const CallRead soft_then_deletion = make_read("ok", 0, "2S2D5M");  // S moves the offset: allowed
  EXPECT_NO_THROW(walker.add_read(soft_then_deletion));
  const CallRead earlier = make_read("early", 0, "5M");
  const CallRead later = make_read("late", 3, "5M");
  PileupWalker ordered;
  ordered.add_read(later);
  EXPECT_THROW(ordered.add_read(earlier), Error);
  ordered.pileup_at(4);
  EXPECT_THROW(ordered.pileup_at(3), Error);
}

}  // namespace
}  // namespace gpp::stages::call
