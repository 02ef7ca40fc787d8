// Small text outputs (metrics files, tables) written whole, under a temporary name first.
#pragma once

#include <string>

namespace gpp::io {

/// Writes `text` to `path` atomically; throws gpp::Error naming `path` on failure.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace gpp::io
