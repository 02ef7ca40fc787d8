// The per-read transforms BaseRecalibrator applies before counting (GATK
// BaseRecalibrationEngine.makeReadTransform): with -OQ the OQ tag's qualities, consolidate the
// CIGAR, hard-clip the adaptor (ReadClipper.hardClipAdaptorSequence) and the soft-clipped bases
// (ReadClipper.hardClipSoftClippedBases); and the read-coordinate arithmetic they and the
// known-site mask share (ReadUtils.getReadCoordinateForReferenceCoordinate).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/cigar.hpp"
#include "io/reads/read_batch.hpp"
#include "stages/bqsr/known_site_index.hpp"

namespace gpp::stages::bqsr {

/// -OQ (--use-original-qualities; ReadUtils.resetOriginalBaseQualities): record i's OQ qualities
/// written to `quals` when it has an OQ:Z; `quals` left as it is otherwise.
/// @throws gpp::Error naming the read when its OQ does not have one quality per base
void substitute_original_qualities(const io::ReadBatch& reads, std::size_t i, std::uint8_t* quals);

/// -OQ for BaseRecalibrator: every record's qualities replaced by its OQ's, in place (ApplyBQSR
/// with -OQ recalibrates those same qualities, so `run` keeps them).
/// @throws gpp::Error as the function above
void substitute_original_qualities(io::ReadBatch& reads);

/// AlignmentUtils.consolidateCigar: adjacent equal operations merged, zero-length ones dropped.
std::vector<std::uint32_t> consolidate_cigar(std::span<const std::uint32_t> cigar);

/// A read after the recalibration transforms: bases [first, first + length) of the original read,
/// aligned at `start` (0-based) with `cigar` (no clipping operations left).
struct ClippedRead {
  int first = 0;
  int length = 0;
  std::int64_t start = 0;
  std::vector<std::uint32_t> cigar;
  bool leading_hard_clip =
      false;  ///< GATK's CIGAR for the read starts with H (clipped, or H in the input)
  bool trailing_hard_clip = false;  ///< ... ends with H
  bool empty() const { return length == 0; }
};

/// Consolidates the CIGAR of mapped record `i`, then clips the adaptor and the soft clips.
ClippedRead clip_for_recalibration(const io::ReadBatch& reads, std::size_t i);

enum class ClippingTail { kLeft, kRight };
/// ReadUtils.CLIPPING_GOAL_NOT_REACHED.
inline constexpr int kGoalNotReached = -1;

/**
 * @brief ReadUtils.getReadCoordinateForReferenceCoordinate(softStart, cigar, refCoord, tail,
 * allow): the read offset of 1-based reference position `ref` for a read whose first base (soft
 * clips counted as aligned) is at `soft_start` (1-based). Inside or just before a deletion it gives
 * the last base before it (plus one for the right tail); a left-tail answer of 0 on a read that
 * starts with an insertion skips the insertion. kGoalNotReached when `ref` is outside the read
 * and `allow_not_reached`; throws gpp::Error otherwise.
 */
int read_coordinate_for_reference(std::int64_t soft_start, std::span<const std::uint32_t> cigar,
                                  std::int64_t ref, ClippingTail tail, bool allow_not_reached);

/**
 * @brief BaseRecalibrationEngine.calculateKnownSites on the clipped read: every site overlapping
 * the read marks read offsets from its first to its last reference base (left-tail coordinates;
 * 0 when it starts before the read, the read end when it ends after it), inclusive.
 * @param sites  known sites on the read's contig
 */
void known_site_mask(const ClippedRead& read, const KnownSiteIndex& sites,
                     std::vector<std::uint8_t>& mask);

/// The same mask as half-open read-offset ranges [first, second), one per overlapping site that
/// masks at least one base (ranges may overlap), in order of the sites' starts.
void known_site_ranges(const ClippedRead& read, const KnownSiteIndex& sites,
                       std::vector<std::pair<int, int>>& ranges);

}  // namespace gpp::stages::bqsr
