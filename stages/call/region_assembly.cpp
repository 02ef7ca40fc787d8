// assemble_region and prepare_genotyping: HaplotypeCallerEngine.callRegion up to the PairHMM
// (finalizeRegion, AssemblyBasedCallerUtils.assembleReads, AssemblyRegionTrimmer, trimTo, the
// read stubs and genotyping filter, PairHMMLikelihoodCalculationEngine's read preparation).
#include <algorithm>

#include "stages/call/assembled_haplotypes.hpp"
#include "stages/call/event_map.hpp"
#include "stages/call/given_alleles.hpp"
#include "stages/call/region_reads.hpp"
#include "stages/call/region_work.hpp"

namespace gpp::stages::call {

namespace {

/// A given event as the calling window sees it: a symbolic ALT is no indel (Event.isIndel), so
/// it counts as a SNP over its REF.
Event calling_window_event(const Event& given) {
  if (!is_symbolic_allele(given.alt)) return given;
  return Event{given.start, given.ref, std::string(given.ref.size(), 'N')};
}

}  // namespace

void assemble_region(RegionWork& work, const ContigReference& contig,
                     std::span<const CallRead* const> region_reads,
                     const HaplotypeCallerOptions& options) {
  const AssemblyRegion& region = work.region;
  if (!region.is_active || region.size() == 0 || region_reads.empty()) {
    work.has_work = false;
    return;
  }
  work.reads = finalize_region_reads(region_reads, region, options.finalization);
  work.reads_finalized = true;
  if (work.reads.empty()) {
    work.has_work = false;
    return;
  }
  work.ref_haplotype =
      contig.bases.substr(static_cast<std::size_t>(region.padded_start),
                          static_cast<std::size_t>(region.padded_end - region.padded_start));
  const std::int64_t window_start =
      std::max<std::int64_t>(0, region.padded_start - kReferencePaddingForAssembly);
  const std::int64_t window_end =
      std::min(contig.length(), region.padded_end + kReferencePaddingForAssembly);
  work.full_reference = {contig.bases.substr(static_cast<std::size_t>(window_start),
                                             static_cast<std::size_t>(window_end - window_start)),
                         window_start};

  std::vector<AssemblyRead> reads;
  reads.reserve(work.reads.size());
  for (std::size_t i = 0; i < work.reads.size(); ++i) {
    const CallRead& read = work.reads[i];
    reads.push_back({read.bases, read.quals, static_cast<std::uint32_t>(i), 0});
  }
  const LocalAssemblyInput input{work.ref_haplotype, region.padded_start, reads};
  work.assembled = run_local_assembly(input, options.assembly).haplotypes;
  const bool variation = std::any_of(work.assembled.begin(), work.assembled.end(),
                                     [](const AssembledHaplotype& h) { return !h.is_reference; });
  // Given alleles are genotyped even where the assembly found nothing (addGivenAlleles).
  if (!variation && work.given_events.empty()) work.has_work = false;
}

void trim_to_calling_window(RegionWork& work, const HaplotypeCallerOptions& options) {
  const AssemblyRegion& region = work.region;
  std::vector<Event> events;
  for (const Haplotype& haplotype : work.haplotypes) {
    if (haplotype.is_reference) continue;
    const EventMap map =
        event_map_from_haplotype(haplotype, work.full_reference, options.max_mnp_distance);
    for (const auto& [start, event] : map.by_start()) events.push_back(event);
  }
  for (const Event& given : work.given_events) events.push_back(calling_window_event(given));
  work.window = compute_calling_window({region.start, region.end - 1},
                                       {region.padded_start, region.padded_end - 1}, events,
                                       work.full_reference, options.padding);
  if (!work.window.variation_present) {
    work.has_work = false;
    return;
  }
  TrimmedHaplotypes trimmed = trim_haplotypes_to(work.haplotypes, work.window.padded_span);
  // With given events the variation is judged once their haplotypes are added.
  if (!trimmed.variation_present && work.given_events.empty()) {
    work.has_work = false;
    return;
  }
  work.genotyping_haplotypes = std::move(trimmed.haplotypes);
  work.reference_haplotype = trimmed.reference_index;
}

void prepare_genotyping(RegionWork& work, const ContigReference& contig,
                        const HaplotypeCallerOptions& options) {
  if (!work.given_events.empty()) {
    // AssemblyResultSet.isVariationPresent after regenerateVariationEvents.
    const bool variation =
        work.genotyping_haplotypes.size() > 1 &&
        std::any_of(work.genotyping_haplotypes.begin(), work.genotyping_haplotypes.end(),
                    [](const Haplotype& h) { return !h.is_reference; });
    if (!variation) {
      work.has_work = false;
      return;
    }
  }
  const std::int64_t trimmed_start = work.window.padded_span.first;
  const std::int64_t trimmed_end = work.window.padded_span.last + 1;
  GenotypingReads reads = select_genotyping_reads(
      options.emits_reference_confidence()
          ? trim_reads_to_region(std::span<const CallRead>(work.reads), contig.index, trimmed_start,
                                 trimmed_end)
          : trim_reads_to_region(std::move(work.reads), contig.index, trimmed_start, trimmed_end),
      options.genotyping_filter);
  work.genotyping_reads = std::move(reads.reads);
  work.filtered_reads = std::move(reads.filtered);
  if (work.genotyping_reads.empty()) {
    work.has_work = false;
    return;
  }
  const PcrIndelModel pcr_model(options.pcr_indel_model);
  work.hmm_reads.clear();
  work.hmm_reads.reserve(work.genotyping_reads.size());
  for (const CallRead& read : work.genotyping_reads) {
    work.hmm_reads.push_back(prepare_pairhmm_read(read, pcr_model, options.hmm_inputs));
  }
}

}  // namespace gpp::stages::call
