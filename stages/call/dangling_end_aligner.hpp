// The Smith-Waterman alignment GATK's dangling-branch recovery runs
// (AbstractReadThreadingGraph.generateCigarAgainst{Downwards,Upwards}ReferencePath:
// aligner.align(ref, alt, SmithWatermanAlignmentConstants.STANDARD_NGS, LEADING_INDEL)).
//
// The one place the assembler reaches the Smith-Waterman kernel; the graph code takes the aligner
// as a function so tests and other callers can substitute one.
//
// @code
//   // reference path bases, dangling path bases -> BAM-packed CIGAR, e.g. 1M1I10M
//   auto cigar = align_dangling_end(reference_path_string, dangling_path_string);
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace gpp::stages::call {

/// Aligns alt to ref and returns the CIGAR (BAM-packed, gpp::cigar_element); empty if either
/// sequence is empty (GATK's aligner rejects those).
using DanglingEndAligner =
    std::function<std::vector<std::uint32_t>(std::string_view ref, std::string_view alt)>;

/**
 * @brief GATK SmithWatermanAligner.align(ref, alt, STANDARD_NGS (25, -50, -110, -6),
 *        SWOverhangStrategy.LEADING_INDEL).getCigar(), on the CPU kernel.
 *
 * @param ref the reference path's bases
 * @param alt the dangling path's bases
 * @return the CIGAR, BAM-packed; empty when either input is empty
 * @throws gpp::Error as kernels::SmithWaterman::align does
 */
std::vector<std::uint32_t> align_dangling_end(std::string_view ref, std::string_view alt);

}  // namespace gpp::stages::call
