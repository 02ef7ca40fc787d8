// Read ends: the duplicate-marking key of each fragment and each pair, as Picard MarkDuplicates
// builds them (picard.sam.markduplicates.util.ReadEndsForMarkDuplicates), one row per end.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/phase_times.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "kernels/device/device.hpp"
#include "stages/markdup/end_features.hpp"

namespace gpp::stages::markdup {

/// Orientation codes (Picard ReadEnds): single ends F/R, pairs by (read1 strand, read2 strand).
enum Orientation : std::int8_t { kF = 0, kR = 1, kFF = 2, kFR = 3, kRR = 4, kRF = 5 };

struct ReadEnd {
  std::int32_t library = 0;  ///< library key (equal = same library)
  std::int32_t read1_ref = -1;
  std::int32_t read1_coord = -1;  ///< 1-based unclipped 5' position
  std::int8_t orientation = kF;
  std::int8_t optical_orientation = -1;  ///< pair strands by first-of-pair then second-of-pair
  std::int32_t read2_ref = -1;  ///< for fragments: the mate's reference when the mate is mapped
  std::int32_t read2_coord = -1;
  ClusterLocation location;      ///< tile -1 when the name did not parse
  std::int16_t read_group = -1;  ///< index of the read group in the header (optical duplicates)
  std::int16_t score = 0;        ///< SUM_OF_BASE_QUALITIES, as a Java short
  std::int64_t read1_index =
      -1;  ///< index in file: coordinate order, or the template's (queryname)
  std::int64_t read2_index = -1;
  bool is_paired() const { return read2_ref != -1; }
};

/// Millions of ends: resize() leaves them unconstructed, every one is assigned whole.
using ReadEndArray = std::vector<ReadEnd, io::UninitializedAllocator<ReadEnd>>;

struct ReadEndLists {
  ReadEndArray fragments;  ///< in coordinate order
  ReadEndArray pairs;      ///< in no particular order (sort_read_ends orders them)
};

/// Whether a record makes a read end: mapped and primary (Picard skips the others).
inline bool makes_read_end(std::uint16_t flag) {
  return !(flag & io::flag::kUnmapped) &&
         !(flag & (io::flag::kSecondary | io::flag::kSupplementary));
}

/// Whether a read end may pair: its record is paired and its mate mapped.
inline bool may_pair(std::uint16_t flag) {
  return (flag & io::flag::kPaired) && !(flag & io::flag::kMateUnmapped);
}

/// The fragment end of record `i` of `reads` (one that makes_read_end), with its library key and
/// features, `index_in_file` its Picard index.
ReadEnd fragment_end(const io::ReadBatch& reads, std::size_t i,
                     std::span<const std::int32_t> libraries, const EndFeatures& features,
                     std::int64_t index_in_file);

/// Fragment ends that may pair, in visiting order, with their records' name hashes, flags and
/// names: what pair_ends matches.
struct PairCandidates {
  ReadEndArray ends;
  io::Column<std::uint64_t> name_hash;
  io::Column<std::uint16_t> flag;
  io::Column<std::uint64_t> name_offset{0};  ///< name k: [name_offset[k], name_offset[k + 1])
  std::string names;

  std::size_t size() const { return ends.size(); }
  void add(const ReadEnd& end, std::uint64_t hash, std::uint16_t record_flag,
           std::string_view name) {
    ends.push_back(end);
    name_hash.push_back(hash);
    flag.push_back(record_flag);
    names.append(name);
    name_offset.push_back(names.size());
  }
};

/// The pairs among `candidates` by the rule build_read_ends applies (Picard's, in visiting
/// order within each name), in no particular order.
ReadEndArray pair_ends(const PairCandidates& candidates, kernels::Backend backend);

/// Library key of each record: its read group's LB, with reads lacking either sharing
/// "Unknown Library" (Picard's LibraryIdGenerator.getLibraryName). Keys index `names`.
std::vector<std::int32_t> library_keys(const io::ReadBatch& reads, const io::Header& header,
                                       std::vector<std::string>& names);

/**
 * @brief Builds fragment and pair ends from `reads` visited in `order`, with the `features` of
 * `reads`.
 *
 * Coordinate order (`template_index` empty): an end's index in file is its position in `order`;
 * records after the first unplaced unmapped one make no ends. Queryname-grouped input (`order` is
 * the input order and `template_index[k]` the index of the first record of record k's name run):
 * an end's index in file is its template's. Either way mates pair when the later one lies on the
 * reference the earlier one names; unmapped, secondary and supplementary records make no ends.
 * Candidates for pairs are grouped by a sort of name hashes on `backend`.
 */
ReadEndLists build_read_ends(const io::ReadBatch& reads, std::span<const std::uint32_t> order,
                             std::span<const std::int32_t> libraries, const EndFeatures& features,
                             std::span<const std::uint32_t> template_index = {},
                             kernels::Backend backend = kernels::Backend::kCpu,
                             PhaseTimes* times = nullptr);

/// Sorts ends into Picard's ReadEndsMDComparator order (library, read1 ref/coord, orientation,
/// read2 ref/coord, tile, x, y, read1/read2 index) with stable key sorts on `backend`.
void sort_read_ends(ReadEndArray& ends, kernels::Backend backend);

}  // namespace gpp::stages::markdup
