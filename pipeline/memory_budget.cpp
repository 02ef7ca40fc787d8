#include "pipeline/memory_budget.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/output_file.hpp"
#include "kernels/bgzf/bgzf_deflate.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"
#include "kernels/device/device.hpp"

namespace gpp::pipeline {

namespace {

// The first number of a one-line file (cgroup v2 memory.max reads "max" when unlimited).
bool read_number(const std::string& path, std::uint64_t& value) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  value = std::stoull(text);
  return true;
}

std::uint64_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace

std::uint64_t parse_memory_size(const std::string& text, const std::string& option) {
  const std::string usage = option + ": '" + text + "' is not a size (e.g. 768M, 2G)";
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    throw Error(usage);
  }
  const std::string unit = text.substr(used);
  double scale = 1;
  if (unit == "K" || unit == "k")
    scale = 1024.0;
  else if (unit == "M" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty())
    throw Error(usage);
  if (!(value > 0)) throw Error(option + ": '" + text + "' must be positive");
  return static_cast<std::uint64_t>(value * scale);
}

std::uint64_t available_memory() {
  std::uint64_t available = meminfo_available();
  std::uint64_t limit = 0, used = 0;
  if (read_number("/sys/fs/cgroup/memory.max", limit) &&
      read_number("/sys/fs/cgroup/memory.current", used)) {
    const std::uint64_t room = limit > used ? limit - used : 0;
    if (available == 0 || room < available) available = room;
  }
  return available;
}

std::uint64_t memory_limit(const CommonOptions& common) {
  if (!common.max_memory.empty()) return parse_memory_size(common.max_memory);
  // Decided once: every phase of a command sizes itself to the same budget.
  static const std::uint64_t by_default = [] {
    const std::uint64_t available = available_memory();
    return available > 0 ? available / 4 * 3 : std::uint64_t{8} << 30;
  }();
  return by_default;
}

std::uint64_t decoder_host_bytes(std::uint64_t limit) {
  constexpr std::uint64_t kPartBytes = 2 * kernels::BlockInflater::kPartStreamBytes;
  const std::uint64_t parts =
      std::min<std::uint64_t>(limit / 16 / kPartBytes, kernels::BlockInflater::kMaxGpuParts);
  return parts >= 2 ? parts * kPartBytes : 0;
}

std::uint64_t encoder_host_bytes(std::uint64_t limit) {
  return std::min<std::uint64_t>(limit / 8, kernels::BlockDeflater::kMostGpuHostBytes);
}

std::uint64_t memory_budget(const CommonOptions& common) {
  const std::uint64_t limit = memory_limit(common);
  const bool gpu_may_be_used =
      kernels::parse_device_choice(common.device) != kernels::DeviceChoice::kCpu &&
      kernels::gpu_device_nodes_present();
  if (!gpu_may_be_used) return limit;
  const std::uint64_t set_aside = (common.gpu_read ? decoder_host_bytes(limit) : 0) +
                                  (common.gpu_write ? encoder_host_bytes(limit) : 0);
  return limit - set_aside;  // at most 3/16 of the limit
}

std::string temporary_directory(const CommonOptions& common, const std::string& output) {
  if (!common.tmp_dir.empty()) return common.tmp_dir;
  if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir != '\0')
    return tmpdir;
  if (io::is_streamed_output(output)) return ".";
  const std::filesystem::path parent = std::filesystem::path(output).parent_path();
  return parent.empty() ? "." : parent.string();
}

namespace {

// Memory the records of `input` take when held, at `bytes_per_bam_byte`; none when its size is
// not known.
std::optional<double> held_bytes(const std::string& input, double bytes_per_bam_byte) {
  if (input == io::kStandardInput) return std::nullopt;
  std::error_code ec;
  const auto status = std::filesystem::status(input, ec);
  if (ec || !std::filesystem::is_regular_file(status)) return std::nullopt;
  const double size = static_cast<double>(std::filesystem::file_size(input, ec));
  if (ec) return std::nullopt;
  const std::string extension = std::filesystem::path(input).extension().string();
  const double per_byte = extension == ".cram"  ? 2 * bytes_per_bam_byte
                          : extension == ".sam" ? bytes_per_bam_byte / 3
                                                : bytes_per_bam_byte;
  return size * per_byte;
}

}  // namespace

bool fits_in_memory(const std::string& input, std::uint64_t budget, double bytes_per_bam_byte) {
  return fits_in_memory(std::span<const std::string>(&input, 1), budget, bytes_per_bam_byte);
}

bool fits_in_memory(std::span<const std::string> inputs, std::uint64_t budget,
                    double bytes_per_bam_byte) {
  double total = 0;
  for (const std::string& input : inputs) {
    const std::optional<double> bytes = held_bytes(input, bytes_per_bam_byte);
    if (!bytes) return false;
    total += *bytes;
  }
  return total <= static_cast<double>(budget);
}

std::size_t read_ahead_bytes(std::uint64_t budget) {
  return static_cast<std::size_t>(
      std::clamp<std::uint64_t>(budget / 128, std::uint64_t{1} << 20, std::uint64_t{16} << 20));
}

std::uint64_t peak_resident_memory() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
}

std::string format_bytes(std::uint64_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (bytes >= (std::uint64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", b / (1 << 30));
  else
    std::snprintf(text, sizeof text, "%.0f MiB", b / (1 << 20));
  return text;
}

}  // namespace gpp::pipeline
