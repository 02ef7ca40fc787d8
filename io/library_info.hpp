// Facts about the I/O libraries this build runs with, and their global settings.
#pragma once

#include <string>

namespace gpp::io {

/// HTSlib version string, e.g. "1.16".
std::string htslib_version();

/// HTSlib prints its own diagnostics to stderr; we report errors ourselves in one line, so its
/// messages are shown only when debugging.
void set_htslib_diagnostics(bool show);

}  // namespace gpp::io
