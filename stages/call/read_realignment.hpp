// Realignment of each read to its best haplotype, projected onto the reference, as HaplotypeCaller
// does after the PairHMM and before genotyping (HaplotypeCallerEngine.callRegion ->
// AssemblyBasedCallerUtils.realignReadsToTheirBestHaplotype ->
// AlignmentUtils.createReadAlignedToRef).
//
// Per read of the region's likelihood matrix:
//  1. its best haplotype (best_haplotype.hpp: near-ties broken by
//     HAPLOTYPE_ALIGNMENT_TIEBREAKING_PRIORITY);
//  2. Smith-Waterman of the read without its soft-clipped bases against that haplotype's bases,
//     ALIGNMENT_TO_BEST_HAPLOTYPE scores (10, -15, -30, -5), SOFTCLIP overhangs;
//  3. the read -> haplotype CIGAR (consolidated) composed with the haplotype's CIGAR padded by
//     1000M and trimmed to start at the alignment offset (applyCigarToCigar; the read's
//     overhangs, clipped by the aligner, become insertions);
//  4. the indels left-aligned against the reference haplotype's bases (leftAlignIndels);
//  5. new start = padded reference start + haplotype alignment start + read start on the reference
//     haplotype + the deletion bases the left alignment dropped at the front; new CIGAR = the
//     result with the original read's clips (S and H) put back around it.
// Bases, qualities and every other field stay. Every read of the matrix is realigned, informative
// or not (GATK only tags informative ones with HC, which a CallRead does not carry). Reads the
// genotyping filter or the poorly-modelled filter removed are not in the matrix and not realigned.
//
// The Smith-Waterman of many regions runs as one batch (the lead runs it on the GPU):
// @code
//   kernels::SequencePairs pairs;
//   std::vector<ReadRealignmentPlan> plans;
//   for (const ReadRealignmentInput& region : regions)
//     plans.push_back(add_read_realignment_pairs(region, pairs));
//   const kernels::SwAlignments alignments =
//       aligner.align(pairs, kernels::kSwReadToHaplotype, kReadToHaplotypeOverhang);
//   for (std::size_t i = 0; i < regions.size(); ++i)
//     realigned[i] = apply_read_realignments(regions[i], plans[i], alignments);
// @endcode
// (realign_reads_to_best_haplotypes does exactly this.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/device/device.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"
#include "stages/call/annotations/best_allele.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/haplotype.hpp"

namespace gpp::stages::call {

/// SmithWatermanAlignmentConstants.ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS' overhang strategy.
inline constexpr kernels::OverhangStrategy kReadToHaplotypeOverhang =
    kernels::OverhangStrategy::kSoftClip;
/// Haplotype.getConsolidatedPaddedCigar(1000) as createReadAlignedToRef pads the haplotype.
inline constexpr std::uint32_t kHaplotypeCigarPadding = 1000;

/// One region's arguments to realignReadsToTheirBestHaplotype (views; nothing is copied).
struct ReadRealignmentInput {
  std::span<const CallRead> reads;            ///< the likelihood matrix's reads, row order
  std::span<const Haplotype> haplotypes;      ///< its haplotypes (trimmed, PairHMM order)
  std::span<const double> log10_likelihoods;  ///< read-major: [r * haplotypes.size() + h]
  std::size_t reference_haplotype = 0;        ///< index of the reference haplotype
  /// 0-based contig position of the first base of GATK's paddedReferenceLoc (the padded region
  /// +/- 500 bases: RegionWork::full_reference.start); haplotype.alignment_start_wrt_ref counts
  /// from it.
  std::int64_t padded_reference_start = 0;
  /// -bamout: a realigned informative read gets HC:i, its best haplotype's Java hashCode
  /// (AlignmentUtils.HAPLOTYPE_TAG), in its kept aux bytes.
  bool tag_best_haplotype = false;
};

/// Which reads of one region go to the aligner, and where their pairs lie in the batch.
struct ReadRealignmentPlan {
  static constexpr std::int64_t kNoPair = -1;  ///< the read is returned as it is

  std::vector<BestAllele> best;     ///< per read: best haplotype, informative or not
  std::vector<std::int64_t> pairs;  ///< per read: index of its pair in the batch, or kNoPair
};

/// The read's bases without its soft clips, as ReadClipper.hardClipSoftClippedBases leaves them
/// (the leading soft clips, and the last soft clip after the aligned bases, removed).
std::string_view bases_without_soft_clips(const CallRead& read);

/**
 * @brief Picks each read's best haplotype and appends its (haplotype bases, read bases without
 * soft clips) pair to `pairs`.
 *
 * A read with no base left once its soft clips are removed gets no pair and is kept unchanged
 * (GATK's aligner would reject the empty sequence).
 *
 * @return the plan to hand to apply_read_realignments with the batch's alignments
 * @throws gpp::Error if the matrix is not reads x haplotypes, the reference index is out of range,
 *         padded_reference_start < 0, or a best haplotype has no CIGAR
 */
ReadRealignmentPlan add_read_realignment_pairs(const ReadRealignmentInput& region,
                                               kernels::SequencePairs& pairs);

/**
 * @brief The region's reads realigned from the batch's alignments (kernels::SmithWaterman::align
 * with kSwReadToHaplotype and kReadToHaplotypeOverhang over the pairs `plan` refers to).
 *
 * @return one read per input read, same order; a read without a pair, or whose alignment failed
 *         (no alignment, or offset -1 as GATK tests), is an unchanged copy
 * @throws gpp::Error where GATK throws (e.g. the new CIGAR's read length disagrees with the read)
 */
std::vector<CallRead> apply_read_realignments(const ReadRealignmentInput& region,
                                              const ReadRealignmentPlan& plan,
                                              const kernels::SwAlignments& alignments);

/**
 * @brief AlignmentUtils.createReadAlignedToRef after its Smith-Waterman (steps 3 to 5 above).
 *
 * @param read                       the read as the PairHMM saw it
 * @param haplotype                  its best haplotype (CIGAR vs the reference, alignment start)
 * @param reference_haplotype_bases  the bases of the region's reference haplotype
 * @param padded_reference_start     see ReadRealignmentInput
 * @param read_to_haplotype_offset   the alignment's offset in the haplotype
 * @param read_to_haplotype_cigar    the alignment's CIGAR (read without soft clips vs haplotype)
 * @return the realigned copy (unchanged where the offset is -1 or kNoAlignment)
 * @throws gpp::Error if padded_reference_start < 0, the haplotype has no CIGAR, or a GATK check
 *         fails (left alignment past the reference haplotype, read length disagreement)
 */
CallRead create_read_aligned_to_ref(const CallRead& read, const Haplotype& haplotype,
                                    std::string_view reference_haplotype_bases,
                                    std::int64_t padded_reference_start,
                                    std::int32_t read_to_haplotype_offset,
                                    std::span<const std::uint32_t> read_to_haplotype_cigar);

/**
 * @brief The whole step for many regions: one Smith-Waterman batch on `aligner`, then the reads
 * rebuilt region by region (oneTBB; results do not depend on the thread count).
 * @return per region, its realigned reads in input order
 * @throws gpp::Error as the functions above and kernels::SmithWaterman::align do
 */
std::vector<std::vector<CallRead>> realign_reads_to_best_haplotypes(
    std::span<const ReadRealignmentInput> regions, kernels::SmithWaterman& aligner,
    kernels::SwStats* stats = nullptr);

}  // namespace gpp::stages::call
