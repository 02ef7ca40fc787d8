// A mapped input truncated by another program while it is read: one error line naming the file,
// exit code 1 and no temporary output left, instead of a SIGBUS crash.
#include "io/mapped_input.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/output_file.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

constexpr std::size_t kBytes = 3 << 16;  // several pages

std::string file_of_bytes(const test::TempDir& dir) {
  const std::string path = dir.file("input.bin");
  std::ofstream(path, std::ios::binary) << std::string(kBytes, 'x');
  return path;
}

TEST(MappedInput, MapsTheWholeFile) {
  test::TempDir dir;
  const std::string path = file_of_bytes(dir);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  {
    MappedInput map(fd, kBytes, path);
    ASSERT_NE(map.data(), nullptr);
    EXPECT_EQ(map.size(), kBytes);
    EXPECT_EQ(map.data()[0], 'x');
    EXPECT_EQ(map.data()[kBytes - 1], 'x');
  }
  MappedInput empty(fd, 0, path);
  EXPECT_EQ(empty.data(), nullptr);
  ::close(fd);
}

// Reads the mapping after the file was cut to nothing: the process must end as described.
void read_after_truncation(const std::string& path, const std::string& temporary_output) {
  OutputFile output(temporary_output);
  std::ofstream(output.temp_path()) << "partial";
  const int fd = ::open(path.c_str(), O_RDONLY);
  MappedInput map(fd, kBytes, path);
  if (map.data() == nullptr) std::_Exit(3);
  ::truncate(path.c_str(), 0);
  volatile std::uint8_t byte = map.data()[kBytes - 100];  // SIGBUS
  (void)byte;
  std::_Exit(2);  // not reached
}

TEST(MappedInputDeathTest, TruncatedWhileMappedIsAnErrorNamingTheFile) {
  // Forked (not re-executed), so that the child sees this test's files.
  GTEST_FLAG_SET(death_test_style, "fast");
  test::TempDir dir;
  const std::string path = file_of_bytes(dir);
  const std::string output = dir.file("out.bam");
  EXPECT_EXIT(read_after_truncation(path, output), ::testing::ExitedWithCode(1),
              "^gpu-pipeline: error: " + path + ": the file was truncated while being read\n$");
  // The temporary output the dead process was writing is gone with it.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"input.bin"});
}

TEST(MappedInputDeathTest, OtherBusErrorsKeepTheirDefaultAction) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test::TempDir dir;
  const std::string path = file_of_bytes(dir);
  const int fd = ::open(path.c_str(), O_RDONLY);
  MappedInput map(fd, kBytes, path);  // the handler is installed
  ::close(fd);
  EXPECT_EXIT(std::raise(SIGBUS), ::testing::KilledBySignal(SIGBUS), "");
}

}  // namespace
}  // namespace gpp::io
