// Where a read lies, as GATK's read accessors and ReadUtils compute it: mapped state
// (GATKRead.isUnmapped / mateIsUnmapped), the adaptor boundary (ReadUtils.getAdaptorBoundary,
// hasWellDefinedFragmentSize), the read index of a reference position
// (ReadUtils.getReadIndexForReferenceCoordinate, via stages/call/cigar_edit.hpp),
// AlignmentUtils.unclippedReadLength and ReadUtils.getSAMFlagsForRead.
//
// Coordinates are 0-based. Where GATK uses its inclusive alignment end (getEnd), this code uses
// alignment_stop() = CallRead::end() - 1; all of GATK's comparisons are shift-invariant, so the
// rules carry over unchanged.
//
// @code
//   // forward read at 998 (0-based), TLEN 10, mate reverse at 999: the adaptor starts at 1008
//   adaptor_boundary(read) == 1008
//   read_index_at_reference(read, read.start).index == the length of the leading soft clip
// @endcode
#pragma once

#include <cstdint>
#include <optional>

#include "core/cigar.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/cigar_edit.hpp"

namespace gpp::stages::call {

/// GATK isUnmapped: the unmapped flag, or no contig, or no position.
bool is_unmapped(const CallRead& read);
/// GATK mateIsUnmapped (asked of paired reads): the mate-unmapped flag, or no mate contig or
/// position (CallRead::mate_is_unmapped() looks at the flag only).
bool gatk_mate_is_unmapped(const CallRead& read);
/// GATK getEnd: the last reference base the alignment covers (0-based, inclusive); start - 1 for
/// an alignment that covers no reference base.
inline std::int64_t alignment_stop(const CallRead& read) { return read.end() - 1; }

/// GATK ReadUtils.hasWellDefinedFragmentSize: TLEN != 0, paired, read and mate mapped, on
/// opposite strands, and the read not past its fragment (reverse: alignment stop > mate start;
/// forward: start <= mate start + TLEN).
bool has_well_defined_fragment_size(const CallRead& read);

/// GATK ReadUtils.getAdaptorBoundary: the first reference position inside the adaptor, next to
/// the read (reverse strand: mate start - 1; forward: start + |TLEN|), or nullopt where GATK
/// returns CANNOT_COMPUTE_ADAPTOR_BOUNDARY (no well-defined fragment size).
std::optional<std::int64_t> adaptor_boundary(const CallRead& read);

/// GATK ReadUtils.getReadIndexForReferenceCoordinate(read, position): the index into the read's
/// bases of reference position `reference_position`, soft clips counted as aligned from the
/// read's soft start; inside a deletion or skip, the index of the base after it
/// (stages/call/cigar_edit.hpp holds the rule).
inline ReadIndexAtReference read_index_at_reference(const CallRead& read,
                                                    std::int64_t reference_position) {
  return read_index_for_reference_coordinate(read.soft_start(), read.cigar, reference_position);
}

/// GATK AlignmentUtils.unclippedReadLength: bases minus soft-clipped bases.
std::int64_t unclipped_read_length(const CallRead& read);

/// GATK Locatable.overlaps for a read: same contig, and [start, alignment stop] meets
/// [span_start, span_end) (0-based, end exclusive).
bool overlaps(const CallRead& read, std::int32_t contig, std::int64_t span_start,
              std::int64_t span_end);

/// GATK ReadUtils.getSAMFlagsForRead: the SAM flag rebuilt from the read's properties (mate bits
/// only for paired reads, strand bits only where mapped, pair-order bits only when paired).
std::uint16_t gatk_sam_flags(const CallRead& read);

}  // namespace gpp::stages::call
