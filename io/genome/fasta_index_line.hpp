// The tab-separated fields of a FASTA index (.fai) line: NAME, LENGTH, OFFSET, LINEBASES,
// LINEWIDTH (and QUALOFFSET for FASTQ), as views into the line.
#pragma once

#include <string_view>
#include <vector>

namespace gpp::io {

inline std::vector<std::string_view> fasta_index_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t from = 0;;) {
    const std::size_t tab = line.find('\t', from);
    fields.push_back(line.substr(from, tab == std::string_view::npos ? tab : tab - from));
    if (tab == std::string_view::npos) return fields;
    from = tab + 1;
  }
}

}  // namespace gpp::io
