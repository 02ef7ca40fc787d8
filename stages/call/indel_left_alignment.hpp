// Left alignment of the indels of a read's (or haplotype's) alignment across repeats, as GATK does
// it: AlignmentUtils.leftAlignIndels and its helper AlignmentUtils.normalizeAlleles (with GATK's
// IndexRange rules: a range is [start, end), never inverted, never negative).
//
// Unlike the clip-free copy private to haplotype_cigar.cpp, this one takes any CIGAR GATK accepts
// there (soft and hard clips, = and X included) and builds its result with GatkCigarBuilder.
//
// @code
//   // ref AAACCCTTT, read AAACCCCCCTTT aligned as 6M3I3M: the insertion moves to the left end of
//   // the C run
//   CigarBuildResult r = left_align_indels(cigar /* 6M3I3M */, "AAACCCTTT", "AAACCCCCCTTT", 0);
//   // cigar_to_string(r.cigar) == "3M3I6M"
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "stages/call/cigar_edit.hpp"

namespace gpp::stages::call {

/// GATK IndexRange: the half-open range [start, end) of a sequence.
struct AlleleRange {
  std::int64_t start = 0;
  std::int64_t end = 0;

  std::int64_t size() const { return end - start; }
  friend bool operator==(const AlleleRange&, const AlleleRange&) = default;
};

/**
 * @brief AlignmentUtils.normalizeAlleles for two sequences: the allele ranges `ref_range` of
 * `ref` and `read_range` of `read` are moved left across shared bases.
 *
 * With `trim`, shared bases at the right end of both alleles are dropped first, then shared bases
 * at their left end. Then both ranges shift left one base at a time (at most `max_shift` in all)
 * while the base before each range is the same in both sequences and so is the last base of
 * each (for an empty range, the base before it).
 *
 * @return (start shift, end shift): how far the start and the end of the ranges moved left (a
 *         negative start shift is a move right, from trimming); the ranges are updated in place
 * @throws gpp::Error if max_shift exceeds the start of a range, or a range would become inverted
 *         or negative or reach outside its sequence
 */
std::pair<std::int64_t, std::int64_t> normalize_alleles(std::string_view ref, std::string_view read,
                                                        AlleleRange& ref_range,
                                                        AlleleRange& read_range,
                                                        std::int64_t max_shift, bool trim);

/**
 * @brief AlignmentUtils.leftAlignIndels: `cigar` with every indel moved to its leftmost position
 * across repeats.
 *
 * The CIGAR is walked right to left; adjacent indels gather into one allele pair, which
 * normalize_alleles moves left into the alignment block (M = X) before it, but never into a clip.
 * Indels that meet are merged (and may cancel). The result is built by GatkCigarBuilder, so
 * deletions left at either end are dropped and counted. A CIGAR without indels comes back as it
 * is, unconsolidated.
 *
 * @param cigar      the alignment of `read` to `ref`; soft clips are bases of `read`
 * @param ref        reference bases
 * @param read       read bases (soft-clipped ones included, hard-clipped ones not)
 * @param read_start offset in `ref` of the first aligned base of the read
 * @return the left-aligned CIGAR and the deletion bases dropped at either end
 * @throws gpp::Error if read_start < 0, the reference ends before the last indel, the CIGAR does
 *         not account for every read base, or GATK's range checks fail
 */
CigarBuildResult left_align_indels(std::span<const std::uint32_t> cigar, std::string_view ref,
                                   std::string_view read, std::int64_t read_start);

}  // namespace gpp::stages::call
