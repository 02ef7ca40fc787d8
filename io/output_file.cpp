#include "io/output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace gpp::io {

namespace {
std::string temp_name_for(const std::string& final_path) {
  const std::filesystem::path p(final_path);
  // Same directory (rename stays atomic), hidden, unique per process.
  std::string name = ".";
  name += p.filename().string();
  name += ".tmp";
  name += std::to_string(::getpid());
  return (p.parent_path() / name).string();
}
}  // namespace

OutputFile::OutputFile(std::string final_path)
    : final_path_(std::move(final_path)), temp_path_(temp_name_for(final_path_)) {}

OutputFile::~OutputFile() {
  if (!committed_) std::remove(temp_path_.c_str());
}

void OutputFile::commit() {
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    throw Error(final_path_ + ": cannot move the finished output into place (" + reason + ")");
  }
  committed_ = true;
}

void check_output_writable(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw Error(path + ": cannot write output (directory " + dir.string() + " does not exist)");
  }
  if (!std::filesystem::is_directory(status)) {
    throw Error(path + ": cannot write output (" + dir.string() + " is not a directory)");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw Error(path + ": cannot write output (directory " + dir.string() + " is not writable)");
  }
}

namespace {

/// Whether two paths name the same file: the same inode when both exist, else the same path once
/// symbolic links of its existing part are resolved.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) {
    const bool equivalent = std::filesystem::equivalent(a, b, ec);
    if (!ec) return equivalent;
  }
  const auto canonical_a = std::filesystem::weakly_canonical(a, ec);
  if (ec) return a == b;
  const auto canonical_b = std::filesystem::weakly_canonical(b, ec);
  if (ec) return a == b;
  return canonical_a == canonical_b;
}

bool is_stream(const std::string& path) { return path.empty() || path == "-"; }

}  // namespace

void check_outputs_distinct(const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (is_stream(outputs[o])) continue;
    for (const std::string& input : inputs) {
      if (!is_stream(input) && same_file(outputs[o], input)) {
        throw Error(outputs[o] + ": the output is the input " + input +
                    " (it would be overwritten); choose another output name");
      }
    }
    for (std::size_t other = o + 1; other < outputs.size(); ++other) {
      if (!is_stream(outputs[other]) && same_file(outputs[o], outputs[other])) {
        throw Error(outputs[o] + ": given as two outputs (" + outputs[other] +
                    "); each output needs its own file");
      }
    }
  }
}

}  // namespace gpp::io
