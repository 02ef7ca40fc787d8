// io/background_release: what is handed over runs on one thread in the order given, a descriptor
// handed over is closed, and a hole punched through a descriptor the caller closed at once gives
// the space back.
#include "io/background_release.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

TEST(BackgroundRelease, RunsWhatItIsGivenInOrderOnOneThread) {
  std::mutex mutex;
  std::vector<int> order;
  std::set<std::thread::id> threads;
  for (int k = 0; k < 200; ++k) {
    release_in_background([&, k] {
      std::lock_guard lock(mutex);
      order.push_back(k);
      threads.insert(std::this_thread::get_id());
    });
  }
  wait_for_background_releases();
  std::lock_guard lock(mutex);
  ASSERT_EQ(order.size(), 200u);
  for (int k = 0; k < 200; ++k) EXPECT_EQ(order[static_cast<std::size_t>(k)], k);
  EXPECT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u) << "not the caller's thread";
}

TEST(BackgroundRelease, ClosesTheDescriptorItIsGiven) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  close_in_background(ends[1]);
  wait_for_background_releases();
  char byte = 0;
  EXPECT_EQ(::read(ends[0], &byte, 1), 0) << "the writing end is closed: end of file";
  ::close(ends[0]);
}

TEST(BackgroundRelease, PunchesAHoleThroughItsOwnDescriptor) {
  test::TempDir dir;
  const std::string path = dir.file("data");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  const std::vector<char> block(std::size_t{1} << 20, 'x');
  for (int k = 0; k < 16; ++k) ASSERT_EQ(::write(fd, block.data(), block.size()), 1 << 20);
  ASSERT_EQ(::fsync(fd), 0);
  struct stat before {};
  ASSERT_EQ(::fstat(fd, &before), 0);
  if (::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) != 0) {
    ::close(fd);
    GTEST_SKIP() << "no hole punching here";
  }
  punch_hole_in_background(fd, 0, std::uint64_t{12} << 20);
  ::close(fd);  // the releasing thread holds a descriptor of its own
  wait_for_background_releases();
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_size, std::int64_t{16} << 20) << "the size is kept";
  EXPECT_LE(static_cast<std::uint64_t>(after.st_blocks) * 512, (std::uint64_t{4} << 20) + 65536);
  EXPECT_GE(static_cast<std::uint64_t>(before.st_blocks) * 512, std::uint64_t{16} << 20);
}

}  // namespace
}  // namespace gpp::io
