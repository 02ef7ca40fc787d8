// GATK AssemblyResultSet.addGivenAlleles: the given alleles (--alleles) spliced into the trimmed
// haplotypes of a region, so that the PairHMM scores them like assembled ones. For each given
// event, in order, that no haplotype already carries (an equal event at its start) and whose ALT
// has bases: the reference haplotype and the four best-scored others (scores descending, NaN
// first, ties in their order; chosen once, before any is added) each get the event inserted
// (Haplotype.insertAllele) unless one of their own events overlaps it. The new haplotypes, not
// reference, are aligned to the reference haplotype (Smith-Waterman, haplotype-to-reference
// parameters, INDEL overhangs) and appended in that order, each once.
//
// @code
//   // reference AAAACCCCGGGGTTTT at 1, given A>C at 2
//   std::vector<std::string> bases = haplotypes_with_given_events(haplotypes, given, ref, 0);
//   // {"ACAACCCCGGGGTTTT"}
// @endcode
#pragma once

#include <span>
#include <string>
#include <vector>

#include "stages/call/event_map.hpp"
#include "stages/call/haplotype.hpp"
#include "stages/call/haplotype_cigar.hpp"

namespace gpp::stages::call {

/// AssemblyBasedCallerUtils.NUM_HAPLOTYPES_TO_INJECT_FORCE_CALLING_ALLELES_INTO.
inline constexpr std::size_t kHaplotypesToInjectGivenAllelesInto = 5;

/**
 * @brief The bases of the haplotypes addGivenAlleles would add to `haplotypes` (one reference
 * among them), in the order it adds them, without those already present (a non-reference
 * haplotype of the same bases) or repeated.
 * @param reference the window the haplotypes' CIGARs refer to (their events are read from it)
 */
std::vector<std::string> haplotypes_with_given_events(std::span<const Haplotype> haplotypes,
                                                      std::span<const Event> given,
                                                      const ReferenceWindow& reference,
                                                      int max_mnp_distance);

/**
 * @brief Appends the haplotypes of `bases` with the CIGARs at [first, first + bases.size()) of
 * `cigars` (alignments to the reference haplotype) as non-reference haplotypes at the reference
 * haplotype's location; one without a CIGAR is left out.
 */
void add_given_haplotypes(std::vector<Haplotype>& haplotypes, std::size_t reference_index,
                          std::span<const std::string> bases, const HaplotypeCigars& cigars,
                          std::size_t first);

}  // namespace gpp::stages::call
