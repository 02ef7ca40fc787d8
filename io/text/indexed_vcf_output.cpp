#include "io/text/indexed_vcf_output.hpp"

#include <htslib/bgzf.h>
#include <htslib/tbx.h>

#include "core/error.hpp"
#include "io/output_file.hpp"

namespace gpp::io {

void write_indexed_vcf(const std::string& path, const std::string& vcf_text) {
  check_output_writable(path);
  OutputFile output(path);
  OutputFile index(path + ".tbi");
  {
    BGZF* file = bgzf_open(output.temp_path().c_str(), "w");
    if (file == nullptr) throw Error(path + ": cannot create");
    const bool written =
        bgzf_write(file, vcf_text.data(), vcf_text.size()) == static_cast<ssize_t>(vcf_text.size());
    if (bgzf_close(file) != 0 || !written) throw Error(path + ": cannot write (disk full?)");
  }
  // min_shift 0 selects TBI (CSI otherwise), with tabix's VCF column layout.
  if (tbx_index_build3(output.temp_path().c_str(), index.temp_path().c_str(), 0, 1,
                       &tbx_conf_vcf) != 0) {
    throw Error(path +
                ": cannot build the tabix index (records not sorted by contig and position?)");
  }
  // The data first: an index older than its data draws a warning from HTSlib.
  output.commit();
  index.commit();
}

}  // namespace gpp::io
