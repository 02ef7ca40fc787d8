// Projection of a read's alignment to a haplotype onto the reference through the haplotype's own
// alignment, the CIGAR steps of GATK AlignmentUtils.createReadAlignedToRef:
// AlignmentUtils.applyCigarToCigar (read -> haplotype composed with haplotype -> reference),
// AlignmentUtils.readStartOnReferenceHaplotype (where the read starts on the reference) and
// AlignmentUtils.appendClippedElementsFromCigarToCigar (the original read's clips put back).
//
// @code
//   // read 3M1I2M on a haplotype that is 2M1D3M against the reference
//   apply_cigar_to_cigar(cigar("3M1I2M"), cigar("2M1D3M"));       // 2M1D1M1I2M
//   read_start_on_reference_haplotype(cigar("30M5D20M"), 50);     // 55
//   append_clipped_elements(cigar("30M"), cigar("10H30M5S5H"));    // 10H30M5S5H
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpp::stages::call {

/**
 * @brief AlignmentUtils.applyCigarToCigar: the alignment of sequence 1 to sequence 3, given that
 * of 1 to 2 (`first_to_second`) and of 2 to 3 (`second_to_third`).
 *
 * Both CIGARs are walked one base at a time, with M = X alike and S taken as I. Per pair of
 * operators (1->2, 2->3): M,M -> M; M,I -> I; M,D -> D (1->2 waits); D,M -> D; D,D -> D (1->2
 * waits); D,I -> nothing; I,M / I,D / I,I -> I (2->3 waits). The walk stops when either CIGAR
 * ends. The result goes through GatkCigarBuilder, which merges neighbours and drops deletions at
 * either end. Zero-length elements are skipped (GATK loops on them without end).
 *
 * @throws gpp::Error for an operator other than M = X I S D, or an empty result
 */
std::vector<std::uint32_t> apply_cigar_to_cigar(std::span<const std::uint32_t> first_to_second,
                                                std::span<const std::uint32_t> second_to_third);

/**
 * @brief AlignmentUtils.readStartOnReferenceHaplotype: the reference offset (from the first
 * reference base of `haplotype_vs_ref_cigar`) of the haplotype base `read_start_on_haplotype`.
 *
 * Walks the CIGAR until that many haplotype bases are consumed; a start inside an insertion maps
 * to the reference base after it. A start on the first haplotype base after a deletion stops at
 * the end of the element before the deletion, so it maps to the deletion's first reference base
 * (as GATK's walk does).
 *
 * @throws gpp::Error if the CIGAR has fewer haplotype bases than read_start_on_haplotype
 */
std::int64_t read_start_on_reference_haplotype(
    std::span<const std::uint32_t> haplotype_vs_ref_cigar, std::int64_t read_start_on_haplotype);

/**
 * @brief AlignmentUtils.appendClippedElementsFromCigarToCigar: `cigar` with the leading and the
 * trailing clips (S and H, in their order) of `original_cigar` put back around it.
 *
 * As GATK: the clips are taken from either end of the original while the element is a clip and
 * the walk from the left has not met the walk from the right (so a CIGAR that is one clip, or a
 * clip at the only non-clip position, adds nothing for it). An empty original adds nothing.
 */
std::vector<std::uint32_t> append_clipped_elements(std::span<const std::uint32_t> cigar,
                                                   std::span<const std::uint32_t> original_cigar);

}  // namespace gpp::stages::call
