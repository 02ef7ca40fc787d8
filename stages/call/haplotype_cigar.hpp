// Haplotype-to-reference CIGARs as HaplotypeCaller computes them (GATK CigarUtils.calculateCigar),
// batched: every haplotype that needs Smith-Waterman goes to the aligner in one call, so the GPU
// sees the whole batch at once.
//
// Per (ref, alt) pair, as GATK does it:
//  - empty alt: <n>D; alt equal to ref: <n>M;
//  - otherwise both are padded with NNNNNNNNNN on each side and aligned (default scores
//    200/-150/-260/-11, overhang INDEL); an offset > 0 or any S is a failure (no CIGAR);
//  - the padding is trimmed off (AlignmentUtils.trimCigarByBases with CigarBuilder's removal of
//    leading and trailing deletions), trailing deletions are put back, indels are left-aligned
//    (AlignmentUtils.leftAlignIndels), and deletions removed at either end are restored.
// Where GATK would throw (an alignment its left-alignment rejects), the pair has no CIGAR.
//
// @code
//   SequencePairs pairs;
//   pairs.add("ATGGAAAAAAAAAAGGGGC", "ATGGTGGGGC");
//   auto cigars = calculate_cigars(pairs, aligner);
//   // cigar_to_string(cigars.cigar(0)) == "4M9D6M"
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/device/device.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::stages::call {

/// CIGARs (BAM-packed elements, see cigar_element) in input order.
struct HaplotypeCigars {
  std::vector<std::uint8_t> found;      ///< 0 where GATK returns no CIGAR
  std::vector<std::uint32_t> elements;  ///< all CIGARs, concatenated
  std::vector<std::uint64_t> starts;    ///< size() + 1 entries

  std::size_t size() const { return found.size(); }
  bool has_cigar(std::size_t i) const { return found[i] != 0; }
  std::span<const std::uint32_t> cigar(std::size_t i) const {
    return {elements.data() + starts[i], static_cast<std::size_t>(starts[i + 1] - starts[i])};
  }
};

/**
 * @brief GATK CigarUtils.calculateCigar for every (ref, alt) pair.
 *
 * @param pairs      reference haplotype and alternate haplotype of each pair; either may be empty
 * @param aligner    the Smith-Waterman aligner (its backend runs the alignments)
 * @param parameters Smith-Waterman scores (HaplotypeCaller's haplotype-to-reference default)
 * @param strategy   overhang strategy of the alignment (HaplotypeCaller uses INDEL)
 * @param stats      optional: what the Smith-Waterman batch cost (kernels::SwStats)
 * @return one CIGAR per pair, or none where GATK returns null
 * @throws gpp::Error as kernels::SmithWaterman::align does
 */
HaplotypeCigars calculate_cigars(
    const kernels::SequencePairs& pairs, kernels::SmithWaterman& aligner,
    const kernels::SwParameters& parameters = kernels::kSwNewParameters,
    kernels::OverhangStrategy strategy = kernels::OverhangStrategy::kIndel,
    kernels::SwStats* stats = nullptr);

}  // namespace gpp::stages::call
