// What GATK does with the region's haplotypes around the haplotype -> allele step:
//  1. when an assembled path is aligned to the reference haplotype
//     (ReadThreadingAssembler.findBestPaths): paths whose alignment failed, is "too divergent"
//     (an N element), covers fewer than 30 reference bases, or does not cover the whole reference
//     haplotype are dropped, or the region fails;
//  2. once the calling window is known (AssemblyResultSet.trimTo): every haplotype is trimmed to
//     the window's padded span (Haplotype.trim), haplotypes left with equal bases are merged (the
//     reference wins), and the survivors are sorted by Haplotype.SIZE_AND_BASE_ORDER. This list,
//     in this order, is what the PairHMM scores and the genotyper marginalises.
//
// @code
//   std::optional<std::span<const std::uint32_t>> cigar;   // SOFTCLIP-strategy CIGAR
//   if (cigars.has_cigar(i)) cigar = cigars.cigar(i);
//   auto verdict = judge_haplotype_alignment(cigar, ref_haplotype.bases.size());
//   if (verdict == HaplotypeAlignmentVerdict::kCheckWithIndelStrategy)
//     verdict = judge_indel_strategy_alignment(indel_cigar, ref_haplotype.bases.size());
//   ...
//   TrimmedHaplotypes t = trim_haplotypes_to(haplotypes, window.padded_span);
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "stages/call/contig_interval.hpp"
#include "stages/call/haplotype.hpp"

namespace gpp::stages::call {

/// ReadThreadingAssembler.MIN_HAPLOTYPE_REFERENCE_LENGTH.
inline constexpr std::int64_t kMinHaplotypeReferenceLength = 30;

enum class HaplotypeAlignmentVerdict {
  kKeep,                    ///< keep the haplotype with this (SOFTCLIP-strategy) CIGAR
  kAlignmentFailed,         ///< dropped quietly (GATK counts it in failedCigars)
  kTooDivergent,            ///< dropped: the CIGAR has an N element
  kTooShortOnReference,     ///< dropped: fewer than 30 reference bases
  kCheckWithIndelStrategy,  ///< realign with the INDEL overhang strategy, then
                            ///< judge_indel_strategy_alignment
};

/**
 * @brief ReadThreadingAssembler.findBestPaths' judgement of one path's CIGAR, computed with the
 * SOFTCLIP overhang strategy against the reference haplotype.
 *
 * @param softclip_cigar            CigarUtils.calculateCigar's result; nullopt where it failed
 * @param reference_haplotype_length reference bases of the reference haplotype's CIGAR
 * @throws gpp::Error for an empty CIGAR (GATK: "Smith-Waterman alignment failure")
 */
HaplotypeAlignmentVerdict judge_haplotype_alignment(
    std::optional<std::span<const std::uint32_t>> softclip_cigar,
    std::int64_t reference_haplotype_length);

/**
 * @brief The second judgement of a path whose SOFTCLIP CIGAR did not span the reference
 * haplotype: if the INDEL-strategy CIGAR does span it, the window was too small to resolve the
 * path and the path is dropped (kAlignmentFailed); otherwise GATK fails the region.
 * @throws gpp::Error where GATK throws (no INDEL CIGAR, or one of another reference length)
 */
HaplotypeAlignmentVerdict judge_indel_strategy_alignment(
    std::optional<std::span<const std::uint32_t>> indel_cigar,
    std::int64_t reference_haplotype_length);

/// The haplotypes trimmed to the calling window's padded span (AssemblyResultSet.trimTo).
struct TrimmedHaplotypes {
  std::vector<Haplotype> haplotypes;  ///< Haplotype.SIZE_AND_BASE_ORDER
  std::vector<std::size_t> original;  ///< per trimmed haplotype: index of the input it came from
  std::size_t reference_index = 0;    ///< the reference haplotype in `haplotypes`
  /// AssemblyResultSet.isVariationPresent(): some input haplotype is not the reference and more
  /// than one haplotype is left.
  bool variation_present = false;
};

/**
 * @brief AssemblyResultSet.trimTo(trimmed region) for one region.
 *
 * @param haplotypes  the region's haplotypes in GATK's order (the order they were added to the
 *                    assembly result set), exactly one of them the reference haplotype; the order
 *                    decides only which CIGAR survives when two trim to the same bases (the first
 *                    one's, unless a later one is the reference)
 * @param padded_span the calling window's padded span (CallingWindow::padded_span)
 * @return the trimmed haplotypes; ones that start or end inside a deletion are dropped; the
 *         trimmed reference haplotype keeps location, CIGAR, score and alignment start but, as in
 *         GATK, not its k-mer size
 * @throws gpp::Error if there is no reference haplotype, trimming drops it, or a haplotype's
 *         location does not contain `padded_span`
 */
TrimmedHaplotypes trim_haplotypes_to(std::span<const Haplotype> haplotypes,
                                     ContigInterval padded_span);

}  // namespace gpp::stages::call
