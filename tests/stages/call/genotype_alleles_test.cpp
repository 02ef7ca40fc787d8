// Tests of genotype enumeration and indexing (stages/call/genotype_alleles), ported from GATK's
// GenotypeAlleleCountsUnitTest and GenotypeIndexCalculatorUnitTest, plus hand-derived cases.
#include "stages/call/genotype_alleles.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

constexpr int kMaximumAlleleIndex = 10;  // GenotypeAlleleCountsUnitTest.MAXIMUM_ALLELE_INDEX

// GenotypeAlleleCountsUnitTest.testFirstError / testAlleleIndexAtError / ...RankForError /
// ...CountAtError
TEST(GenotypeAlleleCounts, RejectsInvalidArguments) {
  EXPECT_THROW(GenotypeAlleleCounts::first(-1), Error);
  const auto first = GenotypeAlleleCounts::first(2);
  EXPECT_THROW(first.allele_index_at(-1), Error);
  EXPECT_THROW(first.allele_rank_for(-1), Error);
  EXPECT_THROW(first.allele_count_at(-1), Error);
}

// GenotypeAlleleCountsUnitTest.testFirst over PLOIDY = {1, 2, 3, 7, 10}
TEST(GenotypeAlleleCounts, FirstGenotypeIsAllReference) {
  for (const int ploidy : {1, 2, 3, 7, 10}) {
    const auto g = GenotypeAlleleCounts::first(ploidy);
    EXPECT_EQ(g.ploidy(), ploidy);
    EXPECT_EQ(g.distinct_allele_count(), 1);
    EXPECT_EQ(g.log10_combination_count(), 0.0);
    EXPECT_EQ(g.allele_count_at(0), ploidy);
    EXPECT_EQ(g.allele_count_for(0), ploidy);
    EXPECT_EQ(g.allele_rank_for(0), 0);
    EXPECT_EQ(g.allele_rank_for(1), -2);
    EXPECT_TRUE(g.contains_allele(0));
    EXPECT_FALSE(g.contains_allele(1));
    EXPECT_EQ(g.allele_index_at(0), 0);
    EXPECT_EQ(g.maximum_allele_index(), 0);
    EXPECT_EQ(g.minimum_allele_index(), 0);
    EXPECT_EQ(g.index(), 0);
    EXPECT_EQ(g.allele_indices(), std::vector<int>(ploidy, 0));
    std::string expected = "0";
    for (int i = 1; i < ploidy; ++i) expected += "/0";
    EXPECT_EQ(g.to_string(), expected);
  }
}

// GenotypeAlleleCountsUnitTest.testNextZeroPloidy / testNextZeroPloidyIncrease
TEST(GenotypeAlleleCounts, ZeroPloidyHasOneGenotype) {
  auto first = GenotypeAlleleCounts::first(0);
  const auto next = first.next();
  EXPECT_EQ(first, next);
  EXPECT_EQ(next.distinct_allele_count(), 0);
  EXPECT_EQ(next.index(), 0);
  EXPECT_TRUE(next.allele_indices().empty());
  first.increase();
  EXPECT_EQ(first, next);
  EXPECT_EQ(first.maximum_allele_index(), -1);
}

// GenotypeAlleleCountsUnitTest.testNextOnePloidy / testNextOnePloidyIncrease
TEST(GenotypeAlleleCounts, HaploidGenotypesFollowAlleleOrder) {
  auto current = GenotypeAlleleCounts::first(1);
  while (!current.contains_allele(kMaximumAlleleIndex + 1)) {
    const auto next = current.next();
    EXPECT_EQ(next.log10_combination_count(), 0.0);
    EXPECT_EQ(next.minimum_allele_index(), next.maximum_allele_index());
    EXPECT_EQ(next.minimum_allele_index(), current.minimum_allele_index() + 1);
    EXPECT_EQ(next.allele_count_at(0), 1);
    EXPECT_EQ(next.allele_rank_for(next.minimum_allele_index()), 0);
    EXPECT_EQ(next.allele_rank_for(next.minimum_allele_index() + 1), -2);
    EXPECT_EQ(next.allele_count_for(next.minimum_allele_index() + 1), 0);
    EXPECT_EQ(next.index(), current.index() + 1);
    EXPECT_FALSE(next == current);
    EXPECT_EQ(next.allele_indices(), std::vector<int>{next.maximum_allele_index()});
    current = next;
  }
}

// GenotypeAlleleCountsUnitTest.testPloidyTwoOrMore and testPloidyTwoOrMoreIncrease
TEST(GenotypeAlleleCounts, NextGenotypeMovesOneCopyUp) {
  for (const int ploidy : {2, 3, 7, 10}) {
    auto current = GenotypeAlleleCounts::first(ploidy);
    while (true) {
      const auto next = current.next();
      if (next.contains_allele(kMaximumAlleleIndex + 1)) break;
      SCOPED_TRACE(next.to_string());
      const int distinct = next.distinct_allele_count();
      if (ploidy == 2) {
        EXPECT_NEAR(next.log10_combination_count(), distinct == 2 ? std::log10(2) : 0.0, 1e-15);
      } else if (ploidy == 3) {
        const double expected = distinct == 3   ? std::log10(6)
                                : distinct == 2 ? std::log10(6) - std::log10(2)
                                                : 0.0;
        EXPECT_NEAR(next.log10_combination_count(), expected, 1e-15);
      } else if (distinct == 1) {
        EXPECT_NEAR(next.log10_combination_count(), 0.0, 1e-15);
      }
      std::set<int> absent;
      next.for_each_absent_allele_index([&](int a) { absent.insert(a); }, kMaximumAlleleIndex + 1);
      EXPECT_EQ(static_cast<int>(absent.size()), kMaximumAlleleIndex + 1 - distinct);
      next.for_each_allele_index_and_count([&](int a, int) { EXPECT_EQ(absent.count(a), 0u); });

      if (current.distinct_allele_count() == 1) {
        EXPECT_EQ(next.maximum_allele_index(), current.maximum_allele_index() + 1);
        EXPECT_EQ(distinct, 2);
        EXPECT_EQ(next.minimum_allele_index(), 0);
      } else {
        EXPECT_EQ(next.maximum_allele_index(), current.maximum_allele_index());
        EXPECT_EQ(next.minimum_allele_index(),
                  current.allele_count_at(0) > 1 ? 0 : current.minimum_allele_index() + 1);
      }
      const int min_allele = current.minimum_allele_index();
      EXPECT_EQ(next.allele_count_for(0), current.allele_count_for(min_allele) - 1);
      EXPECT_EQ(next.allele_count_for(min_allele + 1),
                current.allele_count_for(min_allele + 1) + 1);
      EXPECT_EQ(next.allele_count_for(min_allele),
                min_allele == 0 ? current.allele_count_at(0) - 1 : 0);
      int total = 0;
      for (int rank = 0; rank < distinct; ++rank) {
        const int index = next.allele_index_at(rank);
        EXPECT_EQ(next.allele_count_for(index), next.allele_count_at(rank));
        total += next.allele_count_at(rank);
        if (index > min_allele + 1) {
          EXPECT_EQ(next.allele_count_for(index), current.allele_count_for(index));
        }
      }
      EXPECT_EQ(total, ploidy);
      EXPECT_EQ(next.index(), current.index() + 1);
      EXPECT_EQ(static_cast<int>(next.allele_indices().size()), ploidy);
      auto increased = current;
      increased.increase();
      EXPECT_EQ(increased, next);
      EXPECT_EQ(increased.index(), next.index());
      current = next;
    }
  }
}

// GenotypeAlleleCountsUnitTest.testToString (genotypeAlleleCountDataWithToStringOutput)
TEST(GenotypeAlleleCounts, CanonicalOrderStrings) {
  const std::vector<std::pair<int, std::vector<std::string>>> cases = {
      {1, {"0", "1", "2", "3", "4"}},
      {2, {"0/0", "0/1", "1/1", "0/2", "1/2", "2/2", "0/3", "1/3", "2/3", "3/3"}},
      {3,
       {"0/0/0", "0/0/1", "0/1/1", "1/1/1", "0/0/2", "0/1/2", "1/1/2", "0/2/2", "1/2/2", "2/2/2"}}};
  for (const auto& [ploidy, expected] : cases) {
    auto g = GenotypeAlleleCounts::first(ploidy);
    for (const std::string& text : expected) {
      EXPECT_EQ(g.to_string(), text);
      g.increase();
    }
  }
}

// Hand-derived: 2/4/4/7 has 4!/(1!2!1!) = 12 orderings.
TEST(GenotypeAlleleCounts, CombinationCountOfMixedGenotype) {
  auto g = GenotypeAlleleCounts::first(4);
  const int target = alleles_to_index(std::vector<int>{2, 4, 4, 7});
  for (int i = 0; i < target; ++i) g.increase();
  EXPECT_EQ(g.to_string(), "2/4/4/7");
  EXPECT_NEAR(g.log10_combination_count(), std::log10(12.0), 1e-14);
  EXPECT_EQ(g.allele_rank_for(4), 1);
  EXPECT_EQ(g.allele_rank_for(5), -3);
}

// GenotypeIndexCalculatorUnitTest.testIndexOfFirstGenotypeWithAllele
TEST(GenotypeIndexCalculator, IndexOfFirstGenotypeWithAllele) {
  const int cases[][3] = {{1, 0, 0}, {1, 5, 5}, {2, 0, 0}, {2, 1, 1}, {2, 2, 3},
                          {4, 0, 0}, {4, 1, 1}, {4, 2, 5}, {4, 3, 15}};
  for (const auto& c : cases) EXPECT_EQ(index_of_first_genotype_with_allele(c[0], c[1]), c[2]);
}

// GenotypeIndexCalculatorUnitTest.testGenotypeCount: the recursion over copies of the last allele
TEST(GenotypeIndexCalculator, GenotypeCountRecursion) {
  const int cases[][2] = {{1, 1}, {1, 5}, {2, 1}, {2, 5}, {3, 5}};
  for (const auto& [ploidy, alleles] : cases) {
    if (ploidy == 1) {
      EXPECT_EQ(genotype_count(ploidy, alleles), alleles);
    } else {
      int recursive = 1;
      for (int n = 0; n < ploidy; ++n) recursive += genotype_count(ploidy - n, alleles - 1);
      EXPECT_EQ(genotype_count(ploidy, alleles), recursive);
    }
  }
  EXPECT_EQ(genotype_count(2, 7), 28);  // hand: 7 * 8 / 2
  EXPECT_EQ(genotype_count(20, 6), 53130);
}

// GenotypeIndexCalculatorUnitTest.testGenotypeCountOverflow
TEST(GenotypeIndexCalculator, GenotypeCountOverflowThrows) {
  EXPECT_THROW(genotype_count(10000, 10000), Error);
}

// GenotypeIndexCalculatorUnitTest.testAllelesToIndex
TEST(GenotypeIndexCalculator, AllelesToIndex) {
  const std::vector<std::pair<std::vector<int>, int>> cases = {
      {{0}, 0},       {{0, 0}, 0},    {{0, 0, 0}, 0},   {{0, 1}, 1},      {{1, 0}, 1},
      {{1, 1}, 2},    {{100}, 100},   {{0, 100}, 5050}, {{100, 0}, 5050}, {{0, 1, 2}, 5},
      {{2, 0, 0}, 4}, {{1, 2, 1}, 6}, {{2, 1, 2}, 8},   {{2, 2, 2}, 9}};
  for (const auto& [alleles, index] : cases) EXPECT_EQ(alleles_to_index(alleles), index);
}

// GenotypeIndexCalculatorUnitTest.testAlleleCountsToIndex
TEST(GenotypeIndexCalculator, AlleleCountsToIndex) {
  const std::vector<std::pair<std::vector<int>, int>> cases = {{{0, 1}, 0},
                                                               {{0, 2}, 0},
                                                               {{0, 3}, 0},
                                                               {{0, 1, 1, 1}, 1},
                                                               {{1, 1, 0, 1}, 1},
                                                               {{1, 2}, 2},
                                                               {{100, 1}, 100},
                                                               {{0, 1, 100, 1}, 5050},
                                                               {{100, 1, 0, 1}, 5050},
                                                               {{0, 1, 1, 1, 2, 1}, 5},
                                                               {{2, 1, 0, 2}, 4},
                                                               {{1, 2, 2, 1}, 6},
                                                               {{2, 2, 1, 1}, 8},
                                                               {{2, 3}, 9}};
  for (const auto& [counts, index] : cases) EXPECT_EQ(allele_counts_to_index(counts), index);
  EXPECT_THROW(allele_counts_to_index(std::vector<int>{0, 1, 2}), Error);
  EXPECT_THROW(allele_counts_to_index(std::vector<int>{0, -1}), Error);
}

// GenotypeIndexCalculatorUnitTest.testNewToOldIndexMap
TEST(GenotypeIndexCalculator, NewToOldGenotypeMap) {
  const std::vector<std::tuple<int, std::vector<int>, std::vector<int>>> cases = {
      {1, {0}, {0}}, {1, {1}, {1}},          {2, {0}, {0}},          {2, {1}, {2}},
      {2, {2}, {5}}, {2, {0, 1}, {0, 1, 2}}, {2, {1, 0}, {2, 1, 0}}, {2, {0, 2}, {0, 3, 5}}};
  for (const auto& [ploidy, new_to_old, expected] : cases) {
    EXPECT_EQ(new_to_old_genotype_map(ploidy, new_to_old), expected);
  }
}

// Every genotype's index round-trips through its alleles (own check of the enumeration).
TEST(GenotypeIndexCalculator, EnumerationAndIndexAgree) {
  for (const int ploidy : {1, 2, 3, 5}) {
    const auto genotypes = all_genotypes(ploidy, 5);
    ASSERT_EQ(static_cast<int>(genotypes.size()), genotype_count(ploidy, 5));
    for (int i = 0; i < static_cast<int>(genotypes.size()); ++i) {
      EXPECT_EQ(genotypes[i].index(), i);
      EXPECT_EQ(alleles_to_index(genotypes[i].allele_indices()), i);
    }
  }
}

}  // namespace
}  // namespace gpp::stages::call
