// GATK ReferenceConfidenceModel: the cases of ReferenceConfidenceModelUnitTest
// (testIndelLikelihoods, testWorstGL, testCigarModifiedOffset, testCalcNIndelInformativeReads with
// its tables, the read layouts of testRefConfidenceBasic / PartialReads /
// DefaultRefConfidenceModelWithLowQualDels), with the PLs and GQs of the reference-confidence
// records derived by hand below (GATK's tests assert only their depths).
//
// Per-read terms used by the hand derivations (exact log10 sums; the lookup table of
// approximateLog10SumLog10 moves them by < 1e-5, far from any rounding boundary here):
//  - a Q30 base matching the reference, diploid: GL0 = log10(0.999) = -0.000434512,
//    GL1 = log10(0.999 + 0.001/3) - log10(2) = -0.301319622, GL2 = -3 + log10(1/3) = -3.477121255;
//    so PL1 = 10 (GL0 - GL1) = 3.0088511 and PL2 = 10 (GL0 - GL2) = 34.7668674 per read, and the
//    hom-ref log10 GQ is -0.3008851 per read;
//  - an indel-informative read, diploid: GL0 = log10(1 - 10^-4.5) = -0.0000137338,
//    GL1 = log10((1 - 10^-4.5) + 10^-4.5) - log10(2) = -0.301029996,
//    GL2 = log10(2 * 10^-4.5) - log10(2) = -4.5; PL1 = 3.0101626 and PL2 = 44.9998627 per read,
//    hom-ref log10 GQ -0.3010163 per read.
// With n reads on both, the SNP GQ (-0.3008851 n) is the worse one (getGLwithWorstGQ keeps it);
// with no informative read the indel likelihoods are all 0, whose GQ (-0) is worse than any.
#include "stages/call/reference_confidence.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "stages/call/genotype_assignment.hpp"
#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

using testing::make_read;

std::vector<int> pls_of(std::span<const double> gls) { return pls_from_log10_likelihoods(gls); }
double gq_of(std::span<const double> gls) { return -10 * gq_log10_from_likelihoods(0, gls); }

// testIndelLikelihoods: no read gives 0,0,0 and GQ 0; each further read raises GQ and both PLs.
// Values by hand from the per-read terms above: n reads give PLs 0, round(3.0101626 n),
// round(44.9998627 n); haploid likewise 0, round(44.9998627 n).
TEST(IndelLikelihoods, GatkGetIndelPLs) {
  std::vector<double> previous = indel_log10_likelihoods(2, 0);
  EXPECT_EQ(pls_of(previous), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(gq_of(previous), 0.0);
  for (int n = 1; n <= kMaxIndelInformativeReads; ++n) {
    const std::vector<double> current = indel_log10_likelihoods(2, n);
    EXPECT_LT(gq_of(previous), gq_of(current)) << n;
    EXPECT_LT(pls_of(previous)[1], pls_of(current)[1]) << n;
    EXPECT_LT(pls_of(previous)[2], pls_of(current)[2]) << n;
    previous = current;
  }
  EXPECT_EQ(pls_of(indel_log10_likelihoods(2, 1)), (std::vector<int>{0, 3, 45}));
  EXPECT_EQ(pls_of(indel_log10_likelihoods(2, 10)), (std::vector<int>{0, 30, 450}));
  EXPECT_EQ(pls_of(indel_log10_likelihoods(2, 40)), (std::vector<int>{0, 120, 1800}));
  EXPECT_EQ(indel_log10_likelihoods(2, 41), indel_log10_likelihoods(2, 40));  // capped at 40
  const std::vector<double> two = indel_log10_likelihoods(2, 2);
  EXPECT_NEAR(two[0], 2 * -0.0000137338145324, 1e-15);
  EXPECT_NEAR(two[2], 2 * -4.5, 1e-12);
  EXPECT_EQ(pls_of(indel_log10_likelihoods(1, 1)), (std::vector<int>{0, 45}));
  EXPECT_THROW(indel_log10_likelihoods(0, 1), Error);
  EXPECT_THROW(indel_log10_likelihoods(2, -1), Error);
}

// GATKVariantContextUtils.calculateGQFromPLs: second-smallest minus smallest, by hand.
TEST(GqFromPls, SecondSmallestMinusSmallest) {
  EXPECT_EQ(gq_from_pls(std::vector<int>{0, 10, 100}), 10);
  EXPECT_EQ(gq_from_pls(std::vector<int>{20, 0, 200}), 20);
  EXPECT_EQ(gq_from_pls(std::vector<int>{3, 1, 2}), 1);
  EXPECT_EQ(gq_from_pls(std::vector<int>{5, 5, 7}), 0);
  EXPECT_EQ(gq_from_pls(std::vector<int>{0, 348}), 348);  // not capped here
  EXPECT_THROW(gq_from_pls(std::vector<int>{0}), Error);
}

// testWorstGL: PLs 0,10,100 / 0,20,200 / 20,0,200 as log10 likelihoods (PL / -10).
TEST(WorstGq, GatkTestWorstGL) {
  const std::vector<double> gq10 = {0.0, -1.0, -10.0};
  const std::vector<double> gq20 = {0.0, -2.0, -20.0};
  const std::vector<double> gq0 = {-2.0, 0.0, -20.0};
  EXPECT_EQ(likelihoods_with_worst_gq(gq10, gq20).data(), gq10.data());
  EXPECT_EQ(likelihoods_with_worst_gq(gq20, gq10).data(), gq10.data());
  EXPECT_EQ(likelihoods_with_worst_gq(gq10, gq0).data(), gq0.data());
  EXPECT_EQ(likelihoods_with_worst_gq(gq0, gq10).data(), gq0.data());
}

// The pileup element of `read` at read offset `offset` (PileupElement
// .createPileupForReadAndOffset), from its elements per reference position.
PileupElement element_at_read_offset(const CallRead& read, int offset) {
  for (const PileupElement& e : pileup_elements_of_read(read)) {
    if (!e.is_deletion() && e.read_offset == offset) return e;
  }
  throw Error("no element at read offset " + std::to_string(offset));
}

// testCigarModifiedOffset's OffsetTestData: {CIGAR, read offset, expected offset}.
TEST(CigarModifiedOffset, GatkOffsetTestData) {
  struct Case {
    const char* cigar;
    int offset;
    int expected;
  };
  for (const Case& c :
       {Case{"13M", 5, 5}, Case{"7M3D6M", 5, 5}, Case{"7M3D6M", 11, 14}, Case{"7M3I3M", 5, 5},
        Case{"7M3I3M", 11, 8}, Case{"7M3D3I3M", 5, 5}, Case{"7M3D3I3M", 11, 11}}) {
    const CallRead read = make_read("r", 0, c.cigar, "AATATCATTGGTG");
    EXPECT_EQ(cigar_modified_offset(element_at_read_offset(read, c.offset)), c.expected) << c.cigar;
  }
}

// One row of CalcNIndelInformativeReadsData: expected[i] for the read's element at reference
// offset i (reference index i + read_start_into_ref); quals empty means Q30 everywhere.
struct IndelCase {
  std::string read;
  std::string cigar;
  std::vector<std::uint8_t> quals;
  std::string ref;
  int max_indel_size;
  int read_start_into_ref;
  std::string expected;  // '1' informative, '0' not
};

std::vector<std::uint8_t> flat(std::size_t n, std::uint8_t q) { return std::vector(n, q); }
std::vector<std::uint8_t> flat_but_last(std::size_t n, std::uint8_t q, std::uint8_t last) {
  std::vector<std::uint8_t> quals(n, q);
  quals.back() = last;
  return quals;
}
std::string m(const std::string& bases) { return std::to_string(bases.size()) + "M"; }
std::string repeat(const std::string& unit, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += unit;
  return s;
}

std::vector<IndelCase> gatk_indel_cases() {
  std::vector<IndelCase> cases;
  const auto add = [&cases](const std::string& read, const std::string& cigar,
                            std::vector<std::uint8_t> quals, const std::string& ref, int size,
                            int start, const std::string& expected) {
    cases.push_back({read, cigar, std::move(quals), ref, size, start, expected});
  };
  for (int size = 1; size <= 4; ++size) {  // very basic testing
    add("ACGT", "4M", {}, "ACGT", size, 0, std::string(4 - size, '1') + std::string(size, '0'));
  }
  for (const std::string ref : {"TTAAAATT", "TTAAA"}) {  // the repeated A's; ref ends early
    for (const std::string read : {"TTA", "TTAA", "TTAAA", "TTAAAA", "TTAAAAT"}) {
      add(read, m(read), {}, ref, 1, 0,
          read == "TTAAAAT" && ref == "TTAAAATT" ? "11111100" : "11000000");
    }
  }
  const std::vector<std::string> repeating_refs = {
      "AT", "ATC", "ATCA", "ATCAT", "ATCATC", "ATCATCA", "ATCATCAT", "ATCATCATC", "ATCATCATCA"};
  for (const std::string& ref : repeating_refs) add("ATCATC", "6M", {}, ref, 3, 0, "000000");
  const std::vector<std::pair<std::string, std::string>> non_repeating = {
      {"AT", "000000"},       {"ATC", "000000"},       {"ATCG", "100000"},
      {"ATCGA", "110000"},    {"ATCGAT", "111000"},    {"ATCGATA", "111000"},
      {"ATCGATAT", "111000"}, {"ATCGATATC", "111000"}, {"ATCGATATCG", "111000"}};
  for (const auto& [ref, expected] : non_repeating) add("ATCGAT", "6M", {}, ref, 3, 0, expected);
  for (const std::string read : {"TTA", "TTAA", "TTAAA", "TTAAAA", "TTAAAAT"}) {  // read offset
    add(read, m(read), {}, "GGGGGGGGGGTTAAAATT", 1, 10,
        read == "TTAAAAT" ? "11111100" : "11000000");
  }
  // Mismatches off the end of the matching region. GATK gives "ATAAT" the CIGAR 6M (the length
  // of "AAACCC"); 5M describes the same five aligned bases.
  const auto q1 = flat_but_last(6, 10, 9);
  const auto q2 = flat_but_last(5, 10, 63);
  add("AAACCC", "6M", q1, "AAACCT", 2, 0, "111000");
  add("AAACCC", "6M", q1, "AACCT", 2, 0, "000000");
  add("AAACCC", "6M", q1, "AACTT", 2, 0, "000000");
  add("AAACCC", "6M", q1, "AAAACCT", 2, 0, "000000");
  add("AAACCC", "6M", q1, "AAACCCT", 2, 0, "111000");
  const std::vector<std::tuple<std::string, int, std::string>> t_cases = {
      {"ATAATAA", 2, "11100"}, {"ATATTAA", 2, "10000"}, {"ATTATAA", 2, "00000"},
      {"ATAATTA", 2, "11100"}, {"ATAATAT", 2, "11100"}, {"ATAAATA", 2, "00000"},
      {"ATAAAAT", 2, "00000"}, {"ATAAAAT", 1, "11000"}, {"ATATTA", 2, "00000"},
      {"ATATT", 2, "00000"},   {"ATAT", 2, "00000"},    {"ATA", 2, "00000"},
      {"ATTATA", 2, "00000"},  {"ATTAT", 2, "00000"},   {"ATTA", 2, "00000"},
      {"ATT", 2, "00000"}};
  for (const auto& [ref, size, expected] : t_cases) add("ATAAT", "5M", q2, ref, size, 0, expected);
  // An offset matching from within a deletion from the reference.
  add("TGTATATGTAT", "6M6D5M", flat(11, 10), "TGTATATGTATGTGTATGTACATA", 7, 0, "00000000000");
  // Repeats of 1 to 5 bases between anchors of G.
  for (const std::string unit : {"A", "CA", "TAC", "TAGC", "TCAGA"}) {
    const std::string anchor(unit.size(), 'G');
    for (std::size_t units = 1; units < 10; ++units) {
      const std::string rep = repeat(unit, units);
      const std::string ref = anchor + rep + anchor;
      for (std::size_t length = unit.size(); length < rep.size(); ++length) {
        const std::string read = anchor + rep.substr(0, length);
        const int size = static_cast<int>(unit.size());
        // The read stops inside the repeat: only the anchor is informative.
        add(read, m(read), {}, ref, size, 0,
            std::string(anchor.size(), '1') + std::string(rep.size() + anchor.size(), '0'));
        add(ref, m(ref), {}, ref, size, 0,
            std::string(ref.size() - anchor.size(), '1') + std::string(anchor.size(), '0'));
      }
    }
  }
  // GATK issue 5646: read length against the realigned length.
  add("ACTGCGTGGTCATATGAAATCAAGGCAATGTTATGAGTATTACTGGAAAGCTGGACAGAGTAACGGGAAAAGTGACTAAAACTATGC"
      "AAAACTAAGCAGAT",
      "77M10D24M", {},
      "TTGTTTATAAAAGGAAATCTTCACTGTTTTGAACATCAGTTATTTTAAACTTTTAAGTTGTTAGCACAGCAAAAGCAACAAAATTCTA"
      "AGTGCAGTAATCACTTTACTGCGTGGTCATATGAAATCAAGGCAATGTTATGAGTATTACTGGAAAGCTGGACAGAGTAACGGGAAAAG"
      "TGACTAAAACTATGCAAAACTATGCAAAACTAAGCAGATTGTGTCTCTAGAGTATTTCCCATCTCAAGTTTAGTTATTTACTAATTTGG"
      "CAACATCTGACCTATCTTTAATTGTGAGAAAATAAACAAACACATAAGCCAACTCTCAGAATATGGTTATACAT",
      10, 105,
      "11111111111111111111111111111111111111111111111111111111111111111111111111110111111111111"
      "111000000000");
  // Comparison starting in the read after an insertion.
  add("CCACACTGTTTTGTTTACTACAGCTT", "5M2I19M", {}, "TACCACAGTTTTGTTTACTACAGCTTTGTAGTAAATTTTG", 10,
      2, "11110111111100000000000000");
  // Regressions of August 2018.
  add("AATATCATTGGTG", "13M", {}, "AATATCATCTTTGGTGTTT", 3, 0, "0000000000000");
  add("AATATCATTGGTG", "7M3D6M", {}, "AATATCATCTTTGGTGTTT", 3, 0, "1111110111100");
  return cases;
}

// testCalcNIndelInformativeReads: the count over a one-read pileup, with the read's cache kept
// from offset to offset and with a fresh one at each offset, both as GATK expects.
TEST(IndelInformativeReads, GatkCalcNIndelInformativeReadsData) {
  const std::vector<IndelCase> cases = gatk_indel_cases();
  ASSERT_GT(cases.size(), 200u);
  for (const IndelCase& c : cases) {
    std::vector<CallRead> reads = {make_read("r", 0, c.cigar, c.read)};
    if (!c.quals.empty()) reads[0].quals = c.quals;
    const std::vector<PileupElement> elements = pileup_elements_of_read(reads[0]);
    IndelInformativeReads cached(reads, c.ref, c.max_indel_size);
    for (std::size_t i = 0; i < c.read.size() && i < elements.size(); ++i) {
      if (elements[i].is_deletion()) continue;  // no read base at that reference position
      const std::span<const PileupElement> pileup(&elements[i], 1);
      const std::int64_t ref_offset = static_cast<std::int64_t>(i) + c.read_start_into_ref;
      const int expected = c.expected.at(i) - '0';
      IndelInformativeReads fresh(reads, c.ref, c.max_indel_size);
      EXPECT_EQ(cached.count(pileup, ref_offset), expected)
          << c.read << " " << c.cigar << " vs " << c.ref << " size " << c.max_indel_size << " at "
          << i << " (cached)";
      EXPECT_EQ(fresh.count(pileup, ref_offset), expected)
          << c.read << " " << c.cigar << " vs " << c.ref << " size " << c.max_indel_size << " at "
          << i << " (fresh)";
    }
  }
}

// RefConfData: `ref` at GATK position 100 (0-based 99), the reference haplotype padded by
// `extension` N's on either side, reads of it with quality 30.
struct RefConfData {
  static constexpr std::int64_t kStart = 99;
  std::string ref;
  std::string padded;
  std::int64_t padded_start;
  std::vector<CallRead> reads;

  explicit RefConfData(const std::string& bases, int extension = 0)
      : ref(bases),
        padded(std::string(extension, 'N') + bases + std::string(extension, 'N')),
        padded_start(kStart - extension) {}
  CallRead& add_read(int start, int length) {  // makeRead
    const std::string name = "read " + std::to_string(reads.size());
    reads.push_back(
        make_read(name, kStart + start, std::to_string(length) + "M",
                  ref.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(length))));
    return reads.back();
  }
  std::vector<ReferenceSite> run(int ploidy = 2) const {
    const auto end = kStart + static_cast<std::int64_t>(ref.size()) - 1;
    return reference_confidence(reads, 0, {padded, padded_start}, {kStart, end}, ploidy);
  }
};

void expect_site(const ReferenceSite& site, std::int64_t position, char ref_base,
                 std::array<int, 2> ad, std::vector<int> pls, int gq, int ploidy = 2) {
  EXPECT_EQ(site.contig, 0);
  EXPECT_EQ(site.position, position);
  EXPECT_EQ(site.ref_base, ref_base) << position;
  EXPECT_EQ(site.ploidy, ploidy);
  EXPECT_EQ(site.allele_depths, ad) << position;
  EXPECT_EQ(site.depth, ad[0] + ad[1]) << position;
  EXPECT_EQ(site.pls, pls) << position;
  EXPECT_EQ(site.gq, gq) << position;
}

// testRefConfidenceBasic: 0 to 9 full-length reads of ACGTAACCGGTT, padding 0 or 10. DP is the
// read count everywhere. The 12-base read rules out indels (of up to 10 bases) only at its first
// two bases: from offset 2 on fewer than 11 bases remain (and ACGTAACCGGTT has no period up to
// 10, so no shifted alignment of the tail is as good). There the SNP PLs win (0, round(3.0088511
// n), round(34.7668674 n)); elsewhere the uninformative indel PLs 0,0,0.
TEST(ReferenceConfidence, GatkRefConfidenceBasic) {
  const int pl1[] = {0, 3, 6, 9, 12, 15, 18, 21, 24, 27};
  const int pl2[] = {0, 35, 70, 104, 139, 174, 209, 243, 278, 313};
  for (int n = 0; n < 10; ++n) {
    for (int extension : {0, 10}) {
      RefConfData data("ACGTAACCGGTT", extension);
      for (int i = 0; i < n; ++i) data.add_read(0, 12);
      const std::vector<ReferenceSite> sites = data.run();
      ASSERT_EQ(sites.size(), 12u);
      for (int i = 0; i < 12; ++i) {
        const bool informative = i < 2 && n > 0;
        expect_site(sites[i], RefConfData::kStart + i, data.ref[i], {n, 0},
                    informative ? std::vector<int>{0, pl1[n], pl2[n]} : std::vector<int>{0, 0, 0},
                    informative ? pl1[n] : 0);
      }
    }
  }
}

// testRefConfidencePartialReads: one read of 3 to 11 bases at each start; DP 1 where it lies.
// Only the 11-base read (at 0) has more than 10 bases after an offset: PLs 0,3,35 at its first.
TEST(ReferenceConfidence, GatkRefConfidencePartialReads) {
  const std::string ref = "ACGTAACCGGTT";
  for (int length = 3; length < 12; ++length) {
    for (int start = 0; start < 12 - length; ++start) {
      RefConfData data(ref);
      data.add_read(start, length);
      const std::vector<ReferenceSite> sites = data.run();
      ASSERT_EQ(sites.size(), 12u);
      for (int i = 0; i < 12; ++i) {
        const int dp = i >= start && i < start + length ? 1 : 0;
        const bool informative = length == 11 && i == 0;
        expect_site(sites[i], RefConfData::kStart + i, ref[i], {dp, 0},
                    informative ? std::vector<int>{0, 3, 35} : std::vector<int>{0, 0, 0},
                    informative ? 3 : 0);
      }
    }
  }
}

// testDefaultRefConfidenceModelWithLowQualDels: 10 reads 5M1D42M on 48 bases, the base after the
// deletion at quality 0. The IGV view (48 bases, the deleted one a gap) matches the reference and
// the sequence has no period up to 10, so offsets 0..37 are informative (the flip stops at
// read length 47 - 10 + 1 = 38), except where skipped: 4 (before the deletion) and 5 (in it).
//  - 0..3, 7..37: 10 reference bases: SNP PLs 0,30,348 (GQ 30) beat the indel ones;
//  - 4: 10 reference bases (a base before a deletion is not alt after assembly), no indel read:
//    0,0,0;
//  - 5: 10 deletions (alt, Q30): every GL capped at hom-ref's, so 0,0,0;
//  - 6: every base at Q0 <= 6 is skipped: DP 0, 0,0,0;
//  - 38..47: no indel-informative read: 0,0,0.
TEST(ReferenceConfidence, GatkLowQualityDeletions) {
  RefConfData data("ACGTACCCGGTTACGTAACCGGTTACGTAACCGGTTACGTAACCGGTT");
  for (int i = 0; i < 10; ++i) {
    CallRead read = make_read("read " + std::to_string(i), RefConfData::kStart, "5M1D42M",
                              data.ref.substr(0, 5) + data.ref.substr(6));
    read.quals[5] = 0;
    data.reads.push_back(read);
  }
  const std::vector<ReferenceSite> sites = data.run();
  ASSERT_EQ(sites.size(), 48u);
  for (int i = 0; i < 48; ++i) {
    const bool confident = (i <= 3 || i >= 7) && i <= 37;
    const std::array<int, 2> ad = i == 5   ? std::array{0, 10}
                                  : i == 6 ? std::array{0, 0}
                                           : std::array{10, 0};
    expect_site(sites[i], RefConfData::kStart + i, data.ref[i], ad,
                confident ? std::vector<int>{0, 30, 348} : std::vector<int>{0, 0, 0},
                confident ? 30 : 0);
  }
}

// 10 reads 5M1I43M (a G inserted after the fifth base) on the same 48 bases. After assembly an
// insertion makes no base alt, so AD is 10,0 everywhere. The IGV view drops the inserted base
// (48 bases equal to the reference) while the read has 49: offsets 0..37 are informative (the
// flip stops at 48 - 10 = 38 <= 49 - 10), but 4, just before the insertion, is skipped.
TEST(ReferenceConfidence, InsertionReads) {
  RefConfData data("ACGTACCCGGTTACGTAACCGGTTACGTAACCGGTTACGTAACCGGTT");
  for (int i = 0; i < 10; ++i) {
    data.reads.push_back(make_read("read " + std::to_string(i), RefConfData::kStart, "5M1I43M",
                                   data.ref.substr(0, 5) + "G" + data.ref.substr(5)));
  }
  const std::vector<ReferenceSite> sites = data.run();
  ASSERT_EQ(sites.size(), 48u);
  for (int i = 0; i < 48; ++i) {
    const bool confident = i != 4 && i <= 37;
    expect_site(sites[i], RefConfData::kStart + i, data.ref[i], {10, 0},
                confident ? std::vector<int>{0, 30, 348} : std::vector<int>{0, 0, 0},
                confident ? 30 : 0);
  }
}

// 45 full-length reads: at offsets 0 and 1 the informative count stops at 40. The indel hom-ref
// log10 GQ (-0.3010163 * 40 = -12.04) is now worse than the SNP one (-0.3008851 * 45 = -13.54):
// PLs 0, round(120.4065), round(1799.9945) and GQ 120, written as 99.
TEST(ReferenceConfidence, IndelInformativeReadsAreCappedAt40) {
  RefConfData data("ACGTAACCGGTT");
  for (int i = 0; i < 45; ++i) data.add_read(0, 12);
  const std::vector<ReferenceSite> sites = data.run();
  for (int i = 0; i < 12; ++i) {
    expect_site(sites[i], RefConfData::kStart + i, data.ref[i], {45, 0},
                i < 2 ? std::vector<int>{0, 120, 1800} : std::vector<int>{0, 0, 0}, i < 2 ? 99 : 0);
  }
}

// Haploid, 10 full-length reads: SNP GLs 10 log10(0.999) and 10 (-3 + log10(1/3)), PLs 0,
// round(347.6687) = 348 (GQ 348, written 99); indel 0, round(10 * 44.99986) = 450 is the more
// confident. Where no read is indel-informative, 0,0.
TEST(ReferenceConfidence, Haploid) {
  RefConfData data("ACGTAACCGGTT");
  for (int i = 0; i < 10; ++i) data.add_read(0, 12);
  const std::vector<ReferenceSite> sites = data.run(1);
  for (int i = 0; i < 12; ++i) {
    expect_site(sites[i], RefConfData::kStart + i, data.ref[i], {10, 0},
                i < 2 ? std::vector<int>{0, 348} : std::vector<int>{0, 0}, i < 2 ? 99 : 0, 1);
  }
}

// At offset 6 (reference C): 8 reads with C, 2 with G at Q30, and one with G at Q6 (skipped, as
// bases of quality <= 6 are). GL0 = 8 log10(0.999) + 2 (-3 + log10(1/3)) = -6.95772; the het GL
// (-3.01320) is capped at it; GL2 = 8 (-3.47712) + 2 (-0.00043) = -27.81784. PLs 0, 0,
// round(208.601) = 209, GQ 0.
TEST(ReferenceConfidence, AltAndLowQualityBases) {
  RefConfData data("ACGTAACCGGTT");
  for (int i = 0; i < 11; ++i) {
    CallRead& read = data.add_read(0, 12);
    if (i >= 8) read.bases[6] = 'G';
    if (i == 10) read.quals[6] = 6;
  }
  const std::vector<ReferenceSite> sites = data.run();
  expect_site(sites[6], RefConfData::kStart + 6, 'C', {8, 2}, {0, 0, 209}, 0);
  EXPECT_EQ(sites[0].allele_depths, (std::array<int, 2>{11, 0}));

  // The reads' order does not matter: they are sorted before the pileup.
  RefConfData reversed("ACGTAACCGGTT");
  reversed.reads.assign(data.reads.rbegin(), data.reads.rend());
  EXPECT_EQ(reversed.run(), sites);
}

TEST(ReferenceConfidence, RejectsBadInput) {
  RefConfData data("ACGTAACCGGTT");
  data.add_read(0, 12);
  const ReferenceWindow window{data.padded, RefConfData::kStart};
  EXPECT_THROW(reference_confidence(data.reads, 0, window, {99, 110}, 0), Error);
  EXPECT_THROW(reference_confidence(data.reads, 0, window, {98, 110}, 2), Error);
  EXPECT_THROW(reference_confidence(data.reads, 1, window, {99, 110}, 2), Error);
  ReferenceConfidenceOptions options;
  options.indel_size_to_eliminate = -1;
  EXPECT_THROW(reference_confidence(data.reads, 0, window, {99, 110}, 2, options), Error);
  EXPECT_TRUE(reference_confidence(data.reads, 0, window, {105, 104}, 2).empty());
}

}  // namespace
}  // namespace gpp::stages::call
