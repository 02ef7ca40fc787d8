// The haplotype -> allele step end to end on one hand-made region, in HaplotypeCallerEngine's
// order: events of the untrimmed haplotypes -> calling window (AssemblyRegionTrimmer) -> trimmed,
// sorted haplotypes (AssemblyResultSet.trimTo) -> their events -> alleles per event start
// (assignGenotypeLikelihoods) -> read x allele likelihoods. Expected values derived by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stages/call/allele_marginalization.hpp"
#include "stages/call/alleles_at_locus.hpp"
#include "stages/call/assembled_haplotypes.hpp"
#include "stages/call/calling_window.hpp"
#include "stages/call/event_map.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;

// Assembly reference: 200 bases at 1000..1199, fixed filler with ACGTCA at 1090 and G at 1100.
std::string assembly_reference() {
  std::string ref;
  std::uint32_t state = 777;
  for (int i = 0; i < 200; ++i) {
    state = state * 1103515245u + 12345u;
    ref += "ACGT"[(state >> 16) & 3];
  }
  ref.replace(90, 6, "ACGTCA");
  ref[100] = 'G';
  return ref;
}

TEST(HaplotypeToAlleles, OneRegion) {
  const std::string full = assembly_reference();
  const ReferenceWindow reference{full, 1000};
  const ContigInterval active{1080, 1119};
  const ContigInterval padded{1030, 1169};
  const std::string padded_bases = full.substr(30, 140);

  // the region's haplotypes: reference, T at 1100, CG deleted after the A at 1090
  std::string snp_bases = padded_bases;
  snp_bases[70] = 'T';
  const std::string deletion_bases = padded_bases.substr(0, 61) + padded_bases.substr(63);
  const std::vector<Haplotype> untrimmed = {
      make_haplotype(padded_bases, cigar_of("140M"), 30, padded, true),
      make_haplotype(snp_bases, cigar_of("140M"), 30, padded, false),
      make_haplotype(deletion_bases, cigar_of("61M2D77M"), 30, padded, false)};

  std::vector<Event> events;
  for (const Haplotype& h : untrimmed) {
    for (const Event& e : event_map_from_haplotype(h, reference).events()) events.push_back(e);
  }
  ASSERT_EQ(events, (std::vector<Event>{{1100, "G", "T"}, {1090, "ACG", "A"}}));

  // SNP padded by 20, the deletion (no STR) by 75, clipped to the padded span
  const CallingWindow window = compute_calling_window(active, padded, events, reference);
  ASSERT_TRUE(window.variation_present);
  EXPECT_EQ(window.variant_span, (ContigInterval{1090, 1100}));
  EXPECT_EQ(window.padded_span, (ContigInterval{1030, 1092 + 75}));

  // trimmed to 1030..1167, sorted: the deletion (136 bases), the reference, the SNP (G < T)
  const TrimmedHaplotypes trimmed = trim_haplotypes_to(untrimmed, window.padded_span);
  ASSERT_EQ(trimmed.haplotypes.size(), 3u);
  EXPECT_EQ(trimmed.original, (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_EQ(trimmed.reference_index, 1u);
  EXPECT_EQ(trimmed.haplotypes[0].bases.size(), 136u);
  EXPECT_EQ(test::text_of(trimmed.haplotypes[0].cigar), "61M2D75M");
  EXPECT_TRUE(trimmed.variation_present);

  std::vector<EventMap> maps;
  for (const Haplotype& h : trimmed.haplotypes)
    maps.push_back(event_map_from_haplotype(h, reference));
  const std::vector<LocusAlleles> loci =
      alleles_in_calling_window(maps, reference, window.variant_span);
  ASSERT_EQ(loci.size(), 2u);
  EXPECT_EQ(loci[0].loc, 1090);
  EXPECT_EQ(loci[0].alleles, (std::vector<std::string>{"ACG", "A"}));
  EXPECT_EQ(loci[0].haplotypes, (std::vector<std::vector<std::size_t>>{{1, 2}, {0}}));
  EXPECT_EQ(loci[1].loc, 1100);
  EXPECT_EQ(loci[1].alleles, (std::vector<std::string>{"G", "T"}));
  EXPECT_EQ(loci[1].haplotypes, (std::vector<std::vector<std::size_t>>{{0, 1}, {2}}));

  // three reads x the three trimmed haplotypes; at 1100 only reads meeting 1098..1102 count
  const double lk[] = {-1, -2, -3, -4, -5, -6, -7, -8, -9};
  const ReadSpan spans[] = {{1040, 1090}, {1095, 1150}, {1101, 1200}};
  const ReadAlleleLikelihoods at_snp = marginalize_informative_reads(
      lk, 3, 3, loci[1].haplotypes, spans, loci[1].merged.start, loci[1].merged.stop, 5000);
  EXPECT_EQ(at_snp.reads, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(at_snp.log10_likelihoods, (std::vector<double>{-4, -6, -7, -9}));
}

}  // namespace
}  // namespace gpp::stages::call
