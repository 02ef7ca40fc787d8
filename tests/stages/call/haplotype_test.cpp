// Tests of stages/call/haplotype: GATK HaplotypeUnitTest ported (insertAllele, consolidated
// padded CIGAR, trim, trim with leading/trailing insertions, bad trim locations) with its inputs
// and expected values; GATK's 1-based positions are shifted to 0-based where they are positions.
#include "stages/call/haplotype.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;
using test::text_of;

// HaplotypeUnitTest.basicInsertTest: haplotype at GATK position 1 (0-based 0), allele at
// loc_wrt_haplotype + 1 in GATK's coordinates, i.e. 0-based position loc_wrt_haplotype.
std::optional<std::string> insert(const std::string& ref, const std::string& alt,
                                  int loc_wrt_haplotype, const std::string& cigar,
                                  const std::string& bases) {
  const auto packed = cigar_of(cigar);
  const auto reference_length = static_cast<std::int64_t>(cigar_reference_length(packed));
  // GATK's genome location spans haplotypeStart .. haplotypeStart + reference length
  const Haplotype h = make_haplotype(bases, packed, 0, {0, reference_length}, false);
  return insert_allele(h, ref, alt, loc_wrt_haplotype);
}

constexpr const char* kSimple = "ACTGGTCAACTGGTCAACTGGTCAACTGGTCA";
const std::string kComplex = std::string("ATCG") + "CCGGCCGGCC" + "ATCGATCG" + "AGGGGGA" + "AGGC";
constexpr const char* kComplexCigar = "4M10I8M3D11M";

// HaplotypeUnitTest.testSimpleInsertionAllele
TEST(InsertAllele, SimpleInsertion) {
  EXPECT_EQ(insert("A", "AACTT", 0, "32M", kSimple), "AACTTCTGGTCAACTGGTCAACTGGTCAACTGGTCA");
  EXPECT_EQ(insert("A", "AACTT", 7, "32M", kSimple), "ACTGGTCAACTTACTGGTCAACTGGTCAACTGGTCA");
  EXPECT_EQ(insert("A", "AACTT", 16, "32M", kSimple), "ACTGGTCAACTGGTCAAACTTCTGGTCAACTGGTCA");
}

// HaplotypeUnitTest.testSimpleDeletionAllele
TEST(InsertAllele, SimpleDeletion) {
  EXPECT_EQ(insert("ACTGG", "A", 0, "32M", kSimple), "ATCAACTGGTCAACTGGTCAACTGGTCA");
  EXPECT_EQ(insert("AACTG", "A", 7, "32M", kSimple), "ACTGGTCAGTCAACTGGTCAACTGGTCA");
  EXPECT_EQ(insert("ACTGG", "A", 16, "32M", kSimple), "ACTGGTCAACTGGTCAATCAACTGGTCA");
  // a deletion whose padding base is the one before the haplotype
  EXPECT_EQ(insert("TAC", "T", -1, "32M", kSimple), "TGGTCAACTGGTCAACTGGTCAACTGGTCA");
}

// HaplotypeUnitTest.testSimpleSNPAllele
TEST(InsertAllele, SimpleSnp) {
  EXPECT_EQ(insert("C", "G", 1, "32M", kSimple), "AGTGGTCAACTGGTCAACTGGTCAACTGGTCA");
  EXPECT_EQ(insert("A", "T", 7, "32M", kSimple), "ACTGGTCTACTGGTCAACTGGTCAACTGGTCA");
  EXPECT_EQ(insert("C", "A", 17, "32M", kSimple), "ACTGGTCAACTGGTCAAATGGTCAACTGGTCA");
}

// HaplotypeUnitTest.testComplexInsertionAllele
TEST(InsertAllele, ComplexInsertion) {
  EXPECT_EQ(insert("A", "AACTT", 0, kComplexCigar, kComplex),
            std::string("AACTTTCG") + "CCGGCCGGCC" + "ATCGATCG" + "AGGGGGA" + "AGGC");
  EXPECT_EQ(insert("C", "CACTT", 6, kComplexCigar, kComplex),
            std::string("ATCG") + "CCGGCCGGCC" + "ATCACTTGATCG" + "AGGGGGA" + "AGGC");
  EXPECT_EQ(insert("G", "GACTT", 16, kComplexCigar, kComplex),
            std::string("ATCG") + "CCGGCCGGCC" + "ATCGATCG" + "AGACTTGGGGA" + "AGGC");
}

// HaplotypeUnitTest.testComplexDeletionAllele
TEST(InsertAllele, ComplexDeletion) {
  EXPECT_EQ(insert("ATCG", "A", 0, kComplexCigar, kComplex),
            std::string("A") + "CCGGCCGGCC" + "ATCGATCG" + "AGGGGGA" + "AGGC");
  EXPECT_EQ(insert("CGATC", "AAA", 6, kComplexCigar, kComplex),
            std::string("ATCG") + "CCGGCCGGCC" + "ATAAAG" + "AGGGGGA" + "AGGC");
  EXPECT_EQ(insert("GGGGG", "G", 16, kComplexCigar, kComplex),
            std::string("ATCG") + "CCGGCCGGCC" + "ATCGATCG" + "AGA" + "AGGC");
}

// HaplotypeUnitTest.testComplexSNPAllele
TEST(InsertAllele, ComplexSnp) {
  EXPECT_EQ(insert("T", "G", 1, kComplexCigar, kComplex),
            std::string("AGCG") + "CCGGCCGGCC" + "ATCGATCG" + "AGGGGGA" + "AGGC");
  EXPECT_EQ(insert("G", "T", 7, kComplexCigar, kComplex),
            std::string("ATCG") + "CCGGCCGGCC" + "ATCTATCG" + "AGGGGGA" + "AGGC");
  EXPECT_EQ(insert("G", "C", 17, kComplexCigar, kComplex),
            std::string("ATCG") + "CCGGCCGGCC" + "ATCGATCG" + "AGCGGGA" + "AGGC");
}

// by hand: outside the haplotype, inside a deletion, or running off its end
TEST(InsertAllele, ImpossibleInsertionsGiveNothing) {
  EXPECT_FALSE(insert("A", "G", 40, "32M", kSimple).has_value());
  EXPECT_FALSE(insert("A", "G", 14, kComplexCigar, kComplex).has_value());  // in the 3D
  EXPECT_FALSE(insert("CAA", "C", 31, "32M", kSimple).has_value());
}

// HaplotypeUnitTest.testConsolidateCigar
TEST(ConsolidatedPaddedCigar, GatkCases) {
  auto padded = [](const std::string& bases, const std::string& cigar, std::uint32_t pad) {
    return text_of(
        consolidated_padded_cigar(make_haplotype(bases, cigar_of(cigar), 0, {}, false), pad));
  };
  EXPECT_EQ(padded("AGCT", "4M", 0), "4M");
  EXPECT_EQ(padded("AGCT", "4M", 1), "5M");
  EXPECT_EQ(padded("AGCT", "1M1I1I1M", 0), "1M2I1M");
  EXPECT_EQ(padded("AGCT", "1M1I1I1M", 1), "1M2I2M");
  EXPECT_EQ(padded("AGCT", "1M1I1I1M", 2), "1M2I3M");
  EXPECT_EQ(padded("AGCT", "1M1I1I1I", 0), "1M3I");
  EXPECT_EQ(padded("AGCT", "1M1I1I1I", 1), "1M3I1M");
  EXPECT_EQ(padded("AGCT", "1M1I1I1I", 2), "1M3I2M");
}

// Haplotype.setCigar: consolidated with CigarBuilder(false); the query length must match
TEST(MakeHaplotype, ConsolidatesAndChecksTheCigar) {
  const Haplotype h = make_haplotype("acgtac", cigar_of("2M1I1D1M1I1D1M2D"), 5, {3, 10}, true);
  EXPECT_EQ(h.bases, "ACGTAC");
  EXPECT_EQ(text_of(h.cigar), "2M1D1I1M1D1I1M2D");
  EXPECT_EQ(h.alignment_start_wrt_ref, 5);
  EXPECT_TRUE(h.is_reference);
  EXPECT_THROW(make_haplotype("ACG", cigar_of("4M"), 0, {}, false), Error);
}

// HaplotypeUnitTest.testTrim (TrimmingData): every sub-span of an 11M haplotype at GATK 10..20
TEST(TrimHaplotype, EverySubSpanOfAMatchOnlyHaplotype) {
  const std::string full_bases = "ACGTAACCGGT";
  const ContigInterval location{10, 20};
  const Haplotype full = make_haplotype(full_bases, cigar_of("11M"), 10, location, false);
  for (std::int64_t trim_start = location.first; trim_start < location.last; ++trim_start) {
    for (std::int64_t trim_stop = trim_start; trim_stop <= location.last; ++trim_stop) {
      const std::int64_t start = trim_start - location.first;
      const std::int64_t stop = start + (trim_stop - trim_start) + 1;
      const std::string expected = full_bases.substr(start, stop - start);
      const auto actual = trim_haplotype(full, {trim_start, trim_stop});
      ASSERT_TRUE(actual.has_value());
      EXPECT_EQ(actual->bases, expected);
      EXPECT_EQ(actual->location, (ContigInterval{trim_start, trim_stop}));
      EXPECT_EQ(text_of(actual->cigar), std::to_string(expected.size()) + "M");
      EXPECT_EQ(actual->alignment_start_wrt_ref, 10 + start);
    }
  }
  // "ACT" 1M2D2M at 10..14: spans starting or ending in the deletion give nothing
  const Haplotype gapped = make_haplotype("ACT", cigar_of("1M2D2M"), 10, {10, 14}, false);
  EXPECT_FALSE(trim_haplotype(gapped, {11, 12}).has_value());
  EXPECT_FALSE(trim_haplotype(gapped, {10, 12}).has_value());
  EXPECT_FALSE(trim_haplotype(gapped, {11, 13}).has_value());
}

// HaplotypeUnitTest.testTrimLeadingAndTrailingInsertions
TEST(TrimHaplotype, DropsLeadingAndTrailingInsertions) {
  struct Case {
    int start;
    int stop;
    const char* cigar;
    const char* bases;
  };
  const Case cases[] = {
      {1, 5, "1M2I4M", "CGTACGT"}, {2, 5, "4M", "ACGT"}, {3, 5, "3M", "CGT"},
      {0, 2, "2M2I1M", "ACGTA"},   {0, 1, "2M", "AC"},
  };
  const int offset = 10;
  const auto untrimmed = cigar_of("2M2I4M");
  const Haplotype h = make_haplotype(
      "ACGTACGT", untrimmed, offset,
      {offset, offset + static_cast<std::int64_t>(cigar_reference_length(untrimmed)) - 1}, false);
  for (const Case& c : cases) {
    const auto trimmed = trim_haplotype(h, {offset + c.start, offset + c.stop});
    ASSERT_TRUE(trimmed.has_value()) << c.cigar;
    EXPECT_EQ(text_of(trimmed->cigar), c.cigar);
    EXPECT_EQ(trimmed->bases, c.bases);
  }
}

// HaplotypeUnitTest.testBadTrimLoc; plus by hand: reference state and score carried over
TEST(TrimHaplotype, RejectsSpansOutsideAndKeepsAttributes) {
  Haplotype h = make_haplotype("ACGTAACCGGT", cigar_of("11M"), 0, {10, 20}, true);
  EXPECT_THROW(trim_haplotype(h, {1, 20}), Error);
  h.score = -3.5;
  h.kmer_size = 25;
  const auto kept = trim_haplotype(h, {12, 15});
  ASSERT_TRUE(kept.has_value());
  EXPECT_TRUE(kept->is_reference);
  EXPECT_EQ(kept->score, -3.5);
  EXPECT_EQ(kept->kmer_size, 25);
  EXPECT_EQ(kept->alignment_start_wrt_ref, 2);
  EXPECT_FALSE(trim_haplotype(h, {12, 15}, true)->is_reference);
  // "2M3I2M" trimmed to the bases after the insertion: the insertion is dropped with its bases
  const Haplotype ins = make_haplotype("ACTTTGT", cigar_of("2M3I2M"), 0, {0, 3}, false);
  const auto after = trim_haplotype(ins, {2, 3});
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->bases, "GT");
  EXPECT_EQ(text_of(after->cigar), "2M");
}

// Haplotype.SIZE_AND_BASE_ORDER
TEST(SizeAndBaseOrder, ShorterFirstThenLexicographic) {
  Haplotype a, b, c;
  a.bases = "TT";
  b.bases = "AAA";
  c.bases = "AAC";
  EXPECT_TRUE(size_and_base_less(a, b));
  EXPECT_TRUE(size_and_base_less(b, c));
  EXPECT_FALSE(size_and_base_less(c, b));
  EXPECT_FALSE(size_and_base_less(b, b));
}

}  // namespace
}  // namespace gpp::stages::call
