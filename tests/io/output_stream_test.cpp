// open_output_stream: an output opened for writing from its start, truncated only when it holds
// something (an opening that truncates makes ext4 flush the file to the disk when it closes).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "io/output_file.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_and_close(std::FILE* file, const std::string& text) {
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(std::fwrite(text.data(), 1, text.size(), file), text.size());
  EXPECT_EQ(std::fclose(file), 0);
}

TEST(OutputStream, ReplacesWhatAFileHeld) {
  test::TempDir dir;
  const std::string path = dir.file("old.txt");
  std::ofstream(path) << "an older and longer text";
  write_and_close(open_output_stream(path), "new");
  EXPECT_EQ(contents(path), "new");
}

TEST(OutputStream, CreatesAMissingFile) {
  test::TempDir dir;
  const std::string path = dir.file("made.txt");
  write_and_close(open_output_stream(path), "made");
  EXPECT_EQ(contents(path), "made");
  EXPECT_EQ(open_output_stream(dir.file("no/such/directory.txt")), nullptr);
}

TEST(OutputStream, LeavesAnEmptyFileUntruncated) {
  // Opening with O_TRUNC sets a file's modification time even when it is empty; this opening
  // must not truncate, so the time set here stays.
  test::TempDir dir;
  const std::string path = dir.file("empty.txt");
  std::ofstream(path).close();
  const timespec old_times[2] = {{.tv_sec = 946684800, .tv_nsec = 0},
                                 {.tv_sec = 946684800, .tv_nsec = 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), old_times, 0), 0);
  std::FILE* file = open_output_stream(path);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(std::fclose(file), 0);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 946684800);
}

TEST(OutputStream, WritesAnOutputFilesUnnamedFile) {
  test::TempDir dir;
  const std::string path = dir.file("out.txt");
  {
    OutputFile output(path);
    write_and_close(open_output_stream(output.temp_path()), "complete");
    output.commit();
  }
  EXPECT_EQ(contents(path), "complete");
}

}  // namespace
}  // namespace gpp::io
