// Tests of stages/call/allele_marginalization: GATK AlleleLikelihoodsUnitTest.testMarginalization
// and testMarginalizationWithOverlap ported (the same sample sets, allele sets, read layout and
// round-robin random allele maps; GATK's random likelihoods come from a fixed-seed std::mt19937
// here, and the expected values are recomputed independently as in the Java test), plus cases
// derived by hand.
#include "stages/call/allele_marginalization.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

using Indices = std::vector<std::vector<std::size_t>>;

// randomAlleleMap: old alleles drawn at random, dealt round-robin to the new ones
Indices random_allele_map(std::size_t from, std::size_t to, std::mt19937& rng) {
  Indices map(to);
  std::vector<std::size_t> remaining(from);
  for (std::size_t i = 0; i < from; ++i) remaining[i] = i;
  std::size_t next = 0;
  for (std::size_t i = 0; i < from; ++i) {
    std::uniform_int_distribution<std::size_t> pick(0, remaining.size() - 1);
    const std::size_t k = pick(rng);
    map[next].push_back(remaining[k]);
    remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(k));
    next = (next + 1) % to;
  }
  return map;
}

struct Sample {
  std::size_t reads;
  std::vector<double> likelihoods;  // reads x alleles, read-major
  std::vector<ReadSpan> spans;      // even reads at GATK 1, odd at 101, all 5M
};

Sample make_sample(std::size_t alleles, std::mt19937& rng) {
  Sample s;
  s.reads = std::uniform_int_distribution<std::size_t>(0, 99)(rng);
  std::normal_distribution<double> gaussian;
  for (std::size_t r = 0; r < s.reads; ++r) {
    for (std::size_t a = 0; a < alleles; ++a) s.likelihoods.push_back(-std::abs(gaussian(rng)));
    const std::int64_t start = (r & 1) == 0 ? 0 : 100;
    s.spans.push_back({start, start + 5});
  }
  return s;
}

// AlleleLikelihoodsUnitTest.marginalizationDataSets: sample sets x allele-set pairs with fewer new
// than old alleles (allele sets of sizes 3, 1, 2, 2, 2)
TEST(Marginalize, GatkDataSets) {
  const std::vector<std::size_t> sample_set_sizes = {3, 1, 6};
  const std::vector<std::size_t> allele_set_sizes = {3, 1, 2, 2, 2};
  std::mt19937 rng(20250723);
  int data_sets = 0;
  for (std::size_t samples : sample_set_sizes) {
    for (std::size_t from : allele_set_sizes) {
      for (std::size_t to : allele_set_sizes) {
        if (to >= from) continue;
        ++data_sets;
        const Indices map = random_allele_map(from, to, rng);
        for (std::size_t s = 0; s < samples; ++s) {
          const Sample sample = make_sample(from, rng);
          // testMarginalization: every read kept, each new allele the max of its old ones
          const ReadAlleleLikelihoods all =
              marginalize(sample.likelihoods, sample.reads, from, map);
          ASSERT_EQ(all.reads.size(), sample.reads);
          for (std::size_t r = 0; r < sample.reads; ++r) {
            for (std::size_t a = 0; a < to; ++a) {
              double best = -std::numeric_limits<double>::infinity();
              for (std::size_t old : map[a])
                best = std::max(best, sample.likelihoods[r * from + old]);
              EXPECT_EQ(all.at(r, a), best);
            }
          }
          // testMarginalizationWithOverlap: only reads overlapping GATK 1..1 (the even ones)
          const ReadAlleleLikelihoods even = marginalize_informative_reads(
              sample.likelihoods, sample.reads, from, map, sample.spans, 0, 0, 1000, 0);
          ASSERT_EQ(even.reads.size(), (sample.reads + 1) / 2);
          for (std::size_t r = 0; r < even.reads.size(); ++r) {
            EXPECT_EQ(even.reads[r], r << 1);
            for (std::size_t a = 0; a < to; ++a) {
              double best = -std::numeric_limits<double>::infinity();
              for (std::size_t old : map[a]) {
                best = std::max(best, sample.likelihoods[(r << 1) * from + old]);
              }
              EXPECT_EQ(even.at(r, a), best);
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(data_sets, 3 * 7);
}

// by hand: the example of the header, an allele no haplotype carries, a shared haplotype
TEST(Marginalize, TakesTheMaximumPerRead) {
  const double lk[] = {-1, -5, -3, -4, -2, -6};
  const ReadAlleleLikelihoods m = marginalize(lk, 2, 3, Indices{{0}, {1, 2}, {}, {0, 1}});
  EXPECT_EQ(m.allele_count, 4u);
  EXPECT_EQ(m.log10_likelihoods,
            (std::vector<double>{-1, -3, -std::numeric_limits<double>::infinity(), -1, -4, -2,
                                 -std::numeric_limits<double>::infinity(), -2}));
  EXPECT_THROW(marginalize(lk, 2, 3, Indices{{3}}), Error);  // no haplotype 3
  EXPECT_THROW(marginalize(lk, 3, 3, Indices{{0}}), Error);  // wrong matrix size
  const ReadAlleleLikelihoods none = marginalize({}, 0, 3, Indices{{0}, {1}});
  EXPECT_TRUE(none.reads.empty());
}

// by hand: --allele-informative-reads-overlap-margin 2 around a locus, clipped to the contig
TEST(InformativeReads, OverlapMarginAndContigEdges) {
  EXPECT_EQ(informative_read_interval(100, 100, 2, 1000), (ContigInterval{98, 102}));
  EXPECT_EQ(informative_read_interval(1, 4, 2, 1000), (ContigInterval{0, 6}));
  EXPECT_EQ(informative_read_interval(995, 999, 2, 1000), (ContigInterval{993, 999}));
  EXPECT_THROW(informative_read_interval(1, 4, -1, 1000), Error);

  const ContigInterval target{98, 102};
  EXPECT_FALSE(read_overlaps(target, {90, 98}));  // last base 97
  EXPECT_TRUE(read_overlaps(target, {90, 99}));   // last base 98
  EXPECT_TRUE(read_overlaps(target, {102, 150}));
  EXPECT_FALSE(read_overlaps(target, {103, 150}));
  EXPECT_TRUE(read_overlaps(target, {99, 99}));   // no reference bases: last = start - 1 = 98
  EXPECT_FALSE(read_overlaps(target, {98, 98}));  // last = 97

  // reads kept in their order, rows of the kept ones only
  const double lk[] = {-1, -2, -3, -4, -5, -6};  // 3 reads x 2 haplotypes
  const ReadSpan spans[] = {{50, 98}, {95, 140}, {101, 160}};
  const ReadAlleleLikelihoods kept =
      marginalize_informative_reads(lk, 3, 2, Indices{{1}, {0}}, spans, 100, 100, 1000);
  EXPECT_EQ(kept.reads, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(kept.log10_likelihoods, (std::vector<double>{-4, -3, -6, -5}));
  EXPECT_THROW(
      marginalize_informative_reads(lk, 3, 2, Indices{{1}}, std::span(spans, 2), 100, 100, 1000),
      Error);
}

}  // namespace
}  // namespace gpp::stages::call
