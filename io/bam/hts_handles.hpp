// RAII owners for HTSlib handles (io/ internal: only io/ includes HTSlib).
#pragma once

#include <htslib/faidx.h>
#include <htslib/hts.h>
#include <htslib/sam.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include <memory>

namespace gpp::io::hts {

struct FileCloser {
  void operator()(htsFile* fp) const {
    if (fp != nullptr) hts_close(fp);
  }
};
struct SamHeaderDeleter {
  void operator()(sam_hdr_t* h) const { sam_hdr_destroy(h); }
};
struct RecordDeleter {
  void operator()(bam1_t* b) const { bam_destroy1(b); }
};
struct FaidxDeleter {
  void operator()(faidx_t* fai) const { fai_destroy(fai); }
};
struct IndexDeleter {
  void operator()(hts_idx_t* idx) const { hts_idx_destroy(idx); }
};
struct TabixDeleter {
  void operator()(tbx_t* tbx) const { tbx_destroy(tbx); }
};
struct IteratorDeleter {
  void operator()(hts_itr_t* itr) const { hts_itr_destroy(itr); }
};
struct VcfHeaderDeleter {
  void operator()(bcf_hdr_t* h) const { bcf_hdr_destroy(h); }
};
struct VcfRecordDeleter {
  void operator()(bcf1_t* v) const { bcf_destroy(v); }
};

using File = std::unique_ptr<htsFile, FileCloser>;
using SamHeader = std::unique_ptr<sam_hdr_t, SamHeaderDeleter>;
using Record = std::unique_ptr<bam1_t, RecordDeleter>;
using Faidx = std::unique_ptr<faidx_t, FaidxDeleter>;
using Index = std::unique_ptr<hts_idx_t, IndexDeleter>;
using Tabix = std::unique_ptr<tbx_t, TabixDeleter>;
using Iterator = std::unique_ptr<hts_itr_t, IteratorDeleter>;
using VcfHeader = std::unique_ptr<bcf_hdr_t, VcfHeaderDeleter>;
using VcfRecord = std::unique_ptr<bcf1_t, VcfRecordDeleter>;

}  // namespace gpp::io::hts
