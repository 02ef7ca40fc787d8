// Tests of stages/call/cigar_edit: cases ported from GATK's CigarBuilderUnitTest and
// AlignmentUtilsUnitTest (trimCigarByReference / trimCigarByBases / getBasesCoveringRefInterval)
// with their inputs and expected values, plus getReadIndexForReferenceCoordinate cases derived by
// hand.
#include "stages/call/cigar_edit.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;
using test::text_of;

std::string build(const std::vector<std::string>& elements, bool remove_ends = true) {
  GatkCigarBuilder builder(remove_ends);
  for (const std::string& e : elements) builder.add(cigar_of(e).front());
  return text_of(builder.make());
}

// CigarBuilderUnitTest.testSimpleConcatenation
TEST(GatkCigarBuilder, SimpleConcatenationKeepsEveryElement) {
  const std::vector<std::vector<std::string>> leading = {{}, {"10H"}, {"10S"}, {"10H", "10S"}};
  const std::vector<std::vector<std::string>> middle = {
      {"10M"}, {"10M", "10I", "10M"}, {"10M", "10D", "10M"}};
  const std::vector<std::vector<std::string>> trailing = {{}, {"10H"}, {"10S"}, {"10S", "10H"}};
  for (const auto& l : leading) {
    for (const auto& m : middle) {
      for (const auto& t : trailing) {
        std::vector<std::string> all = l;
        all.insert(all.end(), m.begin(), m.end());
        all.insert(all.end(), t.begin(), t.end());
        std::string expected;
        for (const std::string& e : all) expected += e;
        EXPECT_EQ(build(all), expected);
      }
    }
  }
}

// CigarBuilderUnitTest.testInitialAndFinalDeletions
TEST(GatkCigarBuilder, RemovesInitialAndFinalDeletions) {
  EXPECT_EQ(build({"10M", "10D"}), "10M");
  EXPECT_EQ(build({"10D", "10M"}), "10M");
  EXPECT_EQ(build({"10H", "10D", "10M"}), "10H10M");
  EXPECT_EQ(build({"10S", "10D", "10M"}), "10S10M");
  EXPECT_EQ(build({"10S", "10D", "10M", "10S"}), "10S10M10S");
  EXPECT_EQ(build({"10M", "10D", "10S"}), "10M10S");
  EXPECT_EQ(build({"10M", "10D", "10H"}), "10M10H");
  EXPECT_EQ(build({"10S", "10M", "10D", "10H"}), "10S10M10H");
}

// CigarBuilderUnitTest.testRetainDeletions
TEST(GatkCigarBuilder, RetainsDeletionsWhenAsked) {
  EXPECT_EQ(build({"10M", "10D"}, false), "10M10D");
  EXPECT_EQ(build({"10D", "10M"}, false), "10D10M");
  EXPECT_EQ(build({"10H", "10D", "10M"}, false), "10H10D10M");
  EXPECT_EQ(build({"10S", "10D", "10M"}, false), "10S10D10M");
  EXPECT_EQ(build({"10S", "10D", "10M", "10S"}, false), "10S10D10M10S");
  EXPECT_EQ(build({"10M", "10D", "10S"}, false), "10M10D10S");
  EXPECT_EQ(build({"10M", "10D", "10H"}, false), "10M10D10H");
  EXPECT_EQ(build({"10S", "10M", "10D", "10H"}, false), "10S10M10D10H");
  EXPECT_EQ(build({"10M", "10D", "10D"}, false), "10M20D");
  EXPECT_EQ(build({"10M", "10M", "10D", "10D"}, false), "20M20D");
}

// CigarBuilderUnitTest.testMergeConsecutive and testTrickyCases
TEST(GatkCigarBuilder, MergesConsecutiveOperators) {
  EXPECT_EQ(build({"10H", "10H", "10M"}), "20H10M");
  EXPECT_EQ(build({"10S", "10M", "10M"}), "10S20M");
  EXPECT_EQ(build({"10S", "10M", "10S", "10S"}), "10S10M20S");
  EXPECT_EQ(build({"10S", "10M", "10I", "10I", "10I", "10S", "10H"}), "10S10M30I10S10H");
  EXPECT_EQ(build({"10S", "10S", "10M", "10M", "10I", "10I", "10S", "10H"}), "20S20M20I10S10H");
  EXPECT_EQ(build({"10H", "10H", "10D", "10D", "10M"}), "20H10M");
}

// CigarBuilderUnitTest.testIndelSandwich
TEST(GatkCigarBuilder, PutsDeletionsBeforeInsertions) {
  EXPECT_EQ(build({"10M", "10I", "10D", "10M"}), "10M10D10I10M");
  EXPECT_EQ(build({"10M", "10D", "10I", "10M"}), "10M10D10I10M");
  EXPECT_EQ(build({"10M", "10I", "10D", "10I", "10M"}), "10M10D20I10M");
  EXPECT_EQ(build({"10M", "10I", "10D", "10I", "10D", "10I", "10M"}), "10M20D30I10M");
  EXPECT_EQ(build({"10M", "10I", "10D", "10I", "10M", "10D", "10I", "10M"}),
            "10M10D20I10M10D10I10M");
  EXPECT_EQ(build({"10D", "10I", "10M"}), "10I10M");
  EXPECT_EQ(build({"10M", "10I", "10D"}), "10M10I");
  EXPECT_EQ(build({"10M", "10D", "10I"}), "10M10I");
  EXPECT_EQ(build({"10M", "10D", "10I", "10S"}), "10M10I10S");
  EXPECT_EQ(build({"10S", "10D", "10I", "10M"}), "10S10I10M");
  EXPECT_EQ(build({"10S", "10I", "10D", "10I", "10M"}), "10S20I10M");
}

// CigarBuilderUnitTest.testInvalid
TEST(GatkCigarBuilder, RejectsInvalidStructures) {
  const std::vector<std::vector<std::string>> invalid = {{"10S"},
                                                         {"10S", "10S"},
                                                         {"10S", "10D"},
                                                         {"10S", "10D", "10S"},
                                                         {"10S", "10D", "10D", "10S"},
                                                         {"10S", "10H", "10M"},
                                                         {"10M", "10H", "10S"},
                                                         {"10M", "10H", "10M"},
                                                         {"10M", "10S", "10M"}};
  for (const auto& elements : invalid) {
    EXPECT_THROW(build(elements), Error) << elements.size();
  }
}

// CigarBuilderUnitTest.testRemovedDeletions
TEST(GatkCigarBuilder, CountsRemovedDeletions) {
  struct Case {
    std::vector<std::string> elements;
    std::int64_t leading;
    std::int64_t trailing;
  };
  const std::vector<Case> cases = {
      {{"10M"}, 0, 0},
      {{"10S", "10M"}, 0, 0},
      {{"10M", "10S"}, 0, 0},
      {{"10M", "10I", "10D", "10M"}, 0, 0},
      {{"10M", "10D", "10I", "10M"}, 0, 0},
      {{"10D", "10I", "10M"}, 10, 0},
      {{"10D", "10D", "10I", "10M"}, 20, 0},
      {{"10D", "10D", "10I", "10D", "10M"}, 30, 0},
      {{"10S", "10D", "10D", "10I", "10D", "10M"}, 30, 0},
      {{"10M", "10I", "10D"}, 0, 10},
      {{"10M", "10D", "10I"}, 0, 10},
      {{"10M", "10D", "10I", "10D"}, 0, 20},
      {{"10M", "10D", "10I", "10D", "10S", "10H"}, 0, 20},
      {{"10H", "10S", "10D", "10M", "10D", "10I", "10D", "10S", "10H"}, 10, 20},
  };
  for (const Case& c : cases) {
    GatkCigarBuilder builder;
    for (const std::string& e : c.elements) builder.add(cigar_of(e).front());
    const CigarBuildResult built = builder.make_and_record_deletions_removed();
    EXPECT_EQ(built.leading_deletions_removed, c.leading) << c.elements.size();
    EXPECT_EQ(built.trailing_deletions_removed, c.trailing) << c.elements.size();
  }
}

// CigarBuilderUnitTest.testRemovedDeletionsWithTwoMakes
TEST(GatkCigarBuilder, CountsRemovedDeletionsOverTwoMakes) {
  struct Case {
    std::vector<std::string> first;
    std::vector<std::string> second;
    std::int64_t leading;
    std::int64_t trailing;
  };
  const std::vector<Case> cases = {
      {{"10M"}, {"10M"}, 0, 0},
      {{"10M", "10I"}, {"10D", "10M"}, 0, 0},
      {{"10M", "10D"}, {"10I", "10M"}, 0, 0},
      {{"10D", "10I"}, {"10M"}, 10, 0},
      {{"10D", "10D", "10I"}, {"10D", "10M"}, 30, 0},
      {{"10H", "10S", "10D", "10M"}, {"10D", "10I", "10D", "10S", "10H"}, 10, 20},
  };
  for (const Case& c : cases) {
    GatkCigarBuilder builder;
    for (const std::string& e : c.first) builder.add(cigar_of(e).front());
    builder.make();
    for (const std::string& e : c.second) builder.add(cigar_of(e).front());
    builder.make();
    EXPECT_EQ(builder.leading_deletions_removed(), c.leading);
    EXPECT_EQ(builder.trailing_deletions_removed(), c.trailing);
  }
}

std::string trim_by_reference(const std::string& cigar, std::int64_t start, std::int64_t end) {
  return text_of(trim_cigar_by_reference(cigar_of(cigar), start, end).cigar);
}

// AlignmentUtilsUnitTest.testTrimCigar: generated cases (expected passed through CigarBuilder, and
// cases whose expected CIGAR is a lone deletion skipped, as in the Java test)
TEST(TrimCigarByReference, GeneratedCases) {
  int checked = 0;
  for (char op : std::string("D=XM")) {
    for (int my_length = 1; my_length < 6; ++my_length) {
      for (int start = 0; start < my_length - 1; ++start) {
        for (int end = start; end < my_length; ++end) {
          const int length = end - start + 1;
          for (char pad_op : std::string("DM")) {
            for (int left = 0; left < 2; ++left) {
              for (int right = 0; right < 2; ++right) {
                const std::string cigar = (left > 0 ? std::to_string(left) + pad_op : "") +
                                          std::to_string(my_length) + op +
                                          (right > 0 ? std::to_string(right) + pad_op : "");
                const std::string raw_expected = std::to_string(length) + op;
                if (op == 'D') continue;  // a lone deletion: the Java test skips it
                const std::string expected =
                    text_of(GatkCigarBuilder().add_all(cigar_of(raw_expected)).make());
                EXPECT_EQ(trim_by_reference(cigar, start + left, end + left), expected) << cigar;
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  for (int left_pad : {0, 1, 2, 5}) {
    for (int right_pad : {0, 1, 2, 5}) {
      const int length = left_pad + right_pad;
      if (length == 0) continue;
      for (int insertion : {1, 10}) {
        for (int start = 0; start <= left_pad; ++start) {
          for (int stop = left_pad; stop < length; ++stop) {
            const int left_remaining = left_pad - start;
            const int right_remaining = stop - left_pad + 1;
            const std::string ins = std::to_string(insertion) + "I";
            const std::string cigar =
                std::to_string(left_pad) + "M" + ins + std::to_string(right_pad) + "M";
            const std::string raw_expected =
                (left_remaining > 0 ? std::to_string(left_remaining) + "M" : "") + ins +
                (right_remaining > 0 ? std::to_string(right_remaining) + "M" : "");
            const std::string expected =
                text_of(GatkCigarBuilder().add_all(cigar_of(raw_expected)).make());
            EXPECT_EQ(trim_by_reference(cigar, start, stop), expected) << cigar;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 300);
}

// AlignmentUtilsUnitTest.testTrimCigar: the listed cases
TEST(TrimCigarByReference, ListedCases) {
  EXPECT_EQ(trim_by_reference("3M2D4M", 0, 8), "3M2D4M");
  EXPECT_EQ(trim_by_reference("3M2D4M", 2, 8), "1M2D4M");
  EXPECT_EQ(trim_by_reference("3M2D4M", 2, 6), "1M2D2M");
  EXPECT_EQ(trim_by_reference("3M2D4M", 3, 6), "2M");  // "2D2M" through CigarBuilder
  EXPECT_EQ(trim_by_reference("3M2D4M", 4, 6), "2M");  // "1D2M" through CigarBuilder
  EXPECT_EQ(trim_by_reference("3M2D4M", 5, 6), "2M");
  EXPECT_EQ(trim_by_reference("3M2D4M", 6, 6), "1M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 0, 5), "2M3I4M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 1, 5), "1M3I4M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 1, 4), "1M3I3M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 2, 4), "3I3M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 2, 3), "3I2M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 2, 2), "3I1M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 3, 4), "2M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 3, 3), "1M");
  EXPECT_EQ(trim_by_reference("2M3I4M", 4, 4), "1M");
}

TEST(TrimCigarByReference, RecordsRemovedDeletionsAndRejectsBadRanges) {
  const CigarBuildResult built = trim_cigar_by_reference(cigar_of("3M2D4M"), 3, 6);
  EXPECT_EQ(built.leading_deletions_removed, 2);
  EXPECT_EQ(built.trailing_deletions_removed, 0);
  EXPECT_THROW(trim_cigar_by_reference(cigar_of("3M"), -1, 2), Error);
  EXPECT_THROW(trim_cigar_by_reference(cigar_of("3M"), 2, 1), Error);
  EXPECT_THROW(trim_cigar_by_reference(cigar_of("3M"), 0, 3), Error);  // past the end
}

// AlignmentUtilsUnitTest.testTrimCigarByBase
TEST(TrimCigarByBases, ListedCases) {
  auto trim = [](const std::string& cigar, int start, int end) {
    return text_of(trim_cigar_by_bases(cigar_of(cigar), start, end).cigar);
  };
  EXPECT_EQ(trim("2M3I4M", 0, 8), "2M3I4M");
  EXPECT_EQ(trim("2M3I4M", 1, 8), "1M3I4M");
  EXPECT_EQ(trim("2M3I4M", 2, 8), "3I4M");
  EXPECT_EQ(trim("2M3I4M", 3, 8), "2I4M");
  EXPECT_EQ(trim("2M3I4M", 4, 8), "1I4M");
  EXPECT_EQ(trim("2M3I4M", 4, 7), "1I3M");
  EXPECT_EQ(trim("2M3I4M", 4, 6), "1I2M");
  EXPECT_EQ(trim("2M3I4M", 4, 5), "1I1M");
  EXPECT_EQ(trim("2M3I4M", 4, 4), "1I");
  EXPECT_EQ(trim("2M3I4M", 5, 5), "1M");
  EXPECT_EQ(trim("2M2D2I", 0, 3), "2M2I");
  EXPECT_EQ(trim("2M2D2I", 1, 3), "1M2I");
  EXPECT_EQ(trim("2M2D2I", 2, 3), "2I");
  EXPECT_EQ(trim("2M2D2I", 3, 3), "1I");
  EXPECT_EQ(trim("2M2D2I", 2, 2), "1I");
  EXPECT_EQ(trim("2M2D2I", 1, 2), "1M1I");
  EXPECT_EQ(trim("2M2D2I", 0, 1), "2M");
  EXPECT_EQ(trim("2M2D2I", 1, 1), "1M");
}

// AlignmentUtilsUnitTest.testGetBasesCoveringRefInterval ("null" = nullopt)
TEST(BasesCoveringRefInterval, GatkCases) {
  struct Case {
    const char* bases;
    int start;
    int end;
    const char* cigar;
    const char* expected;
  };
  const Case cases[] = {
      {"ACGT", 0, 3, "4M", "ACGT"},        {"ACGT", 1, 3, "4M", "CGT"},
      {"ACGT", 1, 2, "4M", "CG"},          {"ACGT", 1, 1, "4M", "C"},
      {"ACGT", 0, 5, "2M2D2M", "ACGT"},    {"ACGT", 1, 5, "2M2D2M", "CGT"},
      {"ACGT", 2, 5, "2M2D2M", nullptr},   {"ACGT", 3, 5, "2M2D2M", nullptr},
      {"ACGT", 4, 5, "2M2D2M", "GT"},      {"ACGT", 5, 5, "2M2D2M", "T"},
      {"ACGT", 0, 4, "2M2D2M", "ACG"},     {"ACGT", 0, 3, "2M2D2M", nullptr},
      {"ACGT", 0, 2, "2M2D2M", nullptr},   {"ACGT", 0, 1, "2M2D2M", "AC"},
      {"ACGT", 0, 0, "2M2D2M", "A"},       {"ACTTGT", 0, 3, "2M2I2M", "ACTTGT"},
      {"ACTTGT", 1, 3, "2M2I2M", "CTTGT"}, {"ACTTGT", 2, 3, "2M2I2M", "GT"},
      {"ACTTGT", 3, 3, "2M2I2M", "T"},     {"ACTTGT", 0, 2, "2M2I2M", "ACTTG"},
      {"ACTTGT", 0, 1, "2M2I2M", "AC"},    {"ACTTGT", 1, 2, "2M2I2M", "CTTG"},
      {"ACTTGT", 2, 2, "2M2I2M", "G"},     {"ACTTGT", 1, 1, "2M2I2M", "C"},
      {"ACTTGT", 0, 3, "2I4M", "TTGT"},    {"ACTTGT", 0, 3, "4M2I", "ACTT"},
      {"ACGT", 0, 1, "2M2I", "AC"},        {"ACGT", 1, 1, "2M2I", "C"},
      {"ACGT", 0, 0, "2M2I", "A"},
  };
  for (const Case& c : cases) {
    const auto bases = bases_covering_ref_interval(c.start, c.end, c.bases, 0, cigar_of(c.cigar));
    if (c.expected == nullptr) {
      EXPECT_FALSE(bases.has_value()) << c.cigar << " " << c.start << "-" << c.end;
    } else {
      ASSERT_TRUE(bases.has_value()) << c.cigar << " " << c.start << "-" << c.end;
      EXPECT_EQ(*bases, c.expected);
    }
  }
}

TEST(BasesCoveringRefInterval, RejectsBadInputs) {
  EXPECT_THROW(bases_covering_ref_interval(0, 3, "ACG", 0, cigar_of("4M")), Error);   // length
  EXPECT_THROW(bases_covering_ref_interval(2, 1, "ACGT", 0, cigar_of("4M")), Error);  // range
  EXPECT_THROW(bases_covering_ref_interval(0, 5, "ACGT", 0, cigar_of("4M")), Error);  // past end
  EXPECT_THROW(bases_covering_ref_interval(0, 1, "ACGT", 0, cigar_of("1S3M")), Error);
}

// ReadUtils.getReadIndexForReferenceCoordinate, by hand: 4M10I8M3D11M from position 1
TEST(ReadIndexForReferenceCoordinate, WalksTheCigar) {
  const auto cigar = cigar_of("4M10I8M3D11M");
  EXPECT_FALSE(read_index_for_reference_coordinate(1, cigar, 0).found);  // before the start
  auto at = read_index_for_reference_coordinate(1, cigar, 1);
  EXPECT_TRUE(at.found);
  EXPECT_EQ(at.index, 0);
  at = read_index_for_reference_coordinate(1, cigar, 7);  // third base of the 8M
  EXPECT_EQ(at.index, 16);
  EXPECT_EQ(at.op, CigarOp::kMatch);
  at = read_index_for_reference_coordinate(1, cigar, 14);  // inside the deletion
  EXPECT_EQ(at.index, 22);
  EXPECT_EQ(at.op, CigarOp::kDeletion);
  at = read_index_for_reference_coordinate(1, cigar, 26);  // last base
  EXPECT_EQ(at.index, 32);
  EXPECT_FALSE(read_index_for_reference_coordinate(1, cigar, 27).found);
  at = read_index_for_reference_coordinate(10, cigar_of("2S3M"), 11);  // soft clip counts as ref
  EXPECT_EQ(at.index, 1);
  EXPECT_EQ(at.op, CigarOp::kSoftClip);
}

}  // namespace
}  // namespace gpp::stages::call
