// The tabix index of a BGZF-compressed VCF, built while the file is written instead of by reading
// it back: the index `tabix -p vcf` (HTSlib tbx_index with tbx_conf_vcf, TBI format) would build
// from the same file, given the virtual offset just past each line as the reader's tell() would
// give it (the start of the next block where a line ends a block).
//
// Lines are located as tbx_parse1 locates them for VCF: CHROM names the sequence (numbered in the
// order of first appearance), the interval starts at POS - 1 and ends at POS - 1 + length(REF),
// or at INFO's END= where that is past POS - 1 (gVCF blocks). Lines starting with '#' are header.
//
// @code
//   TabixIndex index;
//   index.add_line(header_line, offset_after_header_line);
//   index.add_line("chr20\t100\t.\tA\t<NON_REF>\t.\t.\tEND=200\tGT\t0/0", offset_after_it);
//   index.save("out.g.vcf.gz.tbi", offset_at_end_of_data);
// @endcode
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct hts_idx_t;

namespace gpp::io {

class TabixIndex {
 public:
  TabixIndex();
  ~TabixIndex();
  TabixIndex(const TabixIndex&) = delete;
  TabixIndex& operator=(const TabixIndex&) = delete;

  /// One line of the file (without its newline) and the virtual offset just past it.
  /// @throws gpp::Error (starting "tabix index: ") for a record line tabix cannot place (fewer
  ///         than 8 columns, POS not a number) or a position before the previous one of its
  ///         sequence (records not sorted)
  void add_line(std::string_view line, std::uint64_t virtual_end);

  /// Finishes the index at `virtual_end_of_data` (the offset where the EOF block starts) and
  /// writes it (BGZF-compressed, as tabix does) to `path`.
  /// @throws gpp::Error naming `path` when it cannot be written
  void save(const std::string& path, std::uint64_t virtual_end_of_data);

 private:
  int sequence_id(std::string_view name);
  /// Makes the index at the first record (or at save() when there is none), as tbx_index does.
  void start_index();

  hts_idx_t* index_ = nullptr;
  std::uint64_t header_end_ = 0;  ///< offset after the last header line before the first record
  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> names_;  ///< by id
  int last_id_ = -1;                ///< the sequence of the last record
};

}  // namespace gpp::io
