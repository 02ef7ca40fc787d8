// The contamination filter against GATK's AlleleBiasedDownsamplingUtilsUnitTest (its oneCase table
// for targetAlleleCounts, its contamination files) and
// AlleleLikelihoods.contaminationDownsampling's rules (informative reads only, (int) of the
// product, everything at 1).
#include "stages/call/contamination_downsampling.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

struct OneCase {
  std::array<int, 4> added;
  std::array<int, 4> initial;
  std::array<int, 4> target;
};

constexpr std::array<int, 4> kHet = {0, 50, 0, 50};
constexpr std::array<int, 4> kHom = {0, 100, 0, 0};

// AlleleBiasedDownsamplingUtilsUnitTest.oneCase: contamination 0.1 of a pile-up of 100.
const OneCase kOneCases[] = {
    {{0, 0, 0, 0}, kHet, kHet},           {{0, 0, 0, 0}, kHom, kHom},
    {{5, 0, 0, 0}, kHom, kHom},           {{0, 0, 5, 0}, kHom, kHom},
    {{0, 0, 0, 5}, kHom, kHom},           {{10, 0, 0, 0}, kHom, kHom},
    {{0, 0, 10, 0}, kHom, kHom},          {{0, 0, 0, 10}, kHom, kHom},
    {{5, 0, 0, 0}, kHet, kHet},           {{0, 0, 5, 0}, kHet, kHet},
    {{10, 0, 0, 0}, kHet, kHet},          {{0, 0, 10, 0}, kHet, kHet},
    {{5, 5, 0, 0}, kHom, {0, 105, 0, 0}}, {{0, 5, 5, 0}, kHom, {0, 105, 0, 0}},
    {{0, 5, 0, 5}, kHom, {0, 105, 0, 0}}, {{0, 10, 0, 0}, kHom, {0, 110, 0, 0}},
    {{5, 5, 0, 0}, kHet, kHet},           {{0, 5, 5, 0}, kHet, kHet},
    {{0, 5, 0, 5}, kHet, {0, 55, 0, 55}}, {{5, 0, 0, 5}, kHet, kHet},
    {{0, 0, 5, 5}, kHet, kHet},           {{0, 10, 0, 0}, kHet, kHet},
    {{0, 0, 0, 10}, kHet, kHet},
};

std::array<int, 4> counts_of(const OneCase& c) {
  std::array<int, 4> counts = c.initial;
  for (int a = 0; a < 4; ++a) counts[a] += c.added[a];
  return counts;
}

TEST(ContaminationDownsampling, TargetAlleleCountsAsGatk) {
  for (const OneCase& c : kOneCases) {
    const std::array<int, 4> counts = counts_of(c);
    const std::vector<int> target = target_allele_counts(counts, static_cast<int>(100 * 0.1));
    EXPECT_EQ(target, std::vector<int>(c.target.begin(), c.target.end()))
        << counts[0] << " " << counts[1] << " " << counts[2] << " " << counts[3];
  }
  EXPECT_EQ(target_allele_counts(std::vector<int>{10, 10, 2}, 4), (std::vector<int>{10, 10, 0}));
  EXPECT_EQ(target_allele_counts(std::vector<int>{7}, 3), std::vector<int>{7});  // score 0 already
}

// One read per count, its likelihood 0 for its allele and -5 for the others (informative), then
// `uninformative` reads equally likely for every allele.
ReadAlleleLikelihoods reads_supporting(std::span<const int> counts, int uninformative = 0) {
  ReadAlleleLikelihoods reads;
  reads.allele_count = counts.size();
  const auto add = [&](int best) {
    reads.reads.push_back(reads.reads.size());
    for (std::size_t a = 0; a < counts.size(); ++a) {
      reads.log10_likelihoods.push_back(best < 0 || static_cast<int>(a) == best ? 0.0 : -5.0);
    }
  };
  for (std::size_t a = 0; a < counts.size(); ++a) {
    for (int r = 0; r < counts[a]; ++r) add(static_cast<int>(a));
  }
  for (int r = 0; r < uninformative; ++r) add(-1);
  return reads;
}

// Reads per supported allele (the one allele of likelihood 0), and those supporting none.
std::vector<int> best_counts(const ReadAlleleLikelihoods& reads, int& uninformative) {
  std::vector<int> counts(reads.allele_count);
  uninformative = 0;
  for (std::size_t r = 0; r < reads.reads.size(); ++r) {
    std::vector<std::size_t> best;
    for (std::size_t a = 0; a < reads.allele_count; ++a) {
      if (reads.at(r, a) == 0.0) best.push_back(a);
    }
    if (best.size() == 1) {
      ++counts[best[0]];
    } else {
      ++uninformative;
    }
  }
  return counts;
}

// AlleleBiasedDownsamplingUtilsUnitTest.testOneCaseUsingPublicAPI: the reads removed number what
// the target removes, within one ((int) of the whole pile-up times the fraction); here, exactly
// the target of (int)(informative x fraction), per allele.
TEST(ContaminationDownsampling, RemovesWhatTheTargetSaysPerAllele) {
  for (const OneCase& c : kOneCases) {
    const std::array<int, 4> counts = counts_of(c);
    ReadAlleleLikelihoods reads = reads_supporting(counts, 7);
    const std::size_t before = reads.reads.size();
    remove_contamination(reads, 0.1, locus_seed(0, 1000));
    int uninformative = 0;
    const std::vector<int> left = best_counts(reads, uninformative);
    EXPECT_EQ(uninformative, 7);  // never removed
    int total = 0;
    for (int n : counts) total += n;
    EXPECT_EQ(left, target_allele_counts(counts, static_cast<int>(total * 0.1)));
    int target_total = 0;
    for (int n : c.target) target_total += n;
    EXPECT_NEAR(static_cast<double>(before - reads.reads.size()), total - target_total, 1.0);
    // The rows left keep their order.
    for (std::size_t r = 1; r < reads.reads.size(); ++r)
      EXPECT_LT(reads.reads[r - 1], reads.reads[r]);
  }
}

TEST(ContaminationDownsampling, FractionsOfNothingAndOfEverything) {
  const std::vector<int> counts = {30, 12};
  for (double fraction : {0.0, -0.5, std::nan("")}) {
    ReadAlleleLikelihoods reads = reads_supporting(counts);
    remove_contamination(reads, fraction, 1);
    EXPECT_EQ(reads.reads.size(), 42u);
  }
  for (double fraction : {1.0, 3.0}) {
    ReadAlleleLikelihoods reads = reads_supporting(counts, 5);
    remove_contamination(reads, fraction, 1);
    EXPECT_TRUE(reads.reads.empty());
    EXPECT_TRUE(reads.log10_likelihoods.empty());
  }
  // (int)(42 x 0.02) = 0: nothing removed.
  ReadAlleleLikelihoods reads = reads_supporting(counts);
  remove_contamination(reads, 0.02, 1);
  EXPECT_EQ(reads.reads.size(), 42u);
}

TEST(ContaminationDownsampling, TheChoiceDependsOnTheLocusAlone) {
  const std::vector<int> counts = {60, 10};  // hom with a contaminant allele: its reads go first
  ReadAlleleLikelihoods a = reads_supporting(counts);
  ReadAlleleLikelihoods b = reads_supporting(counts);
  remove_contamination(a, 0.1, locus_seed(3, 12345));
  remove_contamination(b, 0.1, locus_seed(3, 12345));
  EXPECT_EQ(a.reads, b.reads);
  int uninformative = 0;
  EXPECT_EQ(best_counts(a, uninformative), (std::vector<int>{60, 3}));
  EXPECT_NE(locus_seed(3, 12345), locus_seed(3, 12346));
  EXPECT_NE(locus_seed(3, 12345), locus_seed(4, 12345));
}

// AlleleBiasedDownsamplingUtilsUnitTest's contamination files (ArtificallyContaminatedBams/).
TEST(ContaminationDownsampling, ContaminationFilesAsGatkReadsThem) {
  const auto fractions = parse_contamination_fractions("NA11918\t.15\nNA12842\t.13\n", "c1.txt");
  EXPECT_EQ(fractions, (std::map<std::string, double>{{"NA11918", 0.15}, {"NA12842", 0.13}}));
  EXPECT_EQ(parse_contamination_fractions("NA11918\t.15\nDUMMY\t0.43\nDummy with spaces\t.3", "c2")
                .size(),
            3u);
  EXPECT_EQ(parse_contamination_fractions("NA11918\t0\nNA12842\t1\nTest Space\t.3", "c5").size(),
            3u);
  EXPECT_EQ(parse_contamination_fractions("  S\t0.1  \r\n\n", "t").at("S"), 0.1);
  // Only the input's samples are kept (a repeated line of another sample passes); Java reads NaN.
  const std::set<std::string> samples = {"S"};
  EXPECT_EQ(parse_contamination_fractions("T\t0.1\nT\t0.2\nS\t0.3\n", "t", &samples),
            (std::map<std::string, double>{{"S", 0.3}}));
  EXPECT_TRUE(std::isnan(parse_contamination_fractions("S\tNaN\n", "t").at("S")));
  const std::pair<const char*, const char*> broken[] = {
      {"NA11918\t.15\nDUMMY\n", "line 2: a contamination file has exactly two"},
      {"NA11918\t.15\nDUMMY\tDUMMY\n", "line 2: the fraction 'DUMMY' is not a number"},
      {"NA11918\t.15\nDUMMY\tDUMMY\tTHREE\n", "line 2: a contamination file has exactly two"},
      {"NA11918\t.15\nDUMMY\t2\n", "line 2: the fraction 2 is outside 0..1"},
      {"NA11918 .15\nDUMMY 2\n", "line 1: a contamination file has exactly two"},
      {"S\t0.1\nS\t0.2\n", "line 2: sample S is given twice"},
      {"\t0.1\n", "line 1: a contamination file has exactly two"},  // trimmed first
  };
  for (const auto& [text, message] : broken) {
    try {
      parse_contamination_fractions(text, "bad.txt");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("bad.txt ") + message), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gpp::stages::call
