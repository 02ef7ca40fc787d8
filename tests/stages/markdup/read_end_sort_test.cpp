// sort_read_ends against a plain stable sort with Picard's ReadEndsMDComparator written field by
// field: keys packed into one or several words, fields that never differ, negative values, and
// ends that do or do not already come in file order.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "stages/markdup/read_ends.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::markdup {
namespace {

auto picard_key(const ReadEnd& e) {
  return std::tie(e.library, e.read1_ref, e.read1_coord, e.orientation, e.read2_ref, e.read2_coord,
                  e.location.tile, e.location.x, e.location.y, e.read1_index, e.read2_index);
}

// Every field of an end, for comparing whole arrays.
auto all_fields(const ReadEnd& e) {
  return std::tuple_cat(picard_key(e), std::tie(e.optical_orientation, e.read_group, e.score));
}

ReadEndArray expected_order(const ReadEndArray& ends) {
  ReadEndArray sorted = ends;
  std::stable_sort(sorted.begin(), sorted.end(), [](const ReadEnd& a, const ReadEnd& b) {
    return picard_key(a) < picard_key(b);
  });
  return sorted;
}

void expect_same(const ReadEndArray& actual, const ReadEndArray& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t k = 0; k < actual.size(); ++k) {
    ASSERT_TRUE(all_fields(actual[k]) == all_fields(expected[k])) << "end " << k;
  }
}

struct Spread {
  std::int32_t libraries, refs, coords, tiles;
  std::int16_t xy;
};

ReadEndArray random_ends(std::size_t n, const Spread& s, bool in_file_order, std::mt19937& rng) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  ReadEndArray ends(n);
  for (std::size_t k = 0; k < n; ++k) {
    ReadEnd e;
    e.library = static_cast<std::int32_t>(pick(0, s.libraries - 1));
    e.read1_ref = static_cast<std::int32_t>(pick(0, s.refs - 1));
    e.read1_coord =
        static_cast<std::int32_t>(pick(-5, s.coords));  // clipping gives 5' positions below 1
    e.orientation = static_cast<std::int8_t>(pick(0, 5));
    e.optical_orientation = static_cast<std::int8_t>(pick(-1, 5));
    e.read2_ref = static_cast<std::int32_t>(pick(-1, s.refs - 1));
    e.read2_coord = e.read2_ref < 0 ? -1 : static_cast<std::int32_t>(pick(-5, s.coords));
    e.location = {static_cast<std::int16_t>(pick(-1, s.tiles)),
                  static_cast<std::int16_t>(pick(-s.xy, s.xy)),
                  static_cast<std::int16_t>(pick(-s.xy, s.xy))};
    e.read_group = static_cast<std::int16_t>(pick(-1, 3));
    e.score = static_cast<std::int16_t>(pick(-16384, 16383));
    // Indexes in file: in queryname order the ends of one template share their template's index
    // (several ends per index here, read2_index then equal too); otherwise unique, in any order.
    if (in_file_order) {
      e.read1_index = static_cast<std::int64_t>(k / 3);
      e.read2_index = e.read2_ref < 0 ? -1 : e.read1_index;
    } else {
      e.read1_index = static_cast<std::int64_t>(k) * 20011;  // shuffled below
      e.read2_index = e.read2_ref < 0 ? -1 : pick(0, 4'000'000'000LL);
    }
    ends[k] = e;
  }
  if (!in_file_order) {
    for (std::size_t k = n; k > 1; --k) {
      std::swap(
          ends[k - 1].read1_index,
          ends[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(k) - 1))].read1_index);
    }
  }
  return ends;
}

// Sorts random ends of every shape on `backend` and compares with the plain stable sort.
void check_against_stable_sort(kernels::Backend backend) {
  std::mt19937 rng(20261122);
  const Spread narrow{1, 1, 50, 0, 0};  // keys in one word, most fields constant
  const Spread wide{70000, 3000, 250'000'000, 20000, 30000};  // keys over several words
  for (const Spread& spread : {narrow, wide}) {
    for (const bool in_file_order : {true, false}) {
      for (const std::size_t n : {std::size_t{2}, std::size_t{1000}, std::size_t{200000}}) {
        ReadEndArray ends = random_ends(n, spread, in_file_order, rng);
        const ReadEndArray expected = expected_order(ends);
        sort_read_ends(ends, backend);
        SCOPED_TRACE(testing::Message()
                     << "n " << n << (in_file_order ? ", file order" : ", any order"));
        expect_same(ends, expected);
      }
    }
  }
}

TEST(ReadEndSort, EqualsStableSortWithPicardsComparator) {
  check_against_stable_sort(kernels::Backend::kCpu);
}

using ReadEndSortGpu = ::gpp::test::GpuTest;

TEST_F(ReadEndSortGpu, EqualsStableSortWithPicardsComparator) {
  check_against_stable_sort(kernels::Backend::kGpu);
}

TEST(ReadEndSort, AllKeysEqualKeepsTheOrder) {
  ReadEndArray ends(5);
  for (std::size_t k = 0; k < ends.size(); ++k) {
    ends[k] = ReadEnd{};
    ends[k].read1_index = 7;
    ends[k].score = static_cast<std::int16_t>(k);  // not part of the key
  }
  sort_read_ends(ends, kernels::Backend::kCpu);
  for (std::size_t k = 0; k < ends.size(); ++k)
    EXPECT_EQ(ends[k].score, static_cast<std::int16_t>(k));
}

}  // namespace
}  // namespace gpp::stages::markdup
