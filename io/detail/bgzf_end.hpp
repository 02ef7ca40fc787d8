#pragma once
// The truncation check every BGZF input gets before it is read.

#include <htslib/bgzf.h>
#include <htslib/hts.h>

#include <string>

#include "core/error.hpp"

namespace gpp::io::detail {

/// A BGZF file that lost its tail still decodes up to the cut: refuse it rather than lose its
/// end. A stream cannot be looked at from its end (HTSlib answers 2) and passes here.
/// @throws gpp::Error naming `path` when the end-of-file marker is missing
inline void require_bgzf_end_marker(BGZF* file, const std::string& path) {
  if (bgzf_compression(file) == bgzf && bgzf_check_EOF(file) == 0) {
    throw Error(path + ": the BGZF end-of-file marker is missing: the file is truncated");
  }
}

}  // namespace gpp::io::detail
