// Tests of stages/call/physical_phasing: GATK AssemblyBasedCallerUtilsUnitTest
// (testCreateHaplotypeMapping, testConstructPhaseSetMapping, testConstructPhaseGroups,
// testPhaseCalls) ported with their call layouts and expected values (GATK's 1-based positions
// minus one), plus the rules GATK's tests leave out (<NON_REF>, '*', hom and no-call genotypes,
// PID/PS of each set) checked against values derived by hand.
#include "stages/call/physical_phasing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

using Indices = std::vector<std::vector<std::size_t>>;
using Mapping = std::vector<std::optional<PhaseSetMember>>;

constexpr PhaseGroup k01 = PhaseGroup::k01;
constexpr PhaseGroup k10 = PhaseGroup::k10;

/// A call at GATK (1-based) start `gatk_start` with one sample's genotype.
VariantCall call_at(std::int64_t gatk_start, std::vector<std::string> alleles,
                    std::vector<int> genotype = {0, 1}) {
  VariantCall call;
  call.contig = 0;
  call.position = gatk_start - 1;
  call.alleles = std::move(alleles);
  call.genotype.alleles = std::move(genotype);
  return call;
}

/// An event at GATK (1-based) start `gatk_start`.
Event event_at(std::int64_t gatk_start, std::string ref, std::string alt) {
  return Event{gatk_start - 1, std::move(ref), std::move(alt)};
}

EventMap map_of(std::vector<Event> events) { return EventMap(events); }

PhaseInfo phase(const char* pgt, const char* pid, std::int64_t ps) { return {pgt, pid, ps}; }

// AssemblyBasedCallerUtilsUnitTest.makeCreateHaplotypeMappingData / testCreateHaplotypeMapping
TEST(HaplotypesWithSiteSpecificAlt, GatkCreateHaplotypeMapping) {
  const std::vector<EventMap> maps = {
      map_of({event_at(3, "A", "C")}),   // 0: AtoC1
      map_of({event_at(4, "A", "T")}),   // 1: AtoC2
      map_of({event_at(3, "AA", "A")}),  // 2: spandelHap
  };
  const std::vector<std::size_t> without_span_del = {0, 1};
  const std::vector<std::size_t> with_span_del = {0, 1, 2};
  const std::vector<VariantCall> vc1 = {call_at(3, {"A", "C"})};
  const std::vector<VariantCall> vc2 = {call_at(4, {"A", "T"})};
  const std::vector<VariantCall> nowhere = {call_at(1, {"A", "T"})};
  const std::vector<VariantCall> spanned_snp = {call_at(4, {"A", "T", "*"})};
  EXPECT_EQ(haplotypes_with_site_specific_alt(vc1, maps, without_span_del), (Indices{{0}}));
  EXPECT_EQ(haplotypes_with_site_specific_alt(vc2, maps, without_span_del), (Indices{{1}}));
  EXPECT_EQ(haplotypes_with_site_specific_alt(nowhere, maps, without_span_del), (Indices{{}}));
  EXPECT_EQ(haplotypes_with_site_specific_alt(spanned_snp, maps, with_span_del), (Indices{{1}}));
}

// By hand: <NON_REF> and '*' are not site-specific alternate alleles; the one that is may come
// after '*'; two of them (or none) leave the call unmapped.
TEST(HaplotypesWithSiteSpecificAlt, NonRefAndSpanningDeletionAreNotSiteSpecific) {
  const std::vector<EventMap> maps = {map_of({event_at(5, "A", "C")}),
                                      map_of({event_at(5, "A", "T")})};
  const std::vector<std::size_t> called = {0, 1};
  const std::vector<VariantCall> calls = {
      call_at(5, {"A", "C", kNonRefAllele}),       // C only: haplotype 0
      call_at(5, {"A", "*", "T", kNonRefAllele}),  // T only: haplotype 1
      call_at(5, {"A", "C", "T", kNonRefAllele}),  // two site-specific alts: none
      call_at(5, {"A", "*", kNonRefAllele}),       // no site-specific alt: none
      call_at(5, {"A", kNonRefAllele}),            // no site-specific alt: none
  };
  EXPECT_EQ(haplotypes_with_site_specific_alt(calls, maps, called),
            (Indices{{0}, {1}, {}, {}, {}}));
}

// By hand: only called haplotypes count, the event must start at the call's position and carry
// the very alt allele (a deletion's minimal alleles included).
TEST(HaplotypesWithSiteSpecificAlt, OnlyCalledHaplotypesWithTheAltAtTheStart) {
  const std::vector<EventMap> maps = {
      map_of({event_at(10, "AG", "A"), event_at(20, "C", "G")}),  // 0
      map_of({event_at(10, "AG", "A")}),                          // 1: not called
      map_of({event_at(11, "G", "T"), event_at(20, "C", "T")}),   // 2
      map_of({}),                                                 // 3: reference
  };
  const std::vector<std::size_t> called = {3, 2, 0, 2};  // any order, duplicates ignored
  const std::vector<VariantCall> calls = {
      call_at(10, {"AG", "A", kNonRefAllele}),  // haplotype 0 (1 is not called)
      call_at(11, {"G", "T", kNonRefAllele}),   // haplotype 2
      call_at(20, {"C", "G", kNonRefAllele}),   // haplotype 0 (2 has C>T there)
      call_at(21, {"C", "G", kNonRefAllele}),   // no event starts there
  };
  EXPECT_EQ(haplotypes_with_site_specific_alt(calls, maps, called), (Indices{{0}, {2}, {0}, {}}));
  const std::vector<std::size_t> outside = {4};
  EXPECT_THROW(haplotypes_with_site_specific_alt(calls, maps, outside), Error);
}

// AssemblyBasedCallerUtilsUnitTest.makeConstructPhaseSetMappingData / testConstructPhaseSetMapping:
// GATK checks the number of haplotypes, mapped calls, phase sets, "0|1" and "1|0"; the exact
// mapping is derived by hand, following constructPhaseSetMapping pair by pair (i < j).
TEST(PhaseSetMapping, GatkConstructPhaseSetMapping) {
  // GATK's haplotypes by name; only their identity matters here
  // clang-format off
  enum : std::size_t {
    pos1, pos2, pos3, pos4, pos24, pos34, pos234, pos23, pos12, pos1245, pos45, spandel, spanned
  };
  // clang-format on
  struct Case {
    const char* name;
    Indices haplotypes_by_call;
    std::size_t total, map_size, sets, n01, n10;
    Mapping expected;
  };
  const PhaseSetMember a01{0, k01}, a10{0, k10}, b01{1, k01};
  const std::optional<PhaseSetMember> none;
  // clang-format off
  const std::vector<Case> cases = {
      // a single call is never phased
      {"1 no phased variants", {{pos2}}, 1, 0, 0, 0, 0, {none}},
      // disjoint and together all alt haplotypes: opposite phases
      {"2 opposite phase", {{pos2}, {pos3}}, 2, 2, 1, 1, 1, {a01, a10}},
      // three disjoint singletons: no pair covers the 3 haplotypes
      {"3 third call out of phase", {{pos2}, {pos3}, {pos4}}, 3, 0, 0, 0, 0, {none, none, none}},
      // vc2/vc3 opposite; vc4 equal to vc2 joins with vc2's phase; vc3-vc4 both mapped
      {"4 mixture", {{pos24}, {pos3}, {pos24}}, 2, 3, 1, 2, 1, {a01, a10, a01}},
      {"5 two hets", {{pos24}, {pos24}}, 1, 2, 1, 2, 0, {a01, a01}},
      // vc1/vc2 opposite; vc4 is disjoint from vc1 and gets vc1's opposite
      {"6 two snps opposite phase", {{pos1}, {pos24}, {pos24}}, 2, 3, 1, 1, 2, {a01, a10, a10}},
      // vc2 on all alt haplotypes contains vc3: together; vc4 equals vc2
      {"7 homs around a het", {{pos24, pos234}, {pos234}, {pos24, pos234}}, 2, 3, 1, 3, 0,
       {a01, a01, a01}},
      // vc3 on all alt haplotypes: together with vc2; vc4 equals vc2
      {"8 hets around a hom", {{pos234}, {pos3, pos234}, {pos234}}, 2, 3, 1, 3, 0,
       {a01, a01, a01}},
      // vc2 and vc4 (on all) form set 0; then vc3 (unmapped) meets vc4 (mapped): all dropped
      {"9 no phased variants around a hom", {{pos24}, {pos34}, {pos24, pos34, pos234}}, 3, 0, 0,
       0, 0, {none, none, none}},
      {"10 snp spanned by a deletion", {{spandel}, {spanned}}, 2, 2, 1, 1, 1, {a01, a10}},
      // vc2 (on all) with vc3 narrows vc2's haplotypes to {pos23}, so vc4 does not join vc2; it
      // is disjoint from vc3 and gets vc3's opposite
      {"11 hom then opposite hets", {{pos24, pos23}, {pos23}, {pos24}}, 2, 3, 1, 2, 1,
       {a01, a01, a10}},
      // vc2/vc3 opposite; vc4 on all joins vc2 with its phase
      {"12 opposite hets then hom", {{pos24}, {pos34}, {pos24, pos34}}, 2, 3, 1, 2, 1,
       {a01, a10, a01}},
      // vc3 on all joins vc2; vc4 disjoint from vc2 gets its opposite
      {"13 opposite hets around hom", {{pos23}, {pos23, pos34}, {pos34}}, 2, 3, 1, 2, 1,
       {a01, a01, a10}},
      {"14 same-haplotype hets around an opposite het", {{pos24}, {pos3}, {pos24}}, 2, 3, 1, 2, 1,
       {a01, a10, a01}},
      // vc1 = vc2 and vc4 = vc5 make two sets; vc1 and vc4 count 2 + 2 = 4 haplotypes but share
      // pos1245, so they are not opposite; vc3 (pos3 alone) relates to none: unphased
      {"15 two phase sets broken by an unphased snp",
       {{pos12, pos1245}, {pos12, pos1245}, {pos3}, {pos45, pos1245}, {pos45, pos1245}}, 4, 4, 2,
       4, 0, {a01, a01, none, b01, b01}},
  };
  // clang-format on
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::size_t> all;
    for (const auto& set : c.haplotypes_by_call) all.insert(all.end(), set.begin(), set.end());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(static_cast<std::size_t>(std::unique(all.begin(), all.end()) - all.begin()), c.total);

    const Mapping mapping = phase_set_mapping(c.haplotypes_by_call);
    std::size_t mapped = 0, n01 = 0, n10 = 0;
    std::vector<int> sets;
    for (const auto& member : mapping) {
      if (!member) continue;
      ++mapped;
      (member->group == k01 ? n01 : n10)++;
      if (std::find(sets.begin(), sets.end(), member->phase_set) == sets.end())
        sets.push_back(member->phase_set);
    }
    EXPECT_EQ(sets.size(), c.sets);
    EXPECT_EQ(mapped, c.map_size);
    EXPECT_EQ(n01, c.n01);
    EXPECT_EQ(n10, c.n10);
    EXPECT_EQ(mapping, c.expected);
  }
}

// AssemblyBasedCallerUtilsUnitTest.makeConstructPhaseGroupsData / testConstructPhaseGroups: GT
// from GATK; PGT/PID/PS by hand (PID and PS from the set's first call, 1-based).
TEST(ApplyPhaseSets, GatkConstructPhaseGroups) {
  const std::vector<VariantCall> calls = {call_at(1, {"A", "C"}), call_at(2, {"A", "C"}),
                                          call_at(3, {"A", "C"})};
  {  // no phased variants, empty map
    std::vector<VariantCall> out = calls;
    apply_phase_sets(out, Mapping(3));
    for (const VariantCall& call : out) {
      EXPECT_FALSE(call.phase.has_value());
      EXPECT_EQ(call.genotype.alleles, (std::vector<int>{0, 1}));
    }
  }
  {  // three one-member sets: GATK's IllegalStateException
    std::vector<VariantCall> out = calls;
    EXPECT_THROW(apply_phase_sets(out, Mapping{{{0, k01}}, {{1, k01}}, {{2, k01}}}), Error);
  }
  {  // two phased variants: A|C, C|A, third unphased
    std::vector<VariantCall> out = calls;
    apply_phase_sets(out, Mapping{{{0, k01}}, {{0, k10}}, std::nullopt});
    EXPECT_EQ(out[0].genotype.alleles, (std::vector<int>{0, 1}));
    EXPECT_EQ(out[1].genotype.alleles, (std::vector<int>{1, 0}));
    EXPECT_EQ(out[2].genotype.alleles, (std::vector<int>{0, 1}));
    EXPECT_EQ(out[0].phase, phase("0|1", "1_A_C", 1));
    EXPECT_EQ(out[1].phase, phase("1|0", "1_A_C", 1));
    EXPECT_FALSE(out[2].phase.has_value());
  }
  {  // all phased: A|C, C|A, A|C
    std::vector<VariantCall> out = calls;
    apply_phase_sets(out, Mapping{{{0, k01}}, {{0, k10}}, {{0, k01}}});
    EXPECT_EQ(out[0].genotype.alleles, (std::vector<int>{0, 1}));
    EXPECT_EQ(out[1].genotype.alleles, (std::vector<int>{1, 0}));
    EXPECT_EQ(out[2].genotype.alleles, (std::vector<int>{0, 1}));
    EXPECT_EQ(out[2].phase, phase("0|1", "1_A_C", 1));
  }
  {  // unphased snp, deletion AA>A at 3, snp at 4 with '*': GT AA|A and C|* (2|1)
    std::vector<VariantCall> out = {call_at(1, {"A", "C"}), call_at(3, {"AA", "A"}),
                                    call_at(4, {"A", "*", "C"}, {1, 2})};
    apply_phase_sets(out, Mapping{std::nullopt, {{0, k01}}, {{0, k10}}});
    EXPECT_FALSE(out[0].phase.has_value());
    EXPECT_EQ(out[1].genotype.alleles, (std::vector<int>{0, 1}));
    EXPECT_EQ(out[2].genotype.alleles, (std::vector<int>{2, 1}));
    EXPECT_EQ(out[1].phase, phase("0|1", "3_AA_A", 3));
    EXPECT_EQ(out[2].phase, phase("1|0", "3_AA_A", 3));
  }
}

// By hand, phaseVC: a het's alleles are reversed when the allele on the PGT's alternate side
// (second for "0|1", first for "1|0") is REF, '*' or <NON_REF>; homs and no-calls keep theirs.
TEST(ApplyPhaseSets, GenotypesOfEveryKind) {
  std::vector<VariantCall> calls = {
      call_at(10, {"A", "*", "C", kNonRefAllele}, {1, 2}),  // "0|1": side 1 is C: kept
      call_at(11, {"A", "C", kNonRefAllele}, {1, 1}),       // hom-alt: kept, PGT "1|0"
      call_at(12, {"A", "C", kNonRefAllele}, {1, 2}),       // "0|1": side 1 <NON_REF>: reversed
      call_at(13, {"A", "*", "C", kNonRefAllele}, {0, 1}),  // "1|0": side 0 REF: reversed
      call_at(14, {"A", "*", "C", kNonRefAllele}, {0, 1}),  // "0|1": side 1 '*': reversed
      call_at(15, {"A", "C", kNonRefAllele}, {-1, -1}),     // no-call: kept
      call_at(16, {"A", "C", kNonRefAllele}, {0, 1}),       // "1|0": side 0 REF: reversed
  };
  apply_phase_sets(
      calls,
      Mapping{{{0, k01}}, {{0, k10}}, {{0, k01}}, {{0, k10}}, {{0, k01}}, {{0, k01}}, {{0, k10}}});
  const std::vector<std::vector<int>> expected = {{1, 2}, {1, 1},   {2, 1}, {1, 0},
                                                  {1, 0}, {-1, -1}, {1, 0}};
  for (std::size_t c = 0; c < calls.size(); ++c) {
    EXPECT_EQ(calls[c].genotype.alleles, expected[c]) << c;
    // PID from the first call: its first alternate allele, even '*'
    ASSERT_TRUE(calls[c].phase.has_value());
    EXPECT_EQ(calls[c].phase->pid, "10_A_*");
    EXPECT_EQ(calls[c].phase->ps, 10);
  }
  EXPECT_EQ(calls[1].phase->pgt, "1|0");
  EXPECT_EQ(calls[2].phase->pgt, "0|1");
  EXPECT_THROW(apply_phase_sets(calls, Mapping(2)), Error);
}

// AssemblyBasedCallerUtilsUnitTest.makePhaseCallsData / testPhaseCalls, from event maps:
// hap1 carries vc1 and vc3, hap2 vc2 and vc4; a third haplotype with an uncalled SNP changes
// nothing. GT from GATK; PGT/PID/PS by hand (set of four, first call at 2).
TEST(PhaseCalls, GatkPhaseCalls) {
  const std::vector<VariantCall> calls = {call_at(2, {"A", "C"}), call_at(3, {"A", "C"}),
                                          call_at(4, {"A", "T"}), call_at(5, {"A", "T"})};
  const std::vector<EventMap> maps = {
      map_of({event_at(2, "A", "C"), event_at(4, "A", "T")}),  // hap1
      map_of({event_at(3, "A", "C"), event_at(5, "A", "T")}),  // hap2
      map_of({event_at(6, "A", "T")}),                         // hap3: vc5, not called
  };
  for (const std::vector<std::size_t>& called :
       {std::vector<std::size_t>{0, 1}, std::vector<std::size_t>{0, 1, 2}}) {
    SCOPED_TRACE(called.size());
    std::vector<VariantCall> out = calls;
    const Indices by_call = haplotypes_with_site_specific_alt(out, maps, called);
    EXPECT_EQ(by_call, (Indices{{0}, {1}, {0}, {1}}));
    phase_calls(out, by_call);
    const std::vector<std::vector<int>> gts = {{0, 1}, {1, 0}, {0, 1}, {1, 0}};
    const std::vector<const char*> pgts = {"0|1", "1|0", "0|1", "1|0"};
    for (std::size_t c = 0; c < out.size(); ++c) {
      EXPECT_EQ(out[c].genotype.alleles, gts[c]) << c;
      EXPECT_EQ(out[c].phase, phase(pgts[c], "2_A_C", 2)) << c;
      EXPECT_EQ(out[c].alleles, calls[c].alleles);
    }
  }
}

// GATK test 15 and test 9 of constructPhaseSetMapping through phase_calls: each set takes PID
// and PS of its own first call; an unphasable layout leaves every call untouched.
TEST(PhaseCalls, SetsAndUnphasableLayouts) {
  std::vector<VariantCall> calls = {call_at(1, {"A", "C"}), call_at(2, {"A", "C"}),
                                    call_at(3, {"A", "T"}), call_at(4, {"A", "C"}),
                                    call_at(5, {"A", "C"})};
  phase_calls(calls, Indices{{8, 9}, {9, 8, 8}, {2}, {10, 9}, {9, 10}});
  EXPECT_EQ(calls[0].phase, phase("0|1", "1_A_C", 1));
  EXPECT_EQ(calls[1].phase, phase("0|1", "1_A_C", 1));
  EXPECT_FALSE(calls[2].phase.has_value());
  EXPECT_EQ(calls[3].phase, phase("0|1", "4_A_C", 4));
  EXPECT_EQ(calls[4].phase, phase("0|1", "4_A_C", 4));
  for (const VariantCall& call : calls) EXPECT_EQ(call.genotype.alleles, (std::vector<int>{0, 1}));

  std::vector<VariantCall> unphasable = {call_at(2, {"A", "C"}), call_at(3, {"A", "T"}),
                                         call_at(4, {"A", "C"}, {1, 1})};
  phase_calls(unphasable, Indices{{4}, {5}, {4, 5, 6}});
  for (const VariantCall& call : unphasable) EXPECT_FALSE(call.phase.has_value());
  EXPECT_EQ(unphasable[2].genotype.alleles, (std::vector<int>{1, 1}));
  EXPECT_THROW(phase_calls(unphasable, Indices{{4}}), Error);
}

// By hand, assignGenotypeLikelihoods' calledHaplotypes: the union over the called alleles, the
// reference's haplotypes included; <NON_REF> (index past the locus's alleles) adds none.
TEST(AddCalledHaplotypes, UnionOfTheCalledAlleles) {
  std::vector<std::size_t> called;
  const Indices locus1 = {{0, 3}, {1}, {2}};  // REF, alt 1, alt 2 (not called)
  add_called_haplotypes(locus1, std::vector<int>{0, 1, 3}, called);
  EXPECT_EQ(called, (std::vector<std::size_t>{0, 1, 3}));
  const Indices locus2 = {{0, 1, 3}, {2}};
  add_called_haplotypes(locus2, std::vector<int>{0}, called);
  EXPECT_EQ(called, (std::vector<std::size_t>{0, 1, 3}));
}

}  // namespace
}  // namespace gpp::stages::call
