// Read clipping as GATK's ReadClipper does it for HaplotypeCaller (ReadClipper, ClippingOp and the
// CIGAR edits of CigarUtils: clipCigar, alignmentStartShift, revertSoftClips).
//
// Every function returns a new read and leaves its argument alone (reads are taken by value: pass
// an rvalue to clip in place without a copy). A read clipped down to no
// bases becomes GATK's "empty read" (ReadUtils.emptyRead): no bases, qualities or CIGAR, the
// unmapped flag set and mapping quality 0; name, flag bits, positions and mate fields are kept.
// Hard clipping keeps the BI/BD arrays in step with the bases (a read that has one of them gets
// both, the missing one as GATK's default 45s). Reference positions are 0-based; a stop is
// inclusive where GATK's is, a region end is exclusive.
//
// @code
//   // read 10S10M at 100: reverted, it is 20M at 90
//   revert_soft_clipped_bases(read);
//   // read 101M at 100, reverse strand, mate at 150 (forward): bases before 149 are adaptor
//   hard_clip_adaptor_sequence(read);    // 50H51M at 150 (reference positions <= 149 clipped)
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/cigar.hpp"
#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

/// GATK ReadUtils.DEFAULT_INSERTION_DELETION_QUAL: BI/BD when the read has none.
inline constexpr std::uint8_t kDefaultIndelQuality = 45;

// ---- CIGAR edits (GATK CigarUtils) ----

/// CigarUtils.clipCigar: turns read bases [start, stop_exclusive) into `clip_op` (S or H); one of
/// the two ends of the range must be an end of the read. Deletions at the edge of the clip are
/// dropped, and the result is normalised by GatkCigarBuilder (stages/call/cigar_edit.hpp). @throws
/// gpp::Error as GatkCigarBuilder does.
std::vector<std::uint32_t> clip_cigar(std::span<const std::uint32_t> cigar, std::int64_t start,
                                      std::int64_t stop_exclusive, CigarOp clip_op);

/// CigarUtils.alignmentStartShift: how far right the alignment start moves when the first
/// `clipped_bases` read bases are clipped (deletions right after the clip included).
std::int64_t alignment_start_shift(std::span<const std::uint32_t> cigar,
                                   std::int64_t clipped_bases);

/// CigarUtils.revertSoftClips: every S becomes M, normalised by GatkCigarBuilder (10S10M10S10H ->
/// 30M10H).
std::vector<std::uint32_t> revert_soft_clips(std::span<const std::uint32_t> cigar);

// ---- reads (GATK ReadClipper) ----

/// GATK GATKRead.isEmpty: no bases.
inline bool is_empty(const CallRead& read) { return read.bases.empty(); }

/// ReadUtils.emptyRead: `read` with no bases, qualities or CIGAR, unmapped, mapping quality 0.
CallRead empty_read(CallRead read);

/// ClippingOp HARDCLIP_BASES on read bases [start, stop] (start == 0 clips the front, otherwise
/// the tail up to the end): bases, qualities, BI/BD and CIGAR cut, start moved by
/// alignment_start_shift when the front is clipped. Clipping every base gives empty_read().
CallRead hard_clip_bases(CallRead read, std::int64_t start, std::int64_t stop);

/// ReadClipper.hardClipSoftClippedBases: both soft-clipped ends become hard clips.
CallRead hard_clip_soft_clipped_bases(CallRead read);

/// ReadClipper.revertSoftClippedBases: soft clips become aligned bases and the start moves back
/// by the leading clip. Bases that would then lie before the contig start are hard-clipped and
/// the read starts at position 0 (GATK issues #3466, #3845).
CallRead revert_soft_clipped_bases(CallRead read);

/// ReadClipper.hardClipLowQualEnds: hard-clips the runs of bases with quality <= `low_quality`
/// at either end; a read with no base above it becomes empty.
CallRead hard_clip_low_qual_ends(CallRead read, std::uint8_t low_quality);

/// ReadClipper.softClipLowQualEnds (HaplotypeCaller's --soft-clip-low-quality-ends): as above
/// but soft-clipping, with ClippingOp's SOFTCLIP_BASES rules (reads of <= 2 bases are left
/// alone, at least one base stays aligned). @throws gpp::Error for an unmapped read.
CallRead soft_clip_low_qual_ends(CallRead read, std::uint8_t low_quality);

/// ReadClipper.hardClipByReferenceCoordinatesLeftTail: clips every base up to and including
/// reference position `reference_stop` (a stop inside a deletion keeps the deletion's right
/// side). Unchanged when the position is not within the read. @throws gpp::Error where GATK
/// throws (a clip that would land in the middle of the read).
CallRead hard_clip_left_tail(CallRead read, std::int64_t reference_stop);

/// ReadClipper.hardClipByReferenceCoordinatesRightTail: clips every base from reference position
/// `reference_start` on. Unchanged when the position is not within the read.
CallRead hard_clip_right_tail(CallRead read, std::int64_t reference_start);

/// ReadClipper.hardClipBothEndsByReferenceCoordinates: clips up to and including `left` and from
/// `right` on; empty if left == right or nothing is left.
CallRead hard_clip_both_ends(CallRead read, std::int64_t left, std::int64_t right);

/// ReadClipper.hardClipToRegion: clips the read to [region_start, region_end); empty when its
/// alignment does not overlap the region.
CallRead hard_clip_to_region(CallRead read, std::int64_t region_start, std::int64_t region_end);

/// ReadClipper.hardClipAdaptorSequence: clips the bases past adaptor_boundary() (reverse strand:
/// the left tail up to the boundary; forward: the right tail from it); unchanged when the
/// boundary is unknown or outside the alignment.
CallRead hard_clip_adaptor_sequence(CallRead read);

}  // namespace gpp::stages::call
