// The alleles genotyped at each event start of the calling window and which haplotypes carry each
// one, as GATK's HaplotypeCallerGenotypingEngine.assignGenotypeLikelihoods builds them:
//  - events at the start, spanning ones included (AssemblyBasedCallerUtils
//    .getVariantsFromActiveHaplotypes), duplicates dropped, in haplotype order;
//  - events starting before it become REF/* (replaceSpanDels, `*` = Allele.SPAN_DEL);
//  - one merged allele list (makeMergedVariantContext = GATKVariantContextUtils.simpleMerge): the
//    longest reference allele, every other event's alleles extended by the reference bases it
//    lacks (createAlleleMapping), alternate alleles in first-seen order;
//  - haplotypes per allele (createAlleleMapper): no event at the start -> reference, an event
//    starting here -> its (extended) allele, an earlier event spanning it -> `*`;
//  - with too many alleles for --max-genotype-count, the alleles of the best-scored haplotypes
//    (removeAltAllelesIfTooManyGenotypes / whichAllelesToKeepBasedonHapScores).
//
// @code
//   // haplotype 0: deletion ACTGGTCAACT->A at 95; haplotype 1: SNP T->C at 100; haplotype 2: none
//   std::vector<LocusAlleles> loci = alleles_in_calling_window(maps, reference, window);
//   // loci[1].loc == 100, loci[1].alleles == {"T", "*", "C"}, haplotypes {{2}, {0}, {1}}
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/contig_interval.hpp"
#include "stages/call/event_map.hpp"

namespace gpp::stages::call {

/// Allele.SPAN_DEL: a deletion starting before the locus spans it.
inline constexpr std::string_view kSpanningDeletion = "*";

/// The alleles at one locus (the merged VariantContext): alleles[0] is the reference allele.
struct MergedAlleles {
  std::int64_t start = 0;
  std::int64_t stop = 0;  ///< start + alleles[0].size() - 1
  std::vector<std::string> alleles;
};

/// Alleles at one locus with the haplotypes carrying each (createAlleleMapper's map, in order).
struct LocusAlleles {
  std::int64_t loc = 0;
  MergedAlleles merged;
  std::vector<std::string> alleles;  ///< the mapper's keys; equal to merged.alleles in HC
  std::vector<std::vector<std::size_t>> haplotypes;  ///< per allele: haplotype indices, ascending
  /// GATK's mergedAllelesListSizeBeforePossibleTrimming: merged alleles before
  /// remove_alleles_if_too_many_genotypes (makeAnnotatedCall reverse-trims when it differs).
  std::size_t merged_allele_count = 0;
};

/**
 * @brief getVariantsFromActiveHaplotypes(loc, haplotypes, includeSpanningEvents): each
 * haplotype's events overlapping `loc` (EventMap::overlapping_events), in haplotype order, each
 * distinct event once; without spanning events only those starting at `loc`.
 */
std::vector<Event> events_at_locus(std::int64_t loc, std::span<const EventMap> event_maps,
                                   bool include_spanning_events = true);

/**
 * @brief replaceSpanDels + makeMergedVariantContext for the events of one locus.
 * @param reference_base the reference base at `loc` (the REF of the spanning-deletion stand-ins)
 * @return nullopt for no events
 * @throws gpp::Error if two reference alleles of one length differ (GATK: "The provided reference
 *         alleles do not appear to represent the same position")
 */
std::optional<MergedAlleles> merge_alleles_at_locus(std::int64_t loc, std::span<const Event> events,
                                                    char reference_base);

/**
 * @brief AssemblyBasedCallerUtils.createAlleleMapper(mergedVC, loc, haplotypes, emitSpanningDels).
 * Fills `alleles` and `haplotypes`; a haplotype whose event is not among the merged alleles maps to
 * none. Without emit_spanning_deletions a spanning haplotype counts as reference.
 */
LocusAlleles map_alleles_to_haplotypes(const MergedAlleles& merged, std::int64_t loc,
                                       std::span<const EventMap> event_maps,
                                       bool emit_spanning_deletions = true);

/**
 * @brief The loop of assignGenotypeLikelihoods up to marginalisation: for every event start of
 * the haplotypes inside `calling_window` (CallingWindow::variant_span), in position order, the
 * merged alleles and the haplotypes carrying them.
 *
 * @param event_maps one per haplotype, in the likelihood matrix's haplotype order (the trimmed
 *                   haplotypes, TrimmedHaplotypes::haplotypes)
 * @param reference  window containing every locus (the assembly reference)
 * @throws gpp::Error as merge_alleles_at_locus, or for a locus outside `reference`
 */
std::vector<LocusAlleles> alleles_in_calling_window(std::span<const EventMap> event_maps,
                                                    const ReferenceWindow& reference,
                                                    ContigInterval calling_window);

/**
 * @brief GenotypeIndexCalculator.computeMaxAcceptableAlleleCount: the most alleles whose
 * genotypes at `ploidy` number at most `max_genotype_count` (2, 1024 -> 44). Computed exactly in
 * integers; GATK compares logarithms, which can differ only where a count equals the limit.
 * @throws gpp::Error for ploidy < 1 or max_genotype_count < 1
 */
int max_acceptable_allele_count(int ploidy, int max_genotype_count);

/**
 * @brief whichAllelesToKeepBasedonHapScores: the `desired` alleles (in their input order) best
 * supported by haplotype scores: the reference first, then by best and second-best score of the
 * haplotypes carrying each (missing = -infinity), ties by Allele.compareTo. GATK's PriorityQueue
 * is reproduced step by step, so even NaN scores order as in GATK.
 * @param haplotypes_of_allele per allele, the haplotype indices into `haplotype_scores`
 * @return indices of the kept alleles, ascending
 */
std::vector<std::size_t> alleles_to_keep_by_haplotype_scores(
    std::span<const std::string> alleles,
    std::span<const std::vector<std::size_t>> haplotypes_of_allele,
    std::span<const double> haplotype_scores, std::size_t desired);

/**
 * @brief removeAltAllelesIfTooManyGenotypes: when `locus` has more alleles than
 * max_acceptable_allele_count(ploidy, max_genotype_count), keeps only the best-supported ones in
 * both the mapping and the merged alleles (start and stop unchanged).
 * @return true if alleles were removed
 */
bool remove_alleles_if_too_many_genotypes(LocusAlleles& locus,
                                          std::span<const double> haplotype_scores, int ploidy,
                                          int max_genotype_count);

}  // namespace gpp::stages::call
