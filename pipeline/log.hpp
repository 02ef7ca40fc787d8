// Logging to stderr with levels (--verbosity ERROR|WARNING|INFO|DEBUG), and to a file with
// --logfile.
#pragma once

#include <string>

namespace gpp::pipeline::log {

enum class Level { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

/// Parses ERROR, WARNING, INFO or DEBUG (case-insensitive); throws gpp::Error otherwise.
Level parse_level(const std::string& text);
void set_level(Level level);
Level level();

/// Writes every line from now on to `path` as well (Parabricks' --logfile), a new file.
/// @throws gpp::Error naming the file when it cannot be created
void also_to_file(const std::string& path);

void error(const std::string& message);
void warning(const std::string& message);
void info(const std::string& message);
void debug(const std::string& message);

}  // namespace gpp::pipeline::log
