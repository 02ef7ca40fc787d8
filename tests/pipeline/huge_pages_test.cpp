#include "pipeline/huge_pages.hpp"

#include <gtest/gtest.h>

#if defined(GPP_WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>
#endif

#include "pipeline/heap_reuse.hpp"

namespace gpp::pipeline {
namespace {

constexpr const char* kMadvise = "always [madvise] never";

std::optional<std::string> glibc(const char* current, const char* opt_out, unsigned cores,
                                 const std::string& mode) {
  return huge_page_setting(kGlibcHugePages, current, opt_out, cores, mode);
}

std::optional<std::string> jemalloc(const char* current, const char* opt_out, unsigned cores,
                                    const std::string& mode) {
  return huge_page_setting(kJemallocHugePages, current, opt_out, cores, mode);
}

TEST(HugePages, AddsTheTunableOnceOnManyCores) {
  EXPECT_EQ(glibc(nullptr, nullptr, 16, kMadvise), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(glibc(nullptr, nullptr, 8, "[always] madvise never"), "glibc.malloc.hugetlb=1");
  // The user's tunables are kept.
  EXPECT_EQ(glibc("glibc.malloc.arena_max=2", nullptr, 16, kMadvise),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  // Already named (by the first execution, or by the user with any value): no re-execution.
  EXPECT_FALSE(glibc("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", nullptr, 16, kMadvise));
  EXPECT_FALSE(glibc("glibc.malloc.hugetlb=0", nullptr, 16, kMadvise));
}

TEST(HugePages, AddsJemallocsOptionOnceOnManyCores) {
  EXPECT_EQ(jemalloc(nullptr, nullptr, 16, kMadvise), "thp:always");
  EXPECT_EQ(jemalloc("narenas:4", nullptr, 16, kMadvise), "narenas:4,thp:always");
  // metadata_thp is another option: thp is still to be set.
  EXPECT_EQ(jemalloc("metadata_thp:auto", nullptr, 16, kMadvise), "metadata_thp:auto,thp:always");
  EXPECT_FALSE(jemalloc("narenas:4,thp:always", nullptr, 16, kMadvise));
  EXPECT_FALSE(jemalloc("thp:never", nullptr, 16, kMadvise));  // the user's choice stands
  EXPECT_FALSE(jemalloc(nullptr, nullptr, 4, kMadvise));
}

TEST(HugePages, NotWhereTheyDoNotPay) {
  EXPECT_FALSE(glibc(nullptr, nullptr, 2, kMadvise));                   // few cores
  EXPECT_FALSE(glibc(nullptr, nullptr, 16, "always madvise [never]"));  // THP off
  EXPECT_FALSE(glibc(nullptr, nullptr, 16, ""));                        // no THP in the kernel
  EXPECT_FALSE(glibc(nullptr, "0", 16, kMadvise));                      // GPP_HUGE_PAGES=0
  EXPECT_EQ(glibc(nullptr, "1", 16, kMadvise), "glibc.malloc.hugetlb=1");
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
  EXPECT_FALSE(
      heap_reuse_wanted(glibc("glibc.malloc.arena_max=2", nullptr, 16, kMadvise)->c_str()));
}

#if defined(GPP_WITH_JEMALLOC)
ssize_t arena_decay(const char* name) {
  ssize_t value = -2;
  std::size_t size = sizeof value;
  EXPECT_EQ(mallctl(name, &value, &size, nullptr, 0), 0) << name;
  return value;
}

// A command held to --max-memory gives freed pages back within kBoundedDecayMilliseconds (not
// jemalloc's 10 s), in the arenas in use and in those to come.
TEST(HeapReuse, BoundedCommandsReturnJemallocsFreedPagesSoon) {
  EXPECT_EQ(&allocator_huge_pages(), &kJemallocHugePages);
  EXPECT_LE(kBoundedDecayMilliseconds, 1000);
  return_freed_memory();
  EXPECT_EQ(arena_decay("arenas.dirty_decay_ms"), kBoundedDecayMilliseconds);
  EXPECT_EQ(arena_decay("arenas.muzzy_decay_ms"), kBoundedDecayMilliseconds);
  EXPECT_EQ(arena_decay("arena.0.dirty_decay_ms"), kBoundedDecayMilliseconds);
}
#endif

}  // namespace
}  // namespace gpp::pipeline
