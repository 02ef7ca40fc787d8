// The --dbsnp annotation: GATK's VariantOverlapAnnotator as VariantAnnotatorEngine.annotateContext
// applies it to each call. The records of the known-variant file that start at the call's
// position and pass their filters are compared with the call event by event: both are split into
// biallelic events (GATKVariantContextUtils.splitVariantContextToEvents: a biallelic site as it
// is, a multi-allelic one split per ALT allele and each trimmed forward and back); a record
// sharing an event gives its ID (annotateRsID, IDs joined by ';'), and then the call is flagged
// INFO DB (annotateOverlaps with dbSNP's overlap name).
//
// @code
//   // a call T > C,TAC and dbSNP T > TAC,TATAC (rs1) and T > C (rs2), both at the call's POS
//   annotate_known_variants(call, records);
//   // call.id == "rs1;rs2", call.info holds DB (a flag: an empty value)
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/genome/known_variants.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::stages::call {

/// GATK's Event: a biallelic variant (its start, 0-based; REF; ALT).
struct AlleleEvent {
  std::int64_t start = 0;
  std::string ref;
  std::string alt;

  bool operator==(const AlleleEvent&) const = default;
};

/**
 * @brief GATKVariantContextUtils.splitVariantContextToEvents(vc, trimLeft = true): no event when
 *        `alleles` has no ALT, the site itself when it has one, else one event per ALT allele,
 *        each trimmed as trimAlleles(forward, reverse) (shared bases dropped from both ends,
 *        one base kept; nothing trimmed when an allele other than '*' is one base long).
 * @param alleles REF first; symbolic alleles and '*' take no part in the trimming
 */
std::vector<AlleleEvent> split_into_events(std::int64_t position,
                                           std::span<const std::string> alleles);

/// VariantOverlapAnnotator.getRsID: the IDs of the unfiltered `records` that share an event with
/// the site (in the records' order, joined by ';'); nothing when none does.
std::optional<std::string> matching_known_ids(std::int64_t position,
                                              std::span<const std::string> alleles,
                                              std::span<const io::KnownVariant> records);

/**
 * @brief annotateRsID then annotateOverlaps for dbSNP: `call`'s ID gets the matching IDs (set
 *        when it has none, appended after ';' when it does not already contain them) and its INFO
 *        the flag DB, when a record of `records_at_call` (those starting at the call's position)
 *        matches the call's alleles as genotyped (VariantCall::trimmed_suffix restored: GATK
 *        annotates before it reverse-trims).
 */
void annotate_known_variants(VariantCall& call, std::span<const io::KnownVariant> records_at_call);

}  // namespace gpp::stages::call
