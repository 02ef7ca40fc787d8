// Reading a small text input whole, plain or gzip/BGZF-compressed (e.g. a GATK recalibration
// table, which GATK 3 test data ships gzipped).
#pragma once

#include <string>

namespace gpp::io {

/// The decompressed contents of `path`; throws gpp::Error naming `path` when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace gpp::io
