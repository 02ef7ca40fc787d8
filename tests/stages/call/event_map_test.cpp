// Tests of stages/call/event_map: GATK EventMapUnitTest (MNPs, overlapping events, compound
// events) and HaplotypeCallerGenotypingEngineUnitTest.testHaplotypeToVCF ported with their
// inputs and expected values (GATK's 1-based positions minus one), plus edge rules by hand.
#include "stages/call/event_map.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;

Haplotype hap(const std::string& bases, const std::string& cigar, std::int64_t start_wrt_ref) {
  return make_haplotype(bases, cigar_of(cigar), start_wrt_ref, {}, false);
}

std::vector<std::pair<std::string, std::string>> alleles_of(const EventMap& map) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Event& e : map.events()) out.emplace_back(e.ref, e.alt);
  return out;
}

using Alleles = std::vector<std::pair<std::string, std::string>>;

// EventMapUnitTest.testMNPs
TEST(EventMapFromHaplotype, MnpMerging) {
  struct Case {
    const char* ref;
    const char* hap;
    const char* cigar;
    std::vector<int> distances;
    Alleles expected;
  };
  const std::vector<int> zero = {0};
  const std::vector<Case> cases = {
      {"TTTGGGAAA", "TTTCCCAAA", "3M3X3M", {1, 2, 3, 5, 10}, {{"GGG", "CCC"}}},
      {"TTTGGGAAA", "TTTCCCAAA", "3M3X3M", zero, {{"G", "C"}, {"G", "C"}, {"G", "C"}}},
      {"TTTGGGAAA", "TTTCCCAAA", "9M", {1, 2, 3, 5, 10}, {{"GGG", "CCC"}}},
      {"TTTGGGAAA", "TTTCCCAAA", "9M", zero, {{"G", "C"}, {"G", "C"}, {"G", "C"}}},
      {"TTTTTTTTT", "ATATATATA", "9M", {2}, {{"TTTTTTTTT", "ATATATATA"}}},
      {"ACGT", "CGTA", "4M", {1, 2, 3, 5, 10}, {{"ACGT", "CGTA"}}},
      {"ACGT", "CGTA", "4M", zero, {{"A", "C"}, {"C", "G"}, {"G", "T"}, {"T", "A"}}},
      {"ACTTGC", "CATTCG", "6M", {1, 2}, {{"AC", "CA"}, {"GC", "CG"}}},
      {"ACTTGC", "CATTCG", "6M", {3, 5, 10}, {{"ACTTGC", "CATTCG"}}},
      {"ACTTGC", "CATTCG", "6M", zero, {{"A", "C"}, {"C", "A"}, {"G", "C"}, {"C", "G"}}},
  };
  for (const Case& c : cases) {
    for (int distance : c.distances) {
      const EventMap map =
          event_map_from_haplotype(hap(c.hap, c.cigar, 0), ReferenceWindow{c.ref, 0}, distance);
      EXPECT_EQ(alleles_of(map), c.expected) << c.ref << " " << c.cigar << " " << distance;
    }
  }
}

// EventMapUnitTest.testGetOverlappingEvents
//   loc   1234567890123 (GATK, 1-based)
//   ref:  AAAAAAAAAACGG--TCA
//   hap1:        AAA---TTTCA  (CGG deletion then TT insertion)
//   hap2:        AAA-----TCA  (CGG deletion)
//   hap3:        AAACGA--TCA  (G->A SNP at 13)
//   hap4:        AAACGGTTTCA  (TT insertion)
TEST(EventMap, OverlappingEvents) {
  const std::string ref = std::string(10, 'A') + "CGGTCA";
  const Event deletion{9, "ACGG", "A"};
  const Event insertion{12, "G", "GTT"};
  const Event snp{12, "G", "A"};
  struct Case {
    const char* bases;
    const char* cigar;
    int query;  // GATK position
    const Event* expected;
  };
  const Case cases[] = {
      {"AAATTTCA", "3M3D2I3M", 10, &deletion}, {"AAATTTCA", "3M3D2I3M", 11, &deletion},
      {"AAATTTCA", "3M3D2I3M", 12, &deletion}, {"AAATTTCA", "3M3D2I3M", 13, &insertion},
      {"AAATCA", "3M3D3M", 10, &deletion},     {"AAATCA", "3M3D3M", 11, &deletion},
      {"AAATCA", "3M3D3M", 12, &deletion},     {"AAATCA", "3M3D3M", 13, &deletion},
      {"AAACGATCA", "9M", 10, nullptr},        {"AAACGATCA", "9M", 11, nullptr},
      {"AAACGATCA", "9M", 12, nullptr},        {"AAACGATCA", "9M", 13, &snp},
      {"AAACGGTTTCA", "6M2I3M", 10, nullptr},  {"AAACGGTTTCA", "6M2I3M", 11, nullptr},
      {"AAACGGTTTCA", "6M2I3M", 12, nullptr},  {"AAACGGTTTCA", "6M2I3M", 13, &insertion},
  };
  for (const Case& c : cases) {
    const EventMap map = event_map_from_haplotype(hap(c.bases, c.cigar, 7), {ref, 0}, 1);
    const std::vector<Event> overlapping = map.overlapping_events(c.query - 1);
    if (c.expected == nullptr) {
      EXPECT_TRUE(overlapping.empty()) << c.cigar << " @" << c.query;
    } else {
      ASSERT_EQ(overlapping.size(), 1u) << c.cigar << " @" << c.query;
      EXPECT_EQ(overlapping[0], *c.expected) << c.cigar << " @" << c.query;
    }
  }
}

// EventMapUnitTest.testGetNeighborhood (MakeBlockData)
TEST(MakeCompoundEvent, GatkCases) {
  struct Case {
    std::pair<std::string, std::string> first, second, expected;
  };
  const Case cases[] = {
      {{"A", "G"}, {"AGT", "A"}, {"AGT", "G"}},
      {{"A", "G"}, {"A", "AGT"}, {"A", "GGT"}},
      {{"AC", "A"}, {"A", "AGT"}, {"AC", "AGT"}},
      {{"ACGTA", "A"}, {"A", "AG"}, {"ACGTA", "AG"}},
      {{"AC", "A"}, {"A", "AGCGT"}, {"AC", "AGCGT"}},
      {{"A", "ACGTA"}, {"AG", "A"}, {"AG", "ACGTA"}},
      {{"A", "AC"}, {"AGCGT", "A"}, {"AGCGT", "AC"}},
  };
  for (const Case& c : cases) {
    const Event e1 = make_event(9, c.first.first, c.first.second);
    const Event e2 = make_event(9, c.second.first, c.second.second);
    EXPECT_EQ(make_compound_event(e1, e2), make_event(9, c.expected.first, c.expected.second));
  }
  EXPECT_THROW(make_compound_event(Event{9, "A", "G"}, Event{9, "A", "T"}), Error);
  EXPECT_THROW(make_compound_event(Event{9, "AC", "A"}, Event{9, "AG", "A"}), Error);
  EXPECT_THROW(make_compound_event(Event{9, "A", "G"}, Event{10, "A", "AT"}), Error);
}

// HaplotypeCallerGenotypingEngineUnitTest.testHaplotypeToVCF (BasicGenotypingTestProvider). The
// Java test aligns with Smith-Waterman (3, -1, -4, -1, SOFTCLIP); here the offset and CIGAR are
// given, derived by hand as the alignments that yield GATK's expected events.
TEST(EventMapFromHaplotype, HaplotypeToVcfCases) {
  const std::string r = "AGCTCGCATCGCGAGCATCGACTAGCCGATAG";
  struct Case {
    bool leading_context;
    bool trailing_context;
    const char* hap;
    const char* cigar;
    std::vector<std::pair<int, char>> expected;  // GATK position - context, type
  };
  const std::vector<Case> cases = {
      {true, true, "CGCTCGCATCGCGAGCATCGACTAGCCGATAG", "32M", {{1, 'M'}}},
      {true, false, "ATCTCGCATCGCGAGCATCGCCTAGCCGATAG", "32M", {{2, 'M'}, {21, 'M'}}},
      {true, true, "CGCTCGCATCGCGAGCATCGACACTAGCCGATAG", "20M2I12M", {{1, 'M'}, {20, 'I'}}},
      {true, true, "CGCTCGCATCGCGAGCATCGCTAGCCGATAG", "20M1D11M", {{1, 'M'}, {20, 'D'}}},
      {false, true, "CGCTCGCATCGCGAGCATCGCTAGCCGATAG", "20M1D11M", {{1, 'M'}, {20, 'D'}}},
      {true,
       true,
       "ACCTCGCATCGCGAGCATCGTTACTAGCCGATG",
       "20M2I10M1D1M",
       {{2, 'M'}, {20, 'I'}, {30, 'D'}}},
      {true, true, "CGCTCGCATCGCGAGCATCGCTAGCCCATAG", "20M1D11M", {{1, 'M'}, {20, 'D'}, {28, 'M'}}},
  };
  for (const Case& c : cases) {
    for (int context : {0, 1, 5, 9, 24, 36}) {
      if (!c.leading_context && context == 0) continue;  // that group starts at 1 in GATK
      const int lead = c.leading_context ? context : 0;
      const std::string ref =
          std::string(lead, 'G') + r + std::string(c.trailing_context ? context : 0, 'G');
      const EventMap map = event_map_from_haplotype(hap(c.hap, c.cigar, lead), {ref, 0}, 1);
      ASSERT_EQ(map.size(), c.expected.size()) << c.hap << " context " << context;
      for (const auto& [position, type] : c.expected) {
        const auto found = map.by_start().find(position + lead - 1);
        ASSERT_NE(found, map.by_start().end()) << c.hap << " @" << position + lead;
        const Event& e = found->second;
        const bool type_matches = type == 'M'   ? e.is_snp() || e.is_mnp()
                                  : type == 'I' ? e.is_simple_insertion()
                                                : e.is_simple_deletion();
        EXPECT_TRUE(type_matches) << c.hap << " @" << position + lead << " " << type;
      }
    }
  }
}

// by hand: no indel at the window start or as the first/last CIGAR element, nothing touching N
TEST(EventMapFromHaplotype, EdgeAndNRules) {
  const ReferenceWindow ref{"ACGTACGTAC", 100};
  EXPECT_TRUE(event_map_from_haplotype(hap("TTACGT", "2I4M", 0), ref).empty());
  EXPECT_TRUE(event_map_from_haplotype(hap("ACGTTT", "4M2I", 0), ref).empty());
  EXPECT_TRUE(event_map_from_haplotype(hap("GTAC", "2D4M", 0), ref).empty());
  // the same deletion one base into the window has its padding base: A CG -> A at 100
  EXPECT_EQ(event_map_from_haplotype(hap("A"
                                         "TACG",
                                         "1M2D4M", 0),
                                     ref)
                .events(),
            std::vector<Event>({Event{100, "ACG", "A"}}));
  // a leading deletion (ref_pos 0) is skipped, the insertion after it is kept
  EXPECT_EQ(event_map_from_haplotype(hap("GGCGT", "1D2I3M", 0), ref).events(),
            std::vector<Event>({Event{100, "A", "AGG"}}));
  // N on either side of a substitution, in a deletion or an insertion: no event
  const ReferenceWindow with_n{"ACGNACGTAC", 100};
  EXPECT_TRUE(event_map_from_haplotype(hap("ACGTACGT", "8M", 0), with_n).empty());
  EXPECT_TRUE(event_map_from_haplotype(hap("ACGTANGT", "8M", 0), ref).empty());
  EXPECT_TRUE(event_map_from_haplotype(hap("ACACGT", "2M2D4M", 0), with_n).empty());
  EXPECT_TRUE(event_map_from_haplotype(hap("ACGTNTACGT", "4M2I4M", 0), ref).empty());
  EXPECT_TRUE(event_map_from_haplotype(hap("ACGNTTACGT", "4M2I4M", 0), with_n).empty());
  // a failed alignment (negative start) has no events; an M past the window throws
  EXPECT_TRUE(event_map_from_haplotype(hap("ACGT", "4M", -1), ref).empty());
  EXPECT_THROW(event_map_from_haplotype(hap("ACGT", "4M", 8), ref), Error);
  EXPECT_THROW(event_map_from_haplotype(hap("ACGT", "4M", 0), ref, -1), Error);
}

// by hand: a substitution on the padding base of an indel merges into one compound event
TEST(EventMapFromHaplotype, CompoundEventsFromTheCigar) {
  const ReferenceWindow ref{"ACGTACGT", 100};
  // SNP C->G at 101 then TT inserted after it: C -> GTT
  EXPECT_EQ(event_map_from_haplotype(hap("AGTTGTACGT", "2M2I6M", 0), ref).events(),
            std::vector<Event>({Event{101, "C", "GTT"}}));
  // SNP C->G at 101 then GT deleted after it: CGT -> G
  EXPECT_EQ(event_map_from_haplotype(hap("AGACGT", "2M2D4M", 0), ref).events(),
            std::vector<Event>({Event{101, "CGT", "G"}}));
}

// Event's minimal representation and EventMap.getEventStartPositions, by hand
TEST(MakeEvent, MinimalRepresentationAndStarts) {
  EXPECT_EQ(make_event(5, "ACT", "GCT"), (Event{5, "A", "G"}));
  EXPECT_EQ(make_event(5, "act", "a"), (Event{5, "ACT", "A"}));
  EXPECT_EQ(make_event(5, "ACGT", "AT"), (Event{5, "ACG", "A"}));
  EXPECT_THROW(make_event(5, "AC", "AC"), Error);
  EXPECT_THROW(make_event(5, "AC", "GAC"), Error);  // would empty the reference allele
  const Event ins = make_event(5, "A", "ATT");
  EXPECT_TRUE(ins.is_simple_insertion() && ins.is_indel() && ins.stop() == 5);
  const Event del = make_event(5, "ATT", "A");
  EXPECT_TRUE(del.is_simple_deletion() && del.stop() == 7);
  EXPECT_TRUE(make_event(5, "AT", "GC").is_mnp());

  const std::vector<EventMap> maps = {EventMap(std::vector<Event>{{7, "A", "G"}, {3, "C", "T"}}),
                                      EventMap(std::vector<Event>{{7, "AT", "A"}, {12, "G", "GA"}}),
                                      EventMap()};
  EXPECT_EQ(event_start_positions(maps), (std::vector<std::int64_t>{3, 7, 12}));
}

}  // namespace
}  // namespace gpp::stages::call
