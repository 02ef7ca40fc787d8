// Writing a VCF given as text: BGZF-compressed and indexed (TBI), as `bgzip` + `tabix -p vcf` do.
#pragma once

#include <string>

namespace gpp::io {

/// Writes `vcf_text` (a complete VCF: header and records, sorted by contig and position) to
/// `path` BGZF-compressed, then its tabix index `path`.tbi. Both appear only when complete (they
/// are written under temporary names first). Throws gpp::Error naming `path` when it cannot be
/// written or indexed (unsorted records, for example).
void write_indexed_vcf(const std::string& path, const std::string& vcf_text);

}  // namespace gpp::io
