// Merging the headers of several alignment inputs read as one, as htsjdk's SamFileHeaderMerger
// does for GATK's tools given several -I:
//  - every input's @SQ lines must agree (names, lengths, order); the merged header has them;
//  - @RG lines: one per distinct line (same ID and the same tags, in any order), sorted by ID; a
//    line whose ID another input's different line already took is renamed ID.<n> (n in base 36,
//    counted over the merged lines as htsjdk counts), and that input's records follow it;
//  - @PG lines: the same, level by level down the PP chains (the renamed IDs followed in PP);
//  - @HD VN:1.6 GO:none SO: the inputs' sort order when they share one, else unsorted; the @CO
//    lines of every input.
//
// @code
//   io::HeaderMerge merge = io::merge_headers({a.header(), b.header()}, {"a.bam", "b.bam"});
//   merge.header;                          // what the records are read against
//   merge.read_group[1][k];                // b's read group k in merge.header
//   merge.read_group_id[1].at("rg1");      // b's RG:Z value rg1 as the merged header names it
// @endcode
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "io/reads/header.hpp"

namespace gpp::io {

struct HeaderMerge {
  Header header;
  /// Per input, per its read group (Header::read_groups() index), the merged header's index.
  std::vector<std::vector<std::int32_t>> read_group;
  /// Per input, per its library (Header::libraries() index), the merged header's index.
  std::vector<std::vector<std::int32_t>> library;
  /// Per input, each of its @RG and @PG IDs and the merged header's ID for it (itself unless
  /// renamed): SamFileHeaderMerger's translation tables.
  std::vector<std::map<std::string, std::string>> read_group_id;
  std::vector<std::map<std::string, std::string>> program_id;
  /// Whether some @RG (@PG) line is renamed. Then htsjdk's MergingSamRecordIterator sets every
  /// record's RG (PG) tag through the translation table of its input, which removes a value the
  /// input's header lacks.
  bool read_group_collisions = false;
  bool program_collisions = false;
};

/**
 * @brief The merged header of `headers`, which belong to the inputs `names` (for errors).
 * @throws gpp::Error naming the input whose @SQ lines differ from the first input's, or that
 *         holds two @RG or @PG lines of one ID
 */
HeaderMerge merge_headers(std::span<const Header> headers, std::span<const std::string> names);

/// htsjdk's SamFileHeaderMerger.positiveFourDigitBase36Str: `n` in base 36 (0-9, A-Z).
std::string base36(int n);

}  // namespace gpp::io
