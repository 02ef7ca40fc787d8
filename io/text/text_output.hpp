// Small text outputs (metrics files, tables) written whole, under a temporary name first.
#pragma once

#include <memory>
#include <string>

#include "io/output_file.hpp"

namespace gpp::io {

/// Writes `text` to `path` atomically; throws gpp::Error naming `path` on failure.
void write_text_file(const std::string& path, const std::string& text);

/// Writes `text` under `path`'s temporary name and returns it uncommitted: the caller commits it
/// once the command's other outputs are complete, so that all of them appear together (destroyed
/// uncommitted, it is removed). Throws gpp::Error naming `path` on failure.
std::unique_ptr<OutputFile> stage_text_file(const std::string& path, const std::string& text);

}  // namespace gpp::io
