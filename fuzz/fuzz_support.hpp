// Shared by the libFuzzer targets: a scratch file for parsers that take a path, and the rule
// every target checks: a malformed input may only end in gpp::Error (the one-line message the
// command prints); anything else (a crash, a sanitizer report, another exception) is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace gpp::fuzz {

/// A file in $TMPDIR (or /tmp) named for this process, rewritten with each input and removed at
/// exit. `suffix` picks the format where a parser goes by the name (".bed", ".interval_list").
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& suffix) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/gpp-fuzz-" +
            std::to_string(::getpid()) + "-" + std::to_string(next_id()) + suffix;
  }
  /// The file named `other`'s path followed by `suffix` (an index beside its data: x.fa.fai).
  ScratchFile(const ScratchFile& other, const std::string& suffix) : path_(other.path_ + suffix) {}
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  /// Replaces the file's contents with `bytes`; returns its path.
  const std::string& write(std::string_view bytes) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr) std::abort();  // the harness, not the parser, failed
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
      std::abort();
    if (std::fclose(f) != 0) std::abort();
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  static int next_id() {
    static int id = 0;
    return id++;
  }
  std::string path_;
};

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `parse`; gpp::Error is the expected way to refuse an input, so it is swallowed.
template <typename F>
void expect_parsed_or_refused(F&& parse) {
  try {
    parse();
  } catch (const Error&) {
  }
}

}  // namespace gpp::fuzz
