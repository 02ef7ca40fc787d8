#include "io/library_info.hpp"

#include <htslib/hts.h>
#include <htslib/hts_log.h>

namespace gpp::io {

std::string htslib_version() { return hts_version(); }

void set_htslib_diagnostics(bool show) { hts_set_log_level(show ? HTS_LOG_WARNING : HTS_LOG_OFF); }

}  // namespace gpp::io
