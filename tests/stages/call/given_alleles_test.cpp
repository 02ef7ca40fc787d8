// Tests of force-calling's pieces (stages/call/given_alleles, given_allele_haplotypes): the
// records split into events as GATK's splitVariantContextToEvents(vc, false) and Event make them,
// the loci and regions they reach, the consistency rule of allelesConsistentWithGivenAlleles
// (cases worked out from GATK's code: it has no unit test), GATK's AssemblyBasedCallerUtilsUnitTest
// addGivenAlleles cases, and the genotyping engine's forced alleles.
#include "stages/call/given_alleles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "stages/call/genotype_alleles.hpp"
#include "stages/call/genotyping_engine.hpp"
#include "stages/call/given_allele_haplotypes.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

std::vector<Event> split(std::int64_t position, std::vector<std::string> alleles) {
  return given_events(position, alleles);
}

TEST(GivenAlleles, RecordsSplitIntoEventsWithoutLeftTrimming) {
  // A biallelic record as it is, in minimal representation (a shared last base dropped).
  EXPECT_EQ(split(9, {"G", "A"}), (std::vector<Event>{{9, "G", "A"}}));
  EXPECT_EQ(split(9, {"ACT", "GCT"}), (std::vector<Event>{{9, "A", "G"}}));
  EXPECT_EQ(split(9, {"TAAAACTATGC", "T"}), (std::vector<Event>{{9, "TAAAACTATGC", "T"}}));
  // Multi-allelic: per ALT, trimmed at the end only (GATK's examples).
  EXPECT_EQ(split(4, {"AGT", "A", "*"}), (std::vector<Event>{{4, "AGT", "A"}, {4, "A", "*"}}));
  EXPECT_EQ(split(4, {"TAAA", "T", "<NON-REF>"}),
            (std::vector<Event>{{4, "TAAA", "T"}, {4, "T", "<NON-REF>"}}));
  EXPECT_EQ(split(7, {"C", "CGTTT", "CGTTTGTTT"}),
            (std::vector<Event>{{7, "C", "CGTTT"}, {7, "C", "CGTTTGTTT"}}));
  EXPECT_EQ(split(7, {"ACT", "AGT", "A"}), (std::vector<Event>{{7, "AC", "AG"}, {7, "ACT", "A"}}));
  // A symbolic ALT has no length: never trimmed.
  EXPECT_EQ(split(3, {"TA", "]1:2]A"}), (std::vector<Event>{{3, "TA", "]1:2]A"}}));
  // No ALT: no event; REF = ALT: none (GATK fails there).
  EXPECT_TRUE(split(3, {"A"}).empty());
  EXPECT_TRUE(split(3, {"AC", "AC"}).empty());
}

io::KnownVariant record(std::int64_t position, std::vector<std::string> alleles,
                        bool filtered = false) {
  return {position, ".", std::move(alleles), filtered};
}

TEST(GivenAlleles, LociOfUnfilteredRecordsAreActive) {
  const std::vector<io::KnownVariant> records = {
      record(100, {"ACGT", "A"}), record(200, {"C", "G"}, true), record(300, {"T", "<DEL>"})};
  const GivenAlleles given(records, false);
  EXPECT_FALSE(given.overlaps(99));
  for (std::int64_t p = 100; p <= 103; ++p) EXPECT_TRUE(given.overlaps(p)) << p;
  EXPECT_FALSE(given.overlaps(104));
  EXPECT_FALSE(given.overlaps(200));  // filtered
  EXPECT_TRUE(given.overlaps(300));   // a symbolic ALT counts for activity
  EXPECT_TRUE(GivenAlleles(records, true).overlaps(200));
  EXPECT_EQ(given.spans(), (std::vector<ContigInterval>{{100, 103}, {300, 300}}));
}

TEST(GivenAlleles, RegionTakesTheRecordsOverlappingItsPaddedSpanFromItsStart) {
  const std::vector<io::KnownVariant> records = {
      record(50, {"ACGTACGTAC", "A"}),  // reaches into the padded span, starts before the span
      record(120, {"C", "G", "T"}), record(250, {"G", "A"}), record(400, {"G", "A"})};
  const GivenAlleles given(records, false);
  // padded span 55..305, span 100..200: the record at 50 overlaps but starts before the span;
  // one at 250 in the right padding is kept; 400 is outside.
  EXPECT_EQ(given.events_for_region({55, 305}, 100),
            (std::vector<Event>{{120, "C", "G"}, {120, "C", "T"}, {250, "G", "A"}}));
  EXPECT_EQ(given.events_for_region({0, 305}, 0).front(), (Event{50, "ACGTACGTAC", "A"}));
  EXPECT_TRUE(given.events_for_region({500, 600}, 500).empty());
}

// The streaming form, read in pieces of 100 bases as a traversal goes (loading ahead, dropping
// behind as the contig caller does), answers every query as the records held at once do: long
// deletions reaching across pieces, several records at one position, filtered ones.
TEST(GivenAlleles, ReadInPiecesAnswersAsAllAtOnce) {
  std::vector<io::KnownVariant> records;
  std::uint32_t seed = 12345;
  const auto next = [&seed](std::uint32_t bound) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % bound;
  };
  for (std::int64_t position = 0; position < 5000; position += 1 + next(40)) {
    const std::uint32_t kind = next(10);
    if (kind == 0) {
      records.push_back(record(position, {std::string(1 + next(300), 'A'), "A"}));  // deletion
    } else if (kind == 1) {
      records.push_back(record(position, {"C", "G", "T"}));
      records.push_back(record(position, {"C", "CA"}));  // a second record at the position
    } else {
      records.push_back(record(position, {"G", "A"}, kind == 2));
    }
  }
  const GivenAlleles whole(records, false);
  int reads = 0;
  GivenAlleles pieces(
      [&](std::int64_t from, std::int64_t to) {
        ++reads;
        std::vector<io::KnownVariant> piece;
        for (const io::KnownVariant& r : records) {
          if (r.position >= from && r.position < to) piece.push_back(r);
        }
        return piece;
      },
      5100, false, 100);
  EXPECT_FALSE(pieces.empty());
  constexpr std::int64_t kLookBack = 350;
  for (std::int64_t position = 0; position < 5100; position += 7) {
    pieces.load_through(position + kLookBack);
    EXPECT_EQ(pieces.overlaps(position), whole.overlaps(position)) << position;
    const ContigInterval padded{std::max<std::int64_t>(0, position - kLookBack),
                                position + kLookBack};
    EXPECT_EQ(pieces.events_for_region(padded, position), whole.events_for_region(padded, position))
        << position;
    const auto [first, end] = pieces.records_reaching(padded.first, padded.last);
    const auto [whole_first, whole_end] = whole.records_reaching(padded.first, padded.last);
    std::vector<ContigInterval> reaching(pieces.spans().begin() + first,
                                         pieces.spans().begin() + end);
    std::vector<ContigInterval> whole_reaching(whole.spans().begin() + whole_first,
                                               whole.spans().begin() + whole_end);
    // The streaming form may have dropped records before every reaching one: compare from the
    // first that ends at padded.first or after.
    const auto reaches = [&](const ContigInterval& span) { return span.last >= padded.first; };
    reaching.erase(reaching.begin(), std::find_if(reaching.begin(), reaching.end(), reaches));
    whole_reaching.erase(whole_reaching.begin(),
                         std::find_if(whole_reaching.begin(), whole_reaching.end(), reaches));
    EXPECT_EQ(reaching, whole_reaching) << position;
    pieces.release_before(position - kLookBack);
  }
  EXPECT_EQ(reads, 51);                                        // each piece once
  EXPECT_LT(pieces.spans().size(), whole.spans().size() / 4);  // the passed ones dropped

  // A traversal starting late: the pieces before it are read and dropped as they come.
  GivenAlleles late(
      [&](std::int64_t from, std::int64_t to) {
        std::vector<io::KnownVariant> piece;
        for (const io::KnownVariant& r : records) {
          if (r.position >= from && r.position < to) piece.push_back(r);
        }
        return piece;
      },
      5100, false, 100);
  late.load_through(4600, 4500);
  EXPECT_LT(late.spans().size(), 60u);
  EXPECT_EQ(late.events_for_region({4500, 4600}, 4500),
            whole.events_for_region({4500, 4600}, 4500));
}

TEST(GivenAlleles, ConsistencyComparesLengthChangeAndAltPrefix) {
  struct Case {
    const char* given_ref;
    const char* given_alt;
    const char* ref;
    const char* alt;
    bool consistent;
  };
  const std::vector<Case> cases = {
      {"A", "G", "A", "G", true},          {"A", "G", "A", "T", false},
      {"A", "G", "ACT", "GCT", true},      {"A", "G", "C", "G", true},  // REF never compared
      {"AC", "A", "ACT", "AT", true},      {"AC", "A", "ACC", "A", false},
      {"A", "AT", "AC", "ATC", true},      {"A", "AT", "A", "AG", false},
      {"A", "ATT", "G", "GTT", false},     {"AC", "GT", "A", "G", true},
      {"AC", "GT", "C", "T", false},       {"A", "<DEL>", "A", "G", false},
      {"A", "G", "A", "<NON_REF>", false}, {"A", "*", "A", "*", true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(alleles_consistent(c.given_ref, c.given_alt, c.ref, c.alt), c.consistent)
        << c.given_ref << ">" << c.given_alt << " vs " << c.ref << ">" << c.alt;
  }
  const std::vector<std::string> alleles = {"A", "C", "T", "*"};
  EXPECT_EQ(forced_alleles(alleles, std::vector<Event>{{5, "G", "T"}}), (std::vector<int>{2}));
  EXPECT_TRUE(forced_alleles(alleles, std::vector<Event>{}).empty());
}

// AssemblyBasedCallerUtilsUnitTest: the reference AAAACCCCGGGGTTTT at offset 1 of its window
// "A" + ref, so at positions 1..16 (GATK's test places the haplotype at 1-17 while its events lie
// one further on: here both agree, so that an event given twice is found assembled, not only a
// duplicate haplotype), each added haplotype appended as AssemblyResultSet.add does.
class AddGivenAlleles : public ::testing::Test {
 protected:
  static constexpr const char* kRef = "AAAACCCCGGGGTTTT";
  AddGivenAlleles() : bases_(std::string("A") + kRef), window_{bases_, 0} {
    add(kRef, "16M", true);
  }
  void add(const std::string& bases, const std::string& cigar, bool is_reference = false) {
    haplotypes_.push_back(make_haplotype(bases, test::cigar_of(cigar), 1, {1, 16}, is_reference));
  }
  std::vector<std::string> inject(std::vector<Event> given) {
    std::vector<std::string> added = haplotypes_with_given_events(haplotypes_, given, window_, 0);
    for (const std::string& bases : added) {
      add(bases, bases.size() == 16 ? "16M" : "4M2D10M");
    }
    return added;
  }
  std::string bases_;  ///< the window's bases
  ReferenceWindow window_;
  std::vector<Haplotype> haplotypes_;
};

TEST_F(AddGivenAlleles, EachGivenEventGoesIntoTheHaplotypesItDoesNotCollideWith) {
  EXPECT_EQ(inject({{2, "A", "C"}}), (std::vector<std::string>{"ACAACCCCGGGGTTTT"}));
  EXPECT_TRUE(inject({{2, "A", "C"}}).empty());  // an assembled event now
  EXPECT_EQ(inject({{5, "C", "G"}}),
            (std::vector<std::string>{"AAAAGCCCGGGGTTTT", "ACAAGCCCGGGGTTTT"}));
  // not into the haplotypes whose SNP overlaps the deletion
  EXPECT_EQ(inject({{5, "CCC", "C"}}),
            (std::vector<std::string>{"AAAACCGGGGTTTT", "ACAACCGGGGTTTT"}));
  EXPECT_TRUE(inject({{5, "CCC", "C"}}).empty());  // the same bases again
  EXPECT_EQ(haplotypes_.size(), 6u);
  add("AAAACCTCGAGGTTTT", "16M");
  EXPECT_TRUE(inject({{7, "C", "T"}}).empty());  // an assembled event
  EXPECT_EQ(haplotypes_.size(), 7u);
}

TEST_F(AddGivenAlleles, MultiAllelicAndHugeInsertions) {
  EXPECT_EQ(inject({{2, "A", "C"}, {2, "A", "T"}}),
            (std::vector<std::string>{"ACAACCCCGGGGTTTT", "ATAACCCCGGGGTTTT"}));
  std::string insertion;
  for (int i = 0; i < 200; ++i) insertion += "ACGT"[(i * 7 + i / 3) % 4];
  EXPECT_EQ(haplotypes_with_given_events(haplotypes_, std::vector<Event>{{2, "A", "A" + insertion}},
                                         window_, 0),
            (std::vector<std::string>{"AA" + insertion + "AACCCCGGGGTTTT"}));
}

TEST_F(AddGivenAlleles, SymbolicAndSpanningDeletionAllelesAreNotInserted) {
  EXPECT_TRUE(inject({{5, "C", "<NON-REF>"}, {5, "C", "*"}}).empty());
}

TEST_F(AddGivenAlleles, OnlyTheReferenceAndFourBestScoredHaplotypesTakeThem) {
  // Five others, scored 1..5: the best four (5, 4, 3, 2) and the reference take the SNP.
  const std::vector<std::string> others = {"AAAACCCCGGGGTTTA", "AAAACCCCGGGGTTAT",
                                           "AAAACCCCGGGGTATT", "AAAACCCCGGGGATTT",
                                           "AAAACCCCGGGATTTT"};
  for (std::size_t i = 0; i < others.size(); ++i) {
    add(others[i], "16M");
    haplotypes_.back().score = static_cast<double>(i + 1);
  }
  const std::vector<std::string> added = inject({{2, "A", "C"}});
  EXPECT_EQ(added,
            (std::vector<std::string>{"ACAACCCCGGGGTTTT", "ACAACCCCGGGATTTT", "ACAACCCCGGGGATTT",
                                      "ACAACCCCGGGGTATT", "ACAACCCCGGGGTTAT"}));
}

TEST(GivenAlleleGenotyping, AForcedAlleleIsWrittenWithoutSupport) {
  // Strong reference evidence: no alt is plausible, P(no variant) rounds to 1.
  const std::vector<SampleGenotypeLikelihoods> samples = {
      {2, log10_likelihoods_from_pls(std::vector<int>{0, 142, 2074, 142, 2074, 2074})}};
  const std::vector<AlleleDescription> alleles = {{1, false}, {5, false}, {9, false}};
  EXPECT_FALSE(calculate_genotypes(samples, alleles, false, GenotypingOptions{}).emitted);
  const std::vector<int> forced = {1, 2};
  const SiteCall call = calculate_genotypes(samples, alleles, false, GenotypingOptions{}, forced);
  ASSERT_TRUE(call.emitted);
  EXPECT_EQ(call.alleles, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(std::isinf(call.qual) && call.qual > 0);  // GATK writes QUAL Infinity
  EXPECT_FALSE(call.low_qual);
  EXPECT_EQ(call.genotypes.front().alleles, (std::vector<int>{0, 0}));
  EXPECT_EQ(call.mle_allele_counts, (std::vector<int>{0, 0}));
  // One forced allele of two: the other, implausible, is not output.
  const std::vector<int> one = {2};
  EXPECT_EQ(calculate_genotypes(samples, alleles, false, GenotypingOptions{}, one).alleles,
            (std::vector<int>{0, 2}));
}

TEST(GivenAlleleGenotyping, WeakSupportIsEmittedLowQual) {
  // Het-leaning but below stand-call-conf 30: QUAL from P(variant present), LowQual.
  const std::vector<SampleGenotypeLikelihoods> samples = {
      {2, log10_likelihoods_from_pls(std::vector<int>{20, 0, 200})}};
  const std::vector<AlleleDescription> alleles = {{1, false}, {1, false}};
  EXPECT_FALSE(calculate_genotypes(samples, alleles, false, GenotypingOptions{}).emitted);
  const std::vector<int> forced = {1};
  const SiteCall call = calculate_genotypes(samples, alleles, false, GenotypingOptions{}, forced);
  ASSERT_TRUE(call.emitted);
  EXPECT_TRUE(call.low_qual);
  EXPECT_LT(call.qual, 30.0);
  EXPECT_EQ(call.genotypes.front().alleles, (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace gpp::stages::call
