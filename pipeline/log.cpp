#include "pipeline/log.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace gpp::pipeline::log {

namespace {
std::atomic<Level> current_level{Level::kInfo};
// Debug lines carry the seconds since the process started and its resident memory, to place
// them on a timeline.
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

/// --logfile's, or null; open until the process ends (a line is written whole, as stderr's).
std::atomic<std::FILE*> log_file{nullptr};

void emit(Level at, const char* label, const std::string& message) {
  if (at > current_level.load()) return;
  std::fprintf(stderr, "gpu-pipeline: %s%s\n", label, message.c_str());
  if (std::FILE* file = log_file.load()) {
    std::fprintf(file, "gpu-pipeline: %s%s\n", label, message.c_str());
    std::fflush(file);
  }
}

// Resident memory of the process in GB (0 where /proc is missing).
double resident_gb() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const bool read = std::fscanf(statm, "%lu %lu", &size, &resident) == 2;
  std::fclose(statm);
  return read ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e9
              : 0;
}
}  // namespace

Level parse_level(const std::string& text) {
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "ERROR") return Level::kError;
  if (upper == "WARNING" || upper == "WARN") return Level::kWarning;
  if (upper == "INFO") return Level::kInfo;
  if (upper == "DEBUG") return Level::kDebug;
  throw Error("--verbosity: '" + text + "' is not one of ERROR, WARNING, INFO, DEBUG");
}

void set_level(Level level) { current_level.store(level); }

void also_to_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    throw Error(path + ": cannot create the log file: " + std::strerror(errno));
  }
  if (std::FILE* previous = log_file.exchange(file)) std::fclose(previous);
}
Level level() { return current_level.load(); }

void error(const std::string& message) { emit(Level::kError, "error: ", message); }
void warning(const std::string& message) { emit(Level::kWarning, "warning: ", message); }
void info(const std::string& message) { emit(Level::kInfo, "", message); }
void debug(const std::string& message) {
  if (Level::kDebug > current_level.load()) return;
  char stamp[48];
  std::snprintf(
      stamp, sizeof stamp, "[%.2f s, %.2f GB] ",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - process_start).count(),
      resident_gb());
  emit(Level::kDebug, "debug: ", stamp + message);
}

}  // namespace gpp::pipeline::log
