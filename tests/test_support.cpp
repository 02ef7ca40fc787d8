#include "tests/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "kernels/device/device.hpp"

namespace gpp::test {

namespace fs = std::filesystem;

std::string data_path(const std::string& relative) {
  const char* env = std::getenv("GPP_TEST_DATA");
  const fs::path root = env != nullptr ? fs::path(env) : fs::path(GPP_SOURCE_TEST_DATA);
  return (root / relative).string();
}

std::string binary_path() {
  const char* env = std::getenv("GPP_BINARY");
  return env != nullptr ? std::string(env) : std::string(GPP_BUILD_BINARY);
}

std::string bench_generate_path() {
  if (const char* env = std::getenv("GPP_BENCH_GENERATE")) return env;
  const fs::path beside = fs::path(binary_path()).parent_path() / "bench_generate";
  std::error_code ec;
  if (fs::exists(beside, ec)) return beside.string();
  return GPP_BENCH_GENERATE;
}

TempDir::TempDir() {
  std::random_device rd;
  const fs::path base = fs::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path candidate =
        base / ("gpp-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    if (fs::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary directory");
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(path_))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CommandResult run_command(const std::string& command) {
  TempDir capture;
  const std::string out_file = capture.file("stdout");
  const std::string err_file = capture.file("stderr");
  const std::string full = command + " >" + shell_quote(out_file) + " 2>" + shell_quote(err_file);
  const int status = std::system(full.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out_file);
  result.err = read_file(err_file);
  return result;
}

bool gpu_available() { return !kernels::detect_gpus().empty(); }

std::vector<std::string> data_files_with_suffix(const std::string& suffix) {
  std::vector<std::string> files;
  const fs::path bad = fs::path(data_path("bad"));  // malformed on purpose: tested on their own
  for (auto it = fs::recursive_directory_iterator(data_path("")); it != fs::end(it); ++it) {
    const auto& entry = *it;
    if (entry.is_directory() && entry.path() == bad) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string p = entry.path().string();
    if (entry.is_regular_file() && p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string bam_text_without_programs(const std::string& path) {
  const CommandResult r =
      run_command("samtools view -h " + shell_quote(path) + " | grep -v '^@PG'");
  EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
  return r.out;
}

std::string text_without_comments(const std::string& path, const std::string& comment_start) {
  return run_command("gzip -cdf " + shell_quote(path) + " | grep -v '^" + comment_start + "'").out;
}

}  // namespace gpp::test
