// ReaderOptions::free_read_bytes: a BAM file read for the last time gives its disk space back
// behind the reader (holes punched 64 MiB at a time), keeps its size, and reads as it does
// without the option.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "io/background_release.hpp"
#include "io/bam/alignment_reader.hpp"
#include "tests/io/record_lines.hpp"
#include "tests/test_support.hpp"

namespace gpp::io {
namespace {

// Whether `directory`'s file system can punch holes.
bool punches_holes(const std::string& directory) {
  const std::string path = directory + "/probe";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0) return false;
  const bool ok = ::ftruncate(fd, 1 << 20) == 0 &&
                  ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
  ::close(fd);
  std::filesystem::remove(path);
  return ok;
}

std::uint64_t allocated_bytes(const std::string& path) {
  struct stat status {};
  EXPECT_EQ(::stat(path.c_str(), &status), 0);
  return static_cast<std::uint64_t>(status.st_blocks) * 512;
}

std::string reads_of(const std::string& path, const ReaderOptions& options) {
  Header header;
  return test::record_lines(read_alignments(path, options, header));
}

TEST(FreeReadBytes, ReadFileGivesItsSpaceBackAndReadsTheSame) {
  test::TempDir dir;
  if (!punches_holes(dir.path().string())) GTEST_SKIP() << "no hole punching here";
  const std::string bam = dir.file("reads.bam");
  const auto generated = test::run_command(
      test::shell_quote(test::bench_generate_path()) + " " +
      test::shell_quote(test::data_path("grch38_chr20_10M/grch38.chr20_and_21_10M.fa.gz")) + " " +
      test::shell_quote(bam) + " 300000 --seed 5");
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  const std::uint64_t size = std::filesystem::file_size(bam);
  ASSERT_GT(size, std::uint64_t{70} << 20) << "the test wants more than one 64 MiB step";
  const std::string copy = dir.file("copy.bam");
  std::filesystem::copy_file(bam, copy);
  const std::uint64_t before = allocated_bytes(copy);
  const std::uint64_t original_before = allocated_bytes(bam);

  const std::string plain = reads_of(bam, {});
  const std::string freed = reads_of(copy, {.free_read_bytes = true});
  ASSERT_GT(plain.size(), 1000u);
  EXPECT_TRUE(freed == plain);
  EXPECT_EQ(std::filesystem::file_size(copy), size);
  wait_for_background_releases();  // the holes are punched on the releasing thread
  const std::uint64_t step = std::uint64_t{64} << 20;
  EXPECT_LE(allocated_bytes(copy) + size / step * step, before + (1 << 20));
  EXPECT_EQ(allocated_bytes(bam), original_before)
      << "the file read without the option keeps its space";
}

}  // namespace
}  // namespace gpp::io
