// Tests of stages/call/alleles_at_locus: GATK AssemblyBasedCallerUtilsUnitTest
// (testGetVariantContextsFromActiveHaplotypes, testGetEventMapper),
// HaplotypeCallerGenotypingEngineUnitTest (testReplaceWithSpanDelVC,
// testReduceNumberOfAlternativeAllelesBasedOnHaplotypesScores) and GenotypeIndexCalculatorUnitTest
// (computeMaxAcceptableAlleleCount) ported with their inputs and expected values; merging and a
// whole calling window checked against values derived by hand.
#include "stages/call/alleles_at_locus.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using Indices = std::vector<std::vector<std::size_t>>;
using Strings = std::vector<std::string>;

EventMap map_of(std::vector<Event> events) { return EventMap(events); }

// AssemblyBasedCallerUtilsUnitTest.getVariantContextsFromActiveHaplotypesData
TEST(EventsAtLocus, GatkCases) {
  const Event snp{1000, "A", "G"};
  const EventMap snp_hap = map_of({snp});
  const EventMap snp_hap_duplicate = map_of({{1000, "A", "G"}, {1020, "T", "A"}});
  const Event deletion{995, "ACTGGTCAACT", "A"};
  const EventMap deletion_hap = map_of({deletion});
  const Event false_duplicate{998, "ACTGGTCAACT", "A"};
  const EventMap false_duplicate_hap = map_of({false_duplicate});
  const EventMap no_span_hap = map_of({{990, "GTCAA", "G"}});

  EXPECT_TRUE(events_at_locus(1000, std::vector<EventMap>{}).empty());
  EXPECT_EQ(events_at_locus(1000, std::vector{snp_hap}), std::vector<Event>{snp});
  EXPECT_EQ(events_at_locus(1000, std::vector{snp_hap, snp_hap_duplicate}),
            std::vector<Event>{snp});
  EXPECT_EQ(events_at_locus(995, std::vector{deletion_hap}), std::vector<Event>{deletion});
  EXPECT_EQ(events_at_locus(1000, std::vector{deletion_hap}), std::vector<Event>{deletion});
  EXPECT_EQ(events_at_locus(1000, std::vector{deletion_hap, no_span_hap}),
            std::vector<Event>{deletion});
  EXPECT_EQ(events_at_locus(1000, std::vector{deletion_hap, false_duplicate_hap, no_span_hap}),
            (std::vector<Event>{deletion, false_duplicate}));
  EXPECT_EQ(events_at_locus(1000, std::vector{deletion_hap, snp_hap}),
            (std::vector<Event>{deletion, snp}));

  const Event same_loc_del1{10093568, "GTT", "G"};
  const Event same_loc_del2{10093568, "GT", "G"};
  const Event same_loc_ins{10093568, "G", "GT"};
  EXPECT_EQ(events_at_locus(10093568, std::vector{map_of({same_loc_del1}), map_of({same_loc_del2}),
                                                  map_of({same_loc_ins})}),
            (std::vector<Event>{same_loc_del1, same_loc_del2, same_loc_ins}));
  // by hand: without spanning events only those starting at the locus
  EXPECT_EQ(events_at_locus(1000, std::vector{deletion_hap, snp_hap}, false),
            std::vector<Event>{snp});
}

// AssemblyBasedCallerUtilsUnitTest.getEventMapperData (haplotypes named as in the Java test)
TEST(MapAllelesToHaplotypes, GatkCases) {
  const EventMap ref_hap;
  const EventMap snp_hap = map_of({{1000, "A", "G"}});
  const EventMap snp_not_present_hap = map_of({{1000, "A", "T"}});
  const EventMap deletion_hap = map_of({{995, "ACTGGTCAACT", "A"}});
  const EventMap deletion_hap2 = map_of({{995, "ACTGGTCAACTCT", "A"}});
  const EventMap deletion_at_loc_hap = map_of({{1000, "ACTGGTCAACTCT", "A"}});

  const MergedAlleles snp_vc{1000, 1000, {"A", "G"}};
  const MergedAlleles snp_and_span_del{1000, 1000, {"A", "*", "G"}};
  const MergedAlleles deletion_at_loc{1000, 1012, {"ACTGGTCAACTCT", "A"}};
  const MergedAlleles snp_and_deletion_at_loc{1000, 1012, {"ACTGGTCAACTCT", "A", "GCTGGTCAACTCT"}};
  struct Case {
    MergedAlleles merged;
    std::int64_t loc;
    std::vector<EventMap> haplotypes;
    Strings alleles;
    Indices expected;
  };
  const std::vector<Case> cases = {
      {snp_vc, 1000, {snp_hap, ref_hap}, {"A", "G"}, {{1}, {0}}},
      {snp_and_span_del, 1000, {snp_hap, ref_hap, deletion_hap}, {"A", "*", "G"}, {{1}, {2}, {0}}},
      // a SNP haplotype not among the alleles (given-alleles mode) maps to none
      {snp_vc, 1000, {snp_hap, ref_hap, snp_not_present_hap}, {"A", "G"}, {{1}, {0}}},
      // two spanning deletions: both on *
      {snp_and_span_del,
       1000,
       {snp_hap, ref_hap, deletion_hap, deletion_hap2},
       {"A", "*", "G"},
       {{1}, {2, 3}, {0}}},
      // a deletion starting at the locus given, the SNP not
      {deletion_at_loc,
       1000,
       {snp_hap, ref_hap, deletion_at_loc_hap},
       {"ACTGGTCAACTCT", "A"},
       {{1}, {2}}},
      // the SNP given, the deletion starting at the locus not
      {snp_vc, 1000, {snp_hap, ref_hap, deletion_at_loc_hap}, {"A", "G"}, {{1}, {0}}},
      // both: the SNP's allele extended to the deletion's reference allele
      {snp_and_deletion_at_loc,
       1000,
       {snp_hap, ref_hap, deletion_at_loc_hap},
       {"ACTGGTCAACTCT", "A", "GCTGGTCAACTCT"},
       {{1}, {2}, {0}}},
      // locus after the deletion's start: * appended to the map
      {deletion_at_loc,
       1001,
       {snp_hap, ref_hap, deletion_at_loc_hap},
       {"ACTGGTCAACTCT", "A", "*"},
       {{0, 1}, {}, {2}}},
  };
  for (const Case& c : cases) {
    const LocusAlleles mapped = map_alleles_to_haplotypes(c.merged, c.loc, c.haplotypes);
    EXPECT_EQ(mapped.alleles, c.alleles);
    EXPECT_EQ(mapped.haplotypes, c.expected);
  }
  // by hand: without emitting spanning deletions the spanning haplotype counts as reference
  const LocusAlleles no_span =
      map_alleles_to_haplotypes(snp_vc, 1000, std::vector{snp_hap, ref_hap, deletion_hap}, false);
  EXPECT_EQ(no_span.haplotypes, (Indices{{1, 2}, {0}}));
}

// HaplotypeCallerGenotypingEngineUnitTest.testReplaceWithSpanDelVC, through the merge
TEST(MergeAllelesAtLocus, SpanningDeletionBecomesStar) {
  const Event snp{1000000, "A", "G"};
  auto merged = merge_alleles_at_locus(1000000, std::vector{snp}, 'A');
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->alleles, (Strings{"A", "G"}));
  const Event span_del{999995, "AAAAAAAAAAA", "A"};
  merged = merge_alleles_at_locus(1000000, std::vector{span_del}, 'A');
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->alleles, (Strings{"A", "*"}));
  EXPECT_EQ(merged->start, 1000000);
  EXPECT_EQ(merged->stop, 1000000);
  EXPECT_FALSE(merge_alleles_at_locus(5, std::vector<Event>{}, 'A').has_value());
}

// by hand, from GATK's simpleMerge / createAlleleMapping rules (and createAlleleMapper's comment:
// a homopolymer AAAAA with a single and a double deletion gives AAA* AA A)
TEST(MergeAllelesAtLocus, CommonReferenceAndFirstSeenOrder) {
  auto merged =
      merge_alleles_at_locus(10, std::vector<Event>{{10, "AA", "A"}, {10, "AAA", "A"}}, 'A');
  EXPECT_EQ(merged->alleles, (Strings{"AAA", "AA", "A"}));
  EXPECT_EQ(merged->stop, 12);
  merged = merge_alleles_at_locus(
      7, std::vector<Event>{{7, "GTT", "G"}, {7, "GT", "G"}, {7, "G", "GT"}}, 'G');
  EXPECT_EQ(merged->alleles, (Strings{"GTT", "G", "GT", "GTTT"}));
  // spanning deletions: one * whatever their number, placed where the first one comes
  merged = merge_alleles_at_locus(
      1000, std::vector<Event>{{995, "ACTGGTCAACT", "A"}, {1000, "T", "C"}, {998, "GTCAA", "G"}},
      'T');
  EXPECT_EQ(merged->alleles, (Strings{"T", "*", "C"}));
  // two reference alleles of one length must agree
  EXPECT_THROW(merge_alleles_at_locus(5, std::vector<Event>{{5, "AC", "A"}, {5, "AG", "A"}}, 'A'),
               Error);
}

// by hand: a whole calling window. Reference at 90: CCCCC ACTGGTCAACT GGG...G (24 G).
// haplotype 0 deletes CTGGTCAACT after the A at 95, haplotype 1 has T->C at 100, haplotype 2 is
// the reference.
TEST(AllelesInCallingWindow, DeletionSpanningASnp) {
  const std::string ref =
      "CCCCC"
      "ACTGGTCAACT" +
      std::string(24, 'G');
  const ReferenceWindow window{ref, 90};
  std::string snp_bases = ref;
  snp_bases[10] = 'C';
  const std::vector<EventMap> maps = {
      event_map_from_haplotype(make_haplotype("CCCCCA" + std::string(24, 'G'),
                                              test::cigar_of("6M10D24M"), 0, {90, 129}, false),
                               window),
      event_map_from_haplotype(
          make_haplotype(snp_bases, test::cigar_of("40M"), 0, {90, 129}, false), window),
      event_map_from_haplotype(make_haplotype(ref, test::cigar_of("40M"), 0, {90, 129}, true),
                               window)};
  const std::vector<LocusAlleles> loci = alleles_in_calling_window(maps, window, {90, 129});
  ASSERT_EQ(loci.size(), 2u);
  EXPECT_EQ(loci[0].loc, 95);
  EXPECT_EQ(loci[0].alleles, (Strings{"ACTGGTCAACT", "A"}));
  EXPECT_EQ(loci[0].merged.stop, 105);
  EXPECT_EQ(loci[0].haplotypes, (Indices{{1, 2}, {0}}));
  EXPECT_EQ(loci[1].loc, 100);
  EXPECT_EQ(loci[1].alleles, (Strings{"T", "*", "C"}));
  EXPECT_EQ(loci[1].merged.alleles, loci[1].alleles);
  EXPECT_EQ(loci[1].merged_allele_count, 3u);
  EXPECT_EQ(loci[1].haplotypes, (Indices{{2}, {0}, {1}}));
  // event starts outside the window are not genotyped
  const std::vector<LocusAlleles> later = alleles_in_calling_window(maps, window, {96, 129});
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].loc, 100);
}

// GenotypeIndexCalculatorUnitTest: computeMaxAcceptableAlleleCount
TEST(MaxAcceptableAlleleCount, GatkCases) {
  EXPECT_EQ(max_acceptable_allele_count(1, 1024), 1024);
  EXPECT_EQ(max_acceptable_allele_count(2, 1024), 44);
  EXPECT_EQ(max_acceptable_allele_count(3, 1024), 17);
  EXPECT_EQ(max_acceptable_allele_count(10, 1024), 5);
  EXPECT_EQ(max_acceptable_allele_count(20, 1024), 3);
  EXPECT_EQ(max_acceptable_allele_count(100, 1024), 2);
  EXPECT_THROW(max_acceptable_allele_count(0, 1024), Error);
}

// HaplotypeCallerGenotypingEngineUnitTest
//     .testReduceNumberOfAlternativeAllelesBasedOnHaplotypesScores
TEST(AllelesToKeepByHaplotypeScores, GatkCase) {
  // haplotypes: 0 ref (MAX), 1 C (-3), 2 T (-2), 3 T (-3), 4 TT (-2), 5 TT (-3), 6 G (-3), 7 G (-5)
  const std::vector<double> scores = {
      std::numeric_limits<double>::max(), -3, -2, -3, -2, -3, -3, -5};
  Strings alleles = {"A", "C", "T", "TT", "G"};
  Indices haplotypes = {{0}, {1}, {2, 3}, {4, 5}, {6, 7}};
  using Kept = std::vector<std::size_t>;
  EXPECT_EQ(alleles_to_keep_by_haplotype_scores(alleles, haplotypes, scores, 5),
            (Kept{0, 1, 2, 3, 4}));
  EXPECT_EQ(alleles_to_keep_by_haplotype_scores(alleles, haplotypes, scores, 4),
            (Kept{0, 2, 3, 4}));
  EXPECT_EQ(alleles_to_keep_by_haplotype_scores(alleles, haplotypes, scores, 3), (Kept{0, 2, 3}));
  EXPECT_EQ(alleles_to_keep_by_haplotype_scores(alleles, haplotypes, scores, 2), (Kept{0, 2}));
  EXPECT_EQ(alleles_to_keep_by_haplotype_scores(alleles, haplotypes, scores, 1), (Kept{0}));
  // an allele no haplotype carries (given-alleles mode)
  alleles.push_back("TTT");
  haplotypes.emplace_back();
  EXPECT_EQ(alleles_to_keep_by_haplotype_scores(alleles, haplotypes, scores, 1), (Kept{0}));
}

// HaplotypeCallerGenotypingEngineUnitTest.testRemoveExcessiveAltAlleleFromVC, through
// removeAltAllelesIfTooManyGenotypes: ploidy 2 with at most 6 genotypes allows 3 alleles
TEST(RemoveAllelesIfTooManyGenotypes, KeepsTheBestSupported) {
  LocusAlleles locus;
  locus.loc = 1000000;
  locus.merged = {1000000, 1000000, {"A", "T", "C", "G"}};
  locus.alleles = locus.merged.alleles;
  locus.haplotypes = {{0}, {1}, {2}, {3}};
  const std::vector<double> scores = {std::numeric_limits<double>::max(), -1, -2, -5};
  LocusAlleles unchanged = locus;
  EXPECT_FALSE(remove_alleles_if_too_many_genotypes(unchanged, scores, 2, 10));
  EXPECT_EQ(unchanged.alleles.size(), 4u);
  locus.merged_allele_count = 4;
  EXPECT_TRUE(remove_alleles_if_too_many_genotypes(locus, scores, 2, 6));
  EXPECT_EQ(locus.merged_allele_count, 4u);
  EXPECT_EQ(locus.alleles, (Strings{"A", "T", "C"}));
  EXPECT_EQ(locus.merged.alleles, (Strings{"A", "T", "C"}));
  EXPECT_EQ(locus.haplotypes, (Indices{{0}, {1}, {2}}));
  EXPECT_EQ(locus.merged.stop, 1000000);
}

}  // namespace
}  // namespace gpp::stages::call
