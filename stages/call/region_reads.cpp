// GATK AssemblyBasedCallerUtils.finalizeRegion, AssemblyRegion.trim, ReadCoordinateComparator
// and HaplotypeCallerEngine's read selection for genotyping (see the header).
#include "stages/call/region_reads.hpp"

#include <algorithm>

#include "core/cigar.hpp"
#include "stages/call/overlapping_mates.hpp"
#include "stages/call/read_clipping.hpp"
#include "stages/call/read_geometry.hpp"

namespace gpp::stages::call {

namespace {

template <typename T>
int three_way(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

/// GATK getMateReferenceIndex / getMateStart: -1 (GATK: unset) for an unmapped mate.
std::int64_t mate_contig_key(const CallRead& read) {
  return gatk_mate_is_unmapped(read) ? -1 : read.mate_contig;
}
std::int64_t mate_start_key(const CallRead& read) {
  return gatk_mate_is_unmapped(read) ? -1 : read.mate_start;
}

/// AssemblyBasedCallerUtils.HardClipAndPossiblyAddToCollection.
/// The read is consumed (clipped in place).
void clip_and_maybe_keep(CallRead read, std::int32_t contig, std::int64_t padded_start,
                         std::int64_t padded_end, std::vector<CallRead>& kept) {
  if (is_unmapped(read) || read.start > alignment_stop(read)) return;
  CallRead adaptor_clipped = hard_clip_adaptor_sequence(std::move(read));
  if (is_empty(adaptor_clipped) || cigar_query_length(adaptor_clipped.cigar) == 0) return;
  const bool adaptor_clipped_overlaps = overlaps(adaptor_clipped, contig, padded_start, padded_end);
  CallRead region_clipped =
      hard_clip_to_region(std::move(adaptor_clipped), padded_start, padded_end);
  if (region_clipped.start <= alignment_stop(region_clipped) && !is_empty(region_clipped) &&
      adaptor_clipped_overlaps) {
    kept.push_back(std::move(region_clipped));
  }
}

}  // namespace

int compare_read_coordinates(const CallRead& a, const CallRead& b) {
  // ReadCoordinateComparator.compareCoordinates: assigned contig (none last), assigned start
  const bool a_unplaced = a.contig < 0;
  const bool b_unplaced = b.contig < 0;
  if (a_unplaced || b_unplaced) {
    if (a_unplaced && b_unplaced) {
      // both unplaced: fall through to the tie-breakers
    } else {
      return a_unplaced ? 1 : -1;
    }
  } else {
    if (int c = three_way(a.contig, b.contig); c != 0) return c;
    if (int c = three_way(a.start, b.start); c != 0) return c;
  }
  // SAMRecordCoordinateComparator's tie-breakers
  if (a.is_reverse_strand() != b.is_reverse_strand()) return a.is_reverse_strand() ? 1 : -1;
  if (int c = a.name.compare(b.name); c != 0) return c < 0 ? -1 : 1;
  if (int c = three_way(gatk_sam_flags(a), gatk_sam_flags(b)); c != 0) return c;
  if (int c = three_way(a.mapping_quality, b.mapping_quality); c != 0) return c;
  if (a.is_paired() && b.is_paired()) {
    if (int c = three_way(mate_contig_key(a), mate_contig_key(b)); c != 0) return c;
    if (int c = three_way(mate_start_key(a), mate_start_key(b)); c != 0) return c;
  }
  return three_way(a.insert_size, b.insert_size);
}

void sort_reads_by_coordinate(std::vector<CallRead>& reads) {
  const auto before = [](const CallRead& a, const CallRead& b) {
    return compare_read_coordinates(a, b) < 0;
  };
  // Reads mostly come in order already: a stable sort would still move every one.
  if (!std::is_sorted(reads.begin(), reads.end(), before)) {
    std::stable_sort(reads.begin(), reads.end(), before);
  }
}

namespace {

/// finalizeRegion over reads given through `read_at(i)` (values or pointers).
template <typename ReadAt>
std::vector<CallRead> finalize_reads(std::size_t count, ReadAt read_at, std::int32_t contig,
                                     std::int64_t padded_start, std::int64_t padded_end,
                                     const RegionFinalizationOptions& options,
                                     std::span<const std::uint32_t> sample_of_read_group) {
  const std::uint8_t min_tail_quality =
      options.error_correct_reads ? kMinTailQualityWithErrorCorrection : options.min_tail_quality;
  std::vector<CallRead> kept;
  kept.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const CallRead& original = read_at(i);
    const bool hard_clip_soft_clips =
        options.dont_use_soft_clipped_bases ||
        !(options.override_softclip_fragment_check || has_well_defined_fragment_size(original));
    // One copy of the read, clipped in place from then on.
    CallRead unclipped = hard_clip_soft_clips ? hard_clip_soft_clipped_bases(original)
                                              : revert_soft_clipped_bases(original);
    CallRead tail_clipped = options.soft_clip_low_quality_ends
                                ? soft_clip_low_qual_ends(std::move(unclipped), min_tail_quality)
                                : hard_clip_low_qual_ends(std::move(unclipped), min_tail_quality);
    clip_and_maybe_keep(std::move(tail_clipped), contig, padded_start, padded_end, kept);
  }
  sort_reads_by_coordinate(kept);
  if (options.correct_overlapping_base_qualities) {
    clean_overlapping_read_pairs(kept, sample_of_read_group, true);
  }
  return kept;
}

}  // namespace

std::vector<CallRead> finalize_region_reads(std::span<const CallRead> reads, std::int32_t contig,
                                            std::int64_t padded_start, std::int64_t padded_end,
                                            const RegionFinalizationOptions& options,
                                            std::span<const std::uint32_t> sample_of_read_group) {
  return finalize_reads(
      reads.size(), [reads](std::size_t i) -> const CallRead& { return reads[i]; }, contig,
      padded_start, padded_end, options, sample_of_read_group);
}

std::vector<CallRead> finalize_region_reads(std::span<const CallRead* const> reads,
                                            std::int32_t contig, std::int64_t padded_start,
                                            std::int64_t padded_end,
                                            const RegionFinalizationOptions& options,
                                            std::span<const std::uint32_t> sample_of_read_group) {
  return finalize_reads(
      reads.size(), [reads](std::size_t i) -> const CallRead& { return *reads[i]; }, contig,
      padded_start, padded_end, options, sample_of_read_group);
}

namespace {

/// AssemblyRegion.trim's reads: `take(i)` gives read i (a copy or the read itself).
template <typename Take>
std::vector<CallRead> trim_reads(std::size_t count, Take take, std::int32_t contig,
                                 std::int64_t padded_start, std::int64_t padded_end) {
  std::vector<CallRead> trimmed;
  trimmed.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    CallRead clipped = hard_clip_to_region(take(i), padded_start, padded_end);
    if (!is_empty(clipped) && overlaps(clipped, contig, padded_start, padded_end)) {
      trimmed.push_back(std::move(clipped));
    }
  }
  sort_reads_by_coordinate(trimmed);
  return trimmed;
}

}  // namespace

std::vector<CallRead> trim_reads_to_region(std::span<const CallRead> reads, std::int32_t contig,
                                           std::int64_t padded_start, std::int64_t padded_end) {
  return trim_reads(
      reads.size(), [reads](std::size_t i) { return CallRead(reads[i]); }, contig, padded_start,
      padded_end);
}

std::vector<CallRead> trim_reads_to_region(std::vector<CallRead>&& reads, std::int32_t contig,
                                           std::int64_t padded_start, std::int64_t padded_end) {
  std::vector<CallRead> trimmed = trim_reads(
      reads.size(), [&reads](std::size_t i) { return std::move(reads[i]); }, contig, padded_start,
      padded_end);
  reads.clear();
  return trimmed;
}

GenotypingReads select_genotyping_reads(std::vector<CallRead> trimmed_reads,
                                        const GenotypingFilterOptions& options) {
  GenotypingReads result;
  result.reads.reserve(trimmed_reads.size());
  for (CallRead& read : trimmed_reads) {
    if (unclipped_read_length(read) < kMinimumReadLengthAfterTrimming) continue;  // a stub
    if (passes_genotyping_filter(read, options)) {
      result.reads.push_back(std::move(read));
    } else {
      result.filtered.push_back(std::move(read));
    }
  }
  return result;
}

}  // namespace gpp::stages::call
