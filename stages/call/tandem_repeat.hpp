// Tandem-repeat units of an indel against the reference that follows it, as GATK counts them
// (GATKVariantContextUtils.getNumTandemRepeatUnits / findRepeatedSubstring /
// findNumberOfRepetitions, TandemRepeat.getNumTandemRepeatUnits). The calling window pads an
// indel in a short tandem repeat by --padding-around-strs plus the repeat's length; the STR / RU /
// RPA annotations use the same counts.
//
// @code
//   // reference GATCCACCACCAGTCGA, deletion TCCA -> T of one CCA unit
//   auto r = tandem_repeat_units("TCCA", {"T"}, "CCACCACCAGTCGA");
//   // r->repeat_unit == "CCA", r->repeats_per_allele == {3, 2}
// @endcode
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/contig_interval.hpp"
#include "stages/call/event_map.hpp"

namespace gpp::stages::call {

struct TandemRepeatUnits {
  std::vector<int> repeats_per_allele;  ///< reference allele first, then each alt allele
  std::string repeat_unit;
};

/// findRepeatedSubstring: length of the shortest unit whose repeats make up `bases` exactly
/// (bases.size() when there is none; 1 for empty bases, as GATK's loop leaves it).
int repeated_substring_length(std::string_view bases);

/**
 * @brief findNumberOfRepetitions: how many copies of `unit` `test` starts with (leading) or ends
 * with (!leading), counted while they match. 0 for an empty `test`.
 * @throws gpp::Error for an empty unit
 */
int number_of_repetitions(std::string_view unit, std::string_view test, bool leading);

/**
 * @brief getNumTandemRepeatUnits(refAllele, altAlleles, refBasesStartingAtVCWithoutPad).
 *
 * @param ref_allele, alt_alleles VCF alleles sharing their first (padding) base
 * @param ref_after_padding_base reference from the base after the padding base onwards
 * @return nullopt when no allele changes length, or one allele is not a tandem expansion or
 *         contraction of the unit in this context
 */
std::optional<TandemRepeatUnits> tandem_repeat_units(std::string_view ref_allele,
                                                     std::span<const std::string> alt_alleles,
                                                     std::string_view ref_after_padding_base);

/**
 * @brief TandemRepeat.getNumTandemRepeatUnits(referenceContext, event): the event's counts
 * against the reference of `context` from event.start + 1 to the end of the window.
 * @throws gpp::Error if event.start + 1 lies past the end of the window or before its start
 */
std::optional<TandemRepeatUnits> event_tandem_repeat_units(const Event& event,
                                                           const ReferenceWindow& context);

}  // namespace gpp::stages::call
