// The reads of one assembly region as HaplotypeCaller prepares them: finalisation before assembly
// (AssemblyBasedCallerUtils.finalizeRegion), the trim to the genotyping region
// (AssemblyRegion.trim), and the reads kept for genotyping (HaplotypeCallerEngine.callRegion's
// removal of read stubs, then filterNonPassingReads). Reads are ordered as GATK's
// ReadCoordinateComparator orders them (a stable sort, as Java's List.sort).
//
// finalize_region_reads, per read, in GATK's order:
//   1. soft clips reverted (used as sequence), unless --dont-use-soft-clipped-bases or the read
//      has no well-defined fragment size, in which case they are hard-clipped;
//   2. low-quality tails (quality <= min_tail_quality, mbq - 1 = 9) hard-clipped;
//   3. reads left unmapped or with no reference span dropped; adaptor sequence hard-clipped;
//      reads left with no bases dropped;
//   4. clipped to the padded region; kept if bases remain and the adaptor-clipped read overlaps
//      the padded region;
// then the reads are sorted and overlapping mates get their qualities corrected
// (stages/call/overlapping_mates.hpp).
//
// @code
//   RegionFinalizationOptions options;     // HaplotypeCaller defaults
//   auto reads = finalize_region_reads(region_reads, region, options);  // an AssemblyRegion
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "stages/call/assembly_region.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/read_filters.hpp"

namespace gpp::stages::call {

/// HaplotypeCallerEngine.MIN_TAIL_QUALITY_WITH_ERROR_CORRECTION.
inline constexpr std::uint8_t kMinTailQualityWithErrorCorrection = 6;
/// AssemblyBasedCallerUtils.MINIMUM_READ_LENGTH_AFTER_TRIMMING.
inline constexpr std::int64_t kMinimumReadLengthAfterTrimming = 10;

struct RegionFinalizationOptions {
  bool dont_use_soft_clipped_bases = false;        ///< --dont-use-soft-clipped-bases
  std::uint8_t min_tail_quality = 9;               ///< --min-base-quality-score (10) - 1
  bool error_correct_reads = false;                ///< --error-correct-reads: tail quality 6
  bool correct_overlapping_base_qualities = true;  ///< !--do-not-correct-overlapping-quality
  bool soft_clip_low_quality_ends = false;         ///< --soft-clip-low-quality-ends
  bool override_softclip_fragment_check = false;   ///< --override-fragment-softclip-check
};

/// GATK ReadCoordinateComparator.compare: contig (unplaced last), start, forward before
/// reverse, name, GATK's SAM flag, mapping quality, then for two paired reads the mate's contig
/// and start, then TLEN. Negative, zero or positive.
int compare_read_coordinates(const CallRead& a, const CallRead& b);

/// Stable sort by compare_read_coordinates.
void sort_reads_by_coordinate(std::vector<CallRead>& reads);

/**
 * @brief AssemblyBasedCallerUtils.finalizeRegion: the reads of one region ready for assembly.
 *
 * @param reads                 the region's reads (any order; not modified)
 * @param contig                the region's contig
 * @param padded_start, padded_end  the padded region, 0-based, end exclusive
 * @param options               HaplotypeCaller's switches (defaults: HaplotypeCaller's)
 * @param sample_of_read_group  sample index of each read group, for the overlapping-mate
 *                              correction; empty: one sample
 * @return the finalised reads, ordered by compare_read_coordinates
 * @throws gpp::Error where GATK's clipping would fail (malformed reads)
 */
std::vector<CallRead> finalize_region_reads(
    std::span<const CallRead> reads, std::int32_t contig, std::int64_t padded_start,
    std::int64_t padded_end, const RegionFinalizationOptions& options = {},
    std::span<const std::uint32_t> sample_of_read_group = {});

/// The same over reads held elsewhere (not copied before clipping: each read is copied once).
std::vector<CallRead> finalize_region_reads(
    std::span<const CallRead* const> reads, std::int32_t contig, std::int64_t padded_start,
    std::int64_t padded_end, const RegionFinalizationOptions& options = {},
    std::span<const std::uint32_t> sample_of_read_group = {});

/// finalize_region_reads over `region`'s padded span.
inline std::vector<CallRead> finalize_region_reads(
    std::span<const CallRead> reads, const AssemblyRegion& region,
    const RegionFinalizationOptions& options = {},
    std::span<const std::uint32_t> sample_of_read_group = {}) {
  return finalize_region_reads(reads, region.contig, region.padded_start, region.padded_end,
                               options, sample_of_read_group);
}
inline std::vector<CallRead> finalize_region_reads(
    std::span<const CallRead* const> reads, const AssemblyRegion& region,
    const RegionFinalizationOptions& options = {},
    std::span<const std::uint32_t> sample_of_read_group = {}) {
  return finalize_region_reads(reads, region.contig, region.padded_start, region.padded_end,
                               options, sample_of_read_group);
}

/// AssemblyRegion.trim's reads: each read hard-clipped to the new padded region, kept if bases
/// remain and it overlaps the region, then sorted.
std::vector<CallRead> trim_reads_to_region(std::span<const CallRead> reads, std::int32_t contig,
                                           std::int64_t padded_start, std::int64_t padded_end);

/// The same, clipping reads the caller no longer needs in place (no copy of each read).
std::vector<CallRead> trim_reads_to_region(std::vector<CallRead>&& reads, std::int32_t contig,
                                           std::int64_t padded_start, std::int64_t padded_end);

/// trim_reads_to_region over the trimmed region's padded span.
inline std::vector<CallRead> trim_reads_to_region(std::span<const CallRead> reads,
                                                  const AssemblyRegion& trimmed_region) {
  return trim_reads_to_region(reads, trimmed_region.contig, trimmed_region.padded_start,
                              trimmed_region.padded_end);
}

/// The reads HaplotypeCaller genotypes with, and those filterNonPassingReads set aside (GATK
/// hands the latter to the genotyper as the per-sample "filtered reads").
struct GenotypingReads {
  std::vector<CallRead> reads;
  std::vector<CallRead> filtered;
};

/// HaplotypeCallerEngine.callRegion after trimming: reads shorter than
/// kMinimumReadLengthAfterTrimming (unclipped length) are dropped outright, then reads failing
/// passes_genotyping_filter() move to `filtered`. Order is kept.
GenotypingReads select_genotyping_reads(std::vector<CallRead> trimmed_reads,
                                        const GenotypingFilterOptions& options = {});

}  // namespace gpp::stages::call
