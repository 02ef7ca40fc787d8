// Base qualities of overlapping mates, as HaplotypeCaller corrects them before assembly
// (AssemblyBasedCallerUtils.cleanOverlappingReadPairs, FragmentCollection.create,
// FragmentUtils.adjustQualsOfOverlappingPairedFragments). On by default; HaplotypeCaller's
// --do-not-correct-overlapping-quality turns it off.
//
// Mates overlapping on the reference are independent evidence against sequencing error but not
// against PCR error, so over their overlap a base both mates agree on is capped at half the PCR
// SNV quality (Q40 for GATK's rate 1e-4, so Q20) in each mate, and a base they disagree on gets
// Q0 in both. The overlap is walked base by base from the second mate's start without regard to
// indels (GATK issue #6890), exactly as GATK does.
//
// @code
//   // mate 1: CCCACGT at 0 (30s), mate 2: ACGTAAA at 3 (30s), same name
//   adjust_quals_of_overlapping_mates(mate1, mate2);
//   // mate1.quals == {30,30,30,20,20,20,20}; mate2.quals == {20,20,20,20,30,30,30}
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

/// FragmentUtils.HALF_OF_DEFAULT_PCR_SNV_ERROR_QUAL: round(-10 log10(1e-4)) / 2.
inline constexpr int kHalfOfDefaultPcrSnvQuality = 20;

/**
 * @brief FragmentUtils.adjustQualsOfOverlappingPairedFragments for one pair of mates.
 *
 * The mate with the smaller soft start is taken as the first (on a tie, `right`). Nothing
 * changes if the mates are on different contigs, do not overlap, or overlap only where the first
 * mate is clipped.
 *
 * @param left, right             the two reads of one fragment (qualities edited in place)
 * @param set_conflicting_to_zero disagreeing bases get Q0 (HaplotypeCaller: true)
 * @param half_pcr_snv_quality    the cap for agreeing bases (default kHalfOfDefaultPcrSnvQuality)
 * @param half_pcr_indel_quality  if set, BI and BD over the overlap are capped at it too (a
 *                                missing BI/BD array is created as 45s first); HaplotypeCaller
 *                                leaves it unset
 * @throws gpp::Error if the reads have different names
 */
void adjust_quals_of_overlapping_mates(CallRead& left, CallRead& right,
                                       bool set_conflicting_to_zero = true,
                                       std::optional<int> half_pcr_snv_quality = std::nullopt,
                                       std::optional<int> half_pcr_indel_quality = std::nullopt);

/**
 * @brief FragmentCollection.create(reads).getOverlappingPairs(): pairs of reads of one name that
 * may overlap, in the order they are completed.
 *
 * A read is a candidate if it is paired, its mate is mapped and the mate starts at or before its
 * alignment stop; two candidates with one name form a pair (first seen, second seen), after
 * which the name is free again.
 *
 * @param reads reads ordered by alignment start
 * @return index pairs into `reads`
 * @throws gpp::Error if the reads are not ordered by start
 */
std::vector<std::pair<std::size_t, std::size_t>> overlapping_mate_pairs(
    std::span<const CallRead> reads);

/**
 * @brief AssemblyBasedCallerUtils.cleanOverlappingReadPairs: per sample, adjusts every pair of
 * overlapping_mate_pairs.
 *
 * @param reads                 reads ordered by alignment start (qualities edited in place)
 * @param sample_of_read_group  sample index of each read group; empty: all reads one sample
 * @param set_conflicting_to_zero, half_pcr_snv_quality, half_pcr_indel_quality  as above
 * @throws gpp::Error if the reads are not ordered, or a read group has no sample
 */
void clean_overlapping_read_pairs(std::vector<CallRead>& reads,
                                  std::span<const std::uint32_t> sample_of_read_group = {},
                                  bool set_conflicting_to_zero = true,
                                  std::optional<int> half_pcr_snv_quality = std::nullopt,
                                  std::optional<int> half_pcr_indel_quality = std::nullopt);

}  // namespace gpp::stages::call
