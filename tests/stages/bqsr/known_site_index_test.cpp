// KnownSiteIndex against the plain definition of overlap: a site [start, end) (0-based) shares a
// base with the 1-based range [first, last] when start + 1 <= last and end >= first; the sites are
// reported in order of start, equal starts in the order given.
#include "stages/bqsr/known_site_index.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace gpp::stages::bqsr {
namespace {

std::vector<io::VariantSpan> visited(const KnownSiteIndex& index, std::int64_t first,
                                     std::int64_t last) {
  std::vector<io::VariantSpan> out;
  index.overlapping(first, last, [&](const io::VariantSpan& site) { out.push_back(site); });
  return out;
}

std::vector<io::VariantSpan> overlapping_by_definition(std::vector<io::VariantSpan> spans,
                                                       std::int64_t first, std::int64_t last) {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const auto& a, const auto& b) { return a.start < b.start; });
  std::vector<io::VariantSpan> out;
  for (const io::VariantSpan& s : spans) {
    if (s.start + 1 <= last && s.end >= first) out.push_back(s);
  }
  return out;
}

TEST(KnownSiteIndex, SiteBeforeManyShortOnesStillFoundByLaterReads) {
  // A 5 kb deletion at 1,000 and 100 SNPs after it: a read at 5,500-5,600 overlaps the deletion
  // (the 88 SNPs before the read do not reach it) and the SNPs inside its range.
  std::vector<io::VariantSpan> spans{{999, 5999}};
  for (std::int64_t p = 1100; p < 6100; p += 50) spans.push_back({p, p + 1});
  const KnownSiteIndex index(spans);
  const auto found = visited(index, 5500, 5600);
  ASSERT_EQ(found.size(), 3U);
  EXPECT_EQ(found[0], (io::VariantSpan{999, 5999}));
  EXPECT_EQ(found[1], (io::VariantSpan{5500, 5501}));  // its 1-based base 5501
  EXPECT_EQ(found[2], (io::VariantSpan{5550, 5551}));
  // The deletion's last base is 5999; the SNPs there are at 5951 and 6001.
  EXPECT_EQ(visited(index, 6000, 6000), (std::vector<io::VariantSpan>{}));
  EXPECT_EQ(visited(index, 5999, 5999), (std::vector<io::VariantSpan>{{999, 5999}}));
}

TEST(KnownSiteIndex, EqualStartsKeepTheirOrderAndEmptyIndexFindsNothing) {
  const KnownSiteIndex index({{10, 12}, {10, 11}, {5, 6}, {10, 30}});
  EXPECT_EQ(visited(index, 11, 11), (std::vector<io::VariantSpan>{{10, 12}, {10, 11}, {10, 30}}));
  EXPECT_EQ(visited(index, 13, 40), (std::vector<io::VariantSpan>{{10, 30}}));
  EXPECT_TRUE(visited(KnownSiteIndex(), 1, 1000).empty());
}

TEST(KnownSiteIndex, AgreesWithTheDefinitionOnRandomSitesAndReads) {
  std::mt19937_64 rng(20261128);
  for (int round = 0; round < 20; ++round) {
    std::vector<io::VariantSpan> spans;
    const int sites = std::uniform_int_distribution<int>(0, 3000)(rng);
    for (int k = 0; k < sites; ++k) {
      const std::int64_t start = std::uniform_int_distribution<std::int64_t>(0, 100000)(rng);
      const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
      const std::int64_t length = kind < 90   ? 1
                                  : kind < 99 ? std::uniform_int_distribution<int>(2, 60)(rng)
                                              : std::uniform_int_distribution<int>(500, 9000)(rng);
      spans.push_back({start, start + length});
    }
    const KnownSiteIndex index(spans);
    for (int q = 0; q < 500; ++q) {
      const std::int64_t first = std::uniform_int_distribution<std::int64_t>(-50, 110000)(rng);
      const std::int64_t last = first + std::uniform_int_distribution<std::int64_t>(0, 400)(rng);
      ASSERT_EQ(visited(index, first, last), overlapping_by_definition(spans, first, last))
          << "round " << round << ", range " << first << "-" << last;
    }
  }
}

}  // namespace
}  // namespace gpp::stages::bqsr
