#include "pipeline/huge_pages.hpp"

#include <gtest/gtest.h>

#include "pipeline/heap_reuse.hpp"

namespace gpp::pipeline {
namespace {

constexpr const char* kMadvise = "always [madvise] never";

TEST(HugePages, AddsTheTunableOnceOnManyCores) {
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, 16, kMadvise), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, 8, "[always] madvise never"),
            "glibc.malloc.hugetlb=1");
  // The user's tunables are kept.
  EXPECT_EQ(huge_page_tunables("glibc.malloc.arena_max=2", nullptr, 16, kMadvise),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  // Already named (by the first execution, or by the user with any value): no re-execution.
  EXPECT_FALSE(
      huge_page_tunables("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", nullptr, 16, kMadvise));
  EXPECT_FALSE(huge_page_tunables("glibc.malloc.hugetlb=0", nullptr, 16, kMadvise));
}

TEST(HugePages, NotWhereTheyDoNotPay) {
  EXPECT_FALSE(huge_page_tunables(nullptr, nullptr, 2, kMadvise));                   // few cores
  EXPECT_FALSE(huge_page_tunables(nullptr, nullptr, 16, "always madvise [never]"));  // THP off
  EXPECT_FALSE(huge_page_tunables(nullptr, nullptr, 16, ""));    // no THP in the kernel
  EXPECT_FALSE(huge_page_tunables(nullptr, "0", 16, kMadvise));  // GPP_HUGE_PAGES=0
  EXPECT_EQ(huge_page_tunables(nullptr, "1", 16, kMadvise), "glibc.malloc.hugetlb=1");
}

// Freed memory is kept unless the heap has huge pages, whoever set the tunable.
TEST(HeapReuse, OnlyWithoutHugePages) {
  EXPECT_TRUE(heap_reuse_wanted(nullptr));
  EXPECT_TRUE(heap_reuse_wanted(""));
  EXPECT_TRUE(heap_reuse_wanted("glibc.malloc.arena_max=2"));
  EXPECT_TRUE(heap_reuse_wanted("glibc.malloc.hugetlb=0"));
  EXPECT_FALSE(heap_reuse_wanted("glibc.malloc.hugetlb=1"));
  EXPECT_FALSE(heap_reuse_wanted("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2"));
  EXPECT_TRUE(
      heap_reuse_wanted("glibc.malloc.hugetlb=1:glibc.malloc.hugetlb=0"));  // the last one counts
  // What the re-execution for huge pages sets turns reuse off.
  EXPECT_FALSE(heap_reuse_wanted(
      huge_page_tunables("glibc.malloc.arena_max=2", nullptr, 16, kMadvise)->c_str()));
}

}  // namespace
}  // namespace gpp::pipeline
