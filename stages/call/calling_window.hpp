// The calling window of an assembly region (GATK AssemblyRegionTrimmer.trim, the default path,
// not --enable-legacy-assembly-region-trimming): from the events of the assembled haplotypes,
//  - variant span = [min event start, max event stop] over the events overlapping the active
//    region, clipped to the active region; event starts outside it are not genotyped;
//  - padded span  = the events each padded by --padding-around-snps 20 (SNPs, MNPs) or
//    --padding-around-indels 75 (indels), an indel in a short tandem repeat instead by
//    --padding-around-strs 75 plus the repeat's length (units x most repeats of any allele), then
//    clipped to the region's padded span; haplotypes are trimmed to it before the PairHMM.
// No event overlapping the active region: no variation (GATK then emits the reference model only).
//
// @code
//   CallingWindow w = compute_calling_window({1000, 1099}, {900, 1199}, events, reference);
//   // a lone SNP at 1050: w.variant_span == {1050, 1050}, w.padded_span == {1030, 1070}
// @endcode
#pragma once

#include <span>

#include "stages/call/contig_interval.hpp"
#include "stages/call/event_map.hpp"

namespace gpp::stages::call {

/// AssemblyRegionArgumentCollection's genotyping paddings.
struct GenotypingPadding {
  int snp = 20;    ///< --padding-around-snps
  int indel = 75;  ///< --padding-around-indels
  int str = 75;    ///< --padding-around-strs
};

struct CallingWindow {
  bool variation_present = false;  ///< false: no event overlaps the active region
  ContigInterval variant_span;     ///< event starts genotyped (the trimmed region's span)
  ContigInterval padded_span;      ///< haplotypes are trimmed to this (its padded span)
};

/**
 * @brief AssemblyRegionTrimmer.trim(region, events, referenceContext).
 *
 * @param active_span  the assembly region's span (AssemblyRegion.getSpan)
 * @param padded_span  the assembly region's padded span (AssemblyRegion.getPaddedSpan)
 * @param events       events of the untrimmed haplotypes (AssemblyResultSet.getVariationEvents),
 *                     any order, duplicates allowed
 * @param reference    a window containing `padded_span` (e.g. the assembly reference); STRs are
 *                     counted against the padded span's bases only, as GATK's ReferenceContext
 * @throws gpp::Error if `reference` does not contain `padded_span`, or a negative padding
 */
CallingWindow compute_calling_window(ContigInterval active_span, ContigInterval padded_span,
                                     std::span<const Event> events,
                                     const ReferenceWindow& reference,
                                     const GenotypingPadding& padding = {});

}  // namespace gpp::stages::call
