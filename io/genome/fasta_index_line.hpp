// One line of a FASTA index (.fai) as `samtools faidx` writes it: NAME, LENGTH, OFFSET, LINEBASES,
// LINEWIDTH (and QUALOFFSET for FASTQ), tab-separated. Read by Reference (which refuses an index
// HTSlib would misread) and by PlainFasta (which reads bases through it).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpp::io {

struct FastaIndexEntry {
  std::string_view name;    ///< a view into the line
  std::int64_t length = 0;  ///< bases
  std::int64_t offset = 0;  ///< of the first base in the file
  std::int64_t line_bases = 0;
  std::int64_t line_bytes = 0;  ///< a full line's bytes, its end included
};

/// The entry of `line`, or nothing where HTSlib's faidx would misread it: fields not 5 or 6,
/// a number that is not a non-negative integer, bases or bytes per line beyond an int, a line of
/// 0 bases or fewer bytes than bases (unless LENGTH is 0: faidx divides by it), an empty name, a
/// name with white space or a NUL byte in the line (faidx reads it as C text).
std::optional<FastaIndexEntry> parse_fasta_index_line(std::string_view line);

}  // namespace gpp::io
