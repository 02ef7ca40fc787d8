// Assembly regions over a contig: GATK AssemblyRegionUnitTest.testCreatingAssemblyRegions (hg19mini
// contig "1", 16,000 bp), the invariants AssemblyRegionIteratorUnitTest checks (its BAM is not
// available, so on synthetic reads), and hand-derived region lists for one SNP, an interval gap and
// the readiness rule.
#include "stages/call/assembly_region_iterator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/active_region_test_reads.hpp"

namespace gpp::stages::call {
namespace {

using test::make_read;

// AssemblyRegionUnitTest.testCreatingAssemblyRegions over its data provider.
TEST(AssemblyRegion, PaddingIsClippedToTheContig) {
  constexpr std::int64_t kLength = 16000;
  for (std::int64_t start :
       {std::int64_t{1}, std::int64_t{10}, std::int64_t{100}, kLength - 10, kLength - 1}) {
    for (std::int64_t size : {1, 10, 100, 1000}) {
      for (int extension : {0, 1, 10, 100}) {
        for (bool is_active : {true, false}) {
          const std::int64_t end_1based = std::min(start + size - 1, kLength);
          const AssemblyRegion r =
              make_assembly_region(3, start - 1, end_1based, is_active, extension, kLength);
          EXPECT_EQ(r.contig, 3);
          EXPECT_EQ(r.start, start - 1);
          EXPECT_EQ(r.end, end_1based);
          EXPECT_EQ(r.padded_start + 1, std::max<std::int64_t>(start - extension, 1));
          EXPECT_EQ(r.padded_end, std::min(end_1based + extension, kLength));
          EXPECT_EQ(r.is_active, is_active);
        }
      }
    }
  }
  EXPECT_THROW(make_assembly_region(0, 5, 5, true, 10, 100), Error);     // empty
  EXPECT_THROW(make_assembly_region(0, 95, 101, true, 10, 100), Error);  // off the contig
}

// A deterministic reference.
std::string make_reference(std::size_t length, std::uint64_t seed) {
  std::string ref(length, 'A');
  for (auto& base : ref) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    base = "ACGT"[(seed >> 33) % 4];
  }
  return ref;
}

// 100M reads every 10 bp; the reads over `snp` carry another base there.
std::vector<CallRead> tiled_reads(const std::string& ref, std::int64_t snp) {
  std::vector<CallRead> reads;
  for (std::int64_t start = 0; start + 100 <= static_cast<std::int64_t>(ref.size()); start += 10) {
    std::string bases = ref.substr(static_cast<std::size_t>(start), 100);
    if (snp >= start && snp < start + 100) {
      char& b = bases[static_cast<std::size_t>(snp - start)];
      b = b == 'A' ? 'C' : 'A';
    }
    reads.push_back(make_read("t" + std::to_string(start), start, "100M", bases));
  }
  return reads;
}

struct Expected {
  std::int64_t start, end;
  bool active;
};

void expect_regions(const std::vector<AssemblyRegion>& actual,
                    const std::vector<Expected>& expected, std::int64_t contig_length) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].start, expected[i].start) << i;
    EXPECT_EQ(actual[i].end, expected[i].end) << i;
    EXPECT_EQ(actual[i].is_active, expected[i].active) << i;
    EXPECT_EQ(actual[i].padded_start, std::max<std::int64_t>(0, expected[i].start - 100));
    EXPECT_EQ(actual[i].padded_end, std::min(expected[i].end + 100, contig_length));
  }
}

// One hom-var SNP at 1000 on a 2,000 bp contig. The profile is popped (before each add) once it
// holds 300 + 100 states; inactive runs are cut at 300; the smoothed SNP stays above 0.002 for
// |d| <= 37 (kernel[37] = 0.00221, kernel[38] = 0.00194), so the active region is [963, 1038);
// the end of the contig force-pops the rest.
TEST(FindAssemblyRegions, OneSnp) {
  const std::string ref = make_reference(2000, 7);
  const std::vector<CallRead> reads = tiled_reads(ref, 1000);
  const auto regions = find_assembly_regions(0, ref, reads, {}, {}, {});
  expect_regions(regions,
                 {{0, 300, false},
                  {300, 600, false},
                  {600, 900, false},
                  {900, 963, false},
                  {963, 1038, true},
                  {1038, 1338, false},
                  {1338, 1638, false},
                  {1638, 1938, false},
                  {1938, 2000, false}},
                 2000);
}

// Two traversal intervals: the gap forces the profile to close its regions.
TEST(FindAssemblyRegions, IntervalGapForcesConversion) {
  const std::string ref = make_reference(1000, 11);
  const std::vector<CallRead> reads = tiled_reads(ref, -1);
  const TraversalSpan spans[] = {{0, 500}, {700, 1000}};
  const auto regions = find_assembly_regions(0, ref, reads, spans, {}, {});
  expect_regions(regions, {{0, 300, false}, {300, 500, false}, {700, 1000, false}}, 1000);
}

// AssemblyRegionIterator: a region is handed out once the traversal passes its padded end.
TEST(AssemblyRegionIterator, RegionsWaitForTheirPaddedEnd) {
  AssemblyRegionIterator iterator(0, 1000, AssemblyRegionOptions{});
  for (std::int64_t pos = 0; pos < 500; ++pos) {
    iterator.add_state({pos, 0.0});
    const auto ready = iterator.next_ready();
    if (pos == 400) {  // [0, 300) popped before adding 400; padded end 400 reached
      ASSERT_TRUE(ready.has_value());
      EXPECT_EQ(ready->start, 0);
      EXPECT_EQ(ready->end, 300);
    } else {
      EXPECT_FALSE(ready.has_value()) << pos;
    }
  }
  // A new interval at 550 closes [300, 500), padded to 600: it waits until position 600.
  for (std::int64_t pos = 550; pos < 600; ++pos) {
    iterator.add_state({pos, 0.0});
    EXPECT_EQ(iterator.pending(), 1u);
    EXPECT_FALSE(iterator.next_ready().has_value()) << pos;
  }
  iterator.add_state({600, 0.0});
  const auto ready = iterator.next_ready();
  ASSERT_TRUE(ready.has_value());
  EXPECT_EQ(ready->start, 300);
  EXPECT_EQ(ready->end, 500);
  EXPECT_EQ(ready->padded_end, 600);
  EXPECT_THROW(iterator.add_state({600, 0.0}), Error);  // positions must increase
  iterator.finish();
  const auto last = iterator.next_ready();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->start, 550);
  EXPECT_EQ(last->end, 601);
  EXPECT_FALSE(iterator.next_ready().has_value());
  EXPECT_THROW(iterator.add_state({700, 0.0}), Error);
}

// Reads with mismatches, indels and soft clips over 6,000 bp; the region invariants of
// AssemblyRegionIteratorUnitTest.testRegionsHaveCorrectReadsAndSize: size <= max, padding as
// clipped to the contig, contiguous regions covering the traversal; the 6 het SNPs are active.
TEST(FindAssemblyRegions, RegionInvariantsOnSyntheticReads) {
  const std::int64_t length = 6000;
  const std::string ref = make_reference(static_cast<std::size_t>(length), 3);
  std::vector<CallRead> reads;
  std::uint64_t seed = 5;
  const auto next = [&seed](std::uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  for (std::int64_t start = 0; start + 110 <= length; start += 7) {
    const std::uint64_t kind = next(10);
    std::string bases = ref.substr(static_cast<std::size_t>(start), 100);
    std::string cigar = "100M";
    if (kind == 0) {  // a deletion of 2 after 50 bases
      bases = ref.substr(static_cast<std::size_t>(start), 50) +
              ref.substr(static_cast<std::size_t>(start + 52), 48);
      cigar = "50M2D48M";
    } else if (kind == 1) {  // an insertion of 3 after 40 bases
      bases = ref.substr(static_cast<std::size_t>(start), 40) + "TTT" +
              ref.substr(static_cast<std::size_t>(start + 40), 57);
      cigar = "40M3I57M";
    } else if (kind == 2) {  // 8 soft-clipped bases
      bases = "GGGGGGGG" + ref.substr(static_cast<std::size_t>(start), 92);
      cigar = "8S92M";
    } else if (kind == 3) {  // a sequencing error
      char& b = bases[next(100)];
      b = b == 'A' ? 'C' : 'A';
    }
    if (cigar == "100M" && (start / 7) % 2 == 1) {  // het SNPs at 250, 1250, ...: half the reads
      for (std::int64_t snp = 250; snp < length; snp += 1000) {
        if (snp >= start && snp < start + 100) {
          char& b = bases[static_cast<std::size_t>(snp - start)];
          b = b == 'A' ? 'C' : 'A';
        }
      }
    }
    reads.push_back(make_read("s" + std::to_string(start), start, cigar, bases));
  }
  for (int max_size : {300, 120}) {
    AssemblyRegionOptions options;
    options.max_region_size = max_size;
    const auto regions = find_assembly_regions(0, ref, reads, {}, options, {});
    ASSERT_FALSE(regions.empty());
    EXPECT_EQ(regions.front().start, 0);
    EXPECT_EQ(regions.back().end, length);
    int active = 0;
    for (std::size_t i = 0; i < regions.size(); ++i) {
      const AssemblyRegion& r = regions[i];
      EXPECT_GT(r.size(), 0);
      EXPECT_LE(r.size(), max_size);
      EXPECT_EQ(r.start - r.padded_start, std::min<std::int64_t>(100, r.start));
      EXPECT_EQ(r.padded_end - r.end, std::min<std::int64_t>(100, length - r.end));
      if (i > 0) {
        EXPECT_EQ(r.start, regions[i - 1].end);
      }
      active += r.is_active;
    }
    EXPECT_GE(active, 6);
    for (std::int64_t snp = 250; snp < length; snp += 1000) {
      for (const AssemblyRegion& r : regions) {
        if (r.start <= snp && snp < r.end) {
          EXPECT_TRUE(r.is_active) << "SNP at " << snp;
        }
      }
    }
    // Deterministic: a second run gives the same regions.
    EXPECT_EQ(find_assembly_regions(0, ref, reads, {}, options, {}), regions);
  }
}

TEST(FindAssemblyRegions, RejectsBadInput) {
  const std::string ref = make_reference(500, 1);
  std::vector<CallRead> reads = {make_read("a", 50, "10M"), make_read("b", 40, "10M")};
  EXPECT_THROW(find_assembly_regions(0, ref, reads, {}, {}, {}), Error);  // unsorted
  std::vector<CallRead> other = {make_read("c", 10, "10M")};
  other[0].contig = 1;
  EXPECT_THROW(find_assembly_regions(0, ref, other, {}, {}, {}), Error);
  const TraversalSpan overlapping[] = {{0, 100}, {50, 200}};
  EXPECT_THROW(find_assembly_regions(0, ref, {}, overlapping, {}, {}), Error);
  AssemblyRegionOptions bad;
  bad.min_region_size = 400;
  EXPECT_THROW(find_assembly_regions(0, ref, {}, {}, bad, {}), Error);
}

}  // namespace
}  // namespace gpp::stages::call
