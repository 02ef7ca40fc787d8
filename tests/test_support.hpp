// Helpers shared by the tests: where the test data and the executable are, temporary
// directories, running commands (peer tools and gpu-pipeline itself), GPU presence.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace gpp::test {

/// Path of a file under tests/data ($GPP_TEST_DATA overrides the source-tree location, so a
/// relocated bundle finds its copy).
std::string data_path(const std::string& relative);

/// Path of the gpu-pipeline executable ($GPP_BINARY overrides the build-tree location).
std::string binary_path();

/// Path of the bench_generate executable: $GPP_BENCH_GENERATE, else beside gpu-pipeline (a
/// bundle), else the build-tree location.
std::string bench_generate_path();

/// Whether these tests (and the binaries they run) are built with AddressSanitizer, which reserves
/// terabytes of address space and holds freed memory in quarantine: limits on memory do not apply.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang's way of saying it
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

/// A fresh directory removed with its contents at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Names of the entries in the directory.
  std::vector<std::string> entries() const;

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `command` through /bin/sh, capturing stdout and stderr.
CommandResult run_command(const std::string& command);

/// A BAM's records and header as `samtools view -h` prints them, without the @PG lines (they hold
/// the command line).
std::string bam_text_without_programs(const std::string& path);

/// A text file, gzipped or not, without the lines starting with `comment_start` (dates, command
/// lines).
std::string text_without_comments(const std::string& path, const std::string& comment_start);

/// The lines of `text`, without their newlines.
std::vector<std::string> lines_of(const std::string& text);

/// `text` cut at each `separator` (a VCF line's fields with '\t'); no part after a final one.
std::vector<std::string> split(const std::string& text, char separator);

/// The bytes of the file at `path` (empty when it cannot be read).
std::string read_file(const std::string& path);

/// Single-quotes `text` for /bin/sh.
std::string shell_quote(const std::string& text);

/// True when a usable GPU is present (and the build has CUDA).
bool gpu_available();

/// Every file below tests/data whose name ends with `suffix`, sorted; tests/data/bad (malformed
/// inputs) excluded.
std::vector<std::string> data_files_with_suffix(const std::string& suffix);

/// Fixture of the GPU suites (names ending in "Gpu", CTest label `gpu`): each test is skipped
/// where no GPU is usable, so the CPU suite runs anywhere and `ctest -L gpu` on a GPU host.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no usable GPU";
  }
};

}  // namespace gpp::test
