#include "pipeline/log.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>

#include "kernels/error.hpp"

namespace gpp::pipeline::log {

namespace {
std::atomic<Level> current_level{Level::kInfo};

void emit(Level at, const char* label, const std::string& message) {
  if (at > current_level.load()) return;
  std::fprintf(stderr, "gpu-pipeline: %s%s\n", label, message.c_str());
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
Level level() { return current_level.load(); }

void error(const std::string& message) { emit(Level::kError, "error: ", message); }
void warning(const std::string& message) { emit(Level::kWarning, "warning: ", message); }
void info(const std::string& message) { emit(Level::kInfo, "", message); }
void debug(const std::string& message) { emit(Level::kDebug, "debug: ", message); }

}  // namespace gpp::pipeline::log
