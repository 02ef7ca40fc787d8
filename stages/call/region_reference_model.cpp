// reference_model_for_region: what HaplotypeCallerEngine.callRegion returns in
// reference-confidence mode besides the calls — referenceModelForNoVariation for a region without
// a called genotype, else the reference model of the trimmed-away left flank, of the genotyped
// span (ReferenceConfidenceModel.calculateRefConfidence over the reads realigned to their best
// haplotypes, a call replacing the site where it starts) and of the right flank.
#include <algorithm>

#include "stages/call/reference_confidence.hpp"
#include "stages/call/region_reads.hpp"
#include "stages/call/region_work.hpp"

namespace gpp::stages::call {

namespace {

/// HaplotypeCallerEngine.filterNonPassingReads: the reads the genotyper would use.
std::vector<CallRead> passing_reads(std::vector<CallRead> reads,
                                    const HaplotypeCallerOptions& options) {
  return select_genotyping_reads(std::move(reads), options.genotyping_filter).reads;
}

ReferenceWindow window_of(const ContigReference& contig, ContigInterval padded) {
  return {contig.bases.substr(static_cast<std::size_t>(padded.first),
                              static_cast<std::size_t>(padded.size())),
          padded.first};
}

void append_sites(std::vector<ReferenceSite>& out, const ContigReference& contig,
                  ContigInterval span, ContigInterval padded, std::span<const CallRead> reads,
                  std::span<const std::int64_t> call_starts, int ploidy,
                  const HaplotypeCallerOptions& options) {
  if (span.size() <= 0) return;
  std::vector<ReferenceSite> sites = reference_confidence(
      reads, contig.index, window_of(contig, padded), span, ploidy, options.reference_model);
  for (ReferenceSite& site : sites) {
    if (!std::binary_search(call_starts.begin(), call_starts.end(), site.position)) {
      out.push_back(std::move(site));
    }
  }
}

/// AssemblyRegion.trim(flank, --assembly-region-padding)'s span and padded span.
ContigInterval flank_padding(const AssemblyRegion& region, ContigInterval flank, int padding) {
  return {std::max(region.padded_start, flank.first - padding),
          std::min(region.padded_end - 1, flank.last + padding)};
}

}  // namespace

void reference_model_for_region(RegionWork& work, const ContigReference& contig,
                                std::span<const CallRead* const> region_reads,
                                const HaplotypeCallerOptions& options) {
  const AssemblyRegion& region = work.region;
  const ContigInterval span{region.start, region.end - 1};
  const ContigInterval padded{region.padded_start, region.padded_end - 1};
  work.reference_sites.clear();
  const bool has_called_genotype =
      std::any_of(work.calls.begin(), work.calls.end(),
                  [](const VariantCall& call) { return !call.genotype.is_no_call(); });
  if (!has_called_genotype) {
    // referenceModelForNoVariation: the whole region from its finalised reads; calls whose
    // genotypes are all no-calls are dropped with it (containsCalls).
    work.calls.clear();
    if (!work.reads_finalized && !region_reads.empty()) {
      work.reads = finalize_region_reads(region_reads, region, options.finalization);
    }
    const std::vector<CallRead> reads = passing_reads(std::move(work.reads), options);
    append_sites(work.reference_sites, contig, span, padded, reads, {}, work.ploidy, options);
    return;
  }
  std::vector<std::int64_t> call_starts;
  for (const VariantCall& call : work.calls) call_starts.push_back(call.position);
  std::sort(call_starts.begin(), call_starts.end());
  const ContigInterval variant = work.window.variant_span;
  // A trimmed-away flank: AssemblyRegion.trim(flank, --assembly-region-padding)'s reads.
  const auto append_flank = [&](ContigInterval flank) {
    if (flank.size() <= 0) return;
    const ContigInterval padded_flank = flank_padding(region, flank, options.regions.padding);
    const std::vector<CallRead> reads = passing_reads(
        trim_reads_to_region(work.reads, contig.index, padded_flank.first, padded_flank.last + 1),
        options);
    append_sites(work.reference_sites, contig, flank, padded_flank, reads, {}, work.ploidy,
                 options);
  };
  append_flank({span.first, variant.first - 1});
  append_sites(work.reference_sites, contig, variant, work.window.padded_span,
               work.genotyping_reads, call_starts, work.ploidy, options);
  append_flank({variant.last + 1, span.last});
}

}  // namespace gpp::stages::call
