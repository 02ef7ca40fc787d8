// One assembly region on its way through HaplotypeCaller's steps
// (HaplotypeCallerEngine.callRegion), split where the GPU work of many regions is gathered into one
// batch:
//   assemble_region        finalise the reads, assemble haplotypes (CPU threads, region by region)
//   [batch] align          every region's haplotypes against its reference (Smith-Waterman)
//   trim_to_calling_window events, calling window, trimming (CPU threads)
//   [batch] given alleles  --alleles: their haplotypes against the reference (Smith-Waterman)
//   prepare_genotyping     genotyping reads, PairHMM read inputs (CPU threads)
//   [batch] likelihoods    every region's reads against its haplotypes (PairHMM)
//   genotype_region        alleles per locus, genotypes, QUAL, annotations (in genomic order)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/assembly_region.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/caller_options.hpp"
#include "stages/call/calling_window.hpp"
#include "stages/call/contig_interval.hpp"
#include "stages/call/event_map.hpp"
#include "stages/call/haplotype.hpp"
#include "stages/call/haplotype_bam.hpp"
#include "stages/call/pairhmm_read_inputs.hpp"
#include "stages/call/read_likelihoods.hpp"
#include "stages/call/read_threading_assembler.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::stages::call {

/// AssemblyBasedCallerUtils.REFERENCE_PADDING_FOR_ASSEMBLY: reference beyond the padded region
/// that events and trimming may see.
inline constexpr std::int64_t kReferencePaddingForAssembly = 500;

/// The contig a region lies on: its index, its bases (upper case) and its length.
struct ContigReference {
  std::int32_t index = -1;
  std::string_view bases;
  std::string_view name;  ///< for --ploidy-regions

  std::int64_t length() const { return static_cast<std::int64_t>(bases.size()); }
};

struct RegionWork {
  AssemblyRegion region;
  int ploidy = 2;  ///< the sample's ploidy here (ContigPloidy of the active span)
  /// --alleles: the region's given events (GivenAlleles::events_for_region), in file order.
  std::vector<Event> given_events;
  std::vector<CallRead> reads;   ///< finalised reads of the padded region (moved on when trimmed,
                                 ///< except in reference-confidence mode, whose flanks need them)
  bool reads_finalized = false;  ///< `reads` holds the finalised reads
  /// gVCF mode, when `reads` were not finalised: the region's reads in the caller's window.
  std::vector<const CallRead*> window_reads;
  std::string_view ref_haplotype;  ///< reference bases of the padded span (the graph's reference)
  ReferenceWindow full_reference;  ///< padded span +/- kReferencePaddingForAssembly
  std::vector<AssembledHaplotype> assembled;  ///< reference first, then the k-best paths
  std::vector<Haplotype> haplotypes;          ///< aligned to the reference; reference first

  CallingWindow window;
  std::vector<Haplotype> genotyping_haplotypes;  ///< trimmed, in SIZE_AND_BASE_ORDER
  std::size_t reference_haplotype = 0;           ///< index in genotyping_haplotypes
  std::vector<CallRead> genotyping_reads;        ///< trimmed reads that pass the genotyping filter
  std::vector<CallRead> filtered_reads;          ///< trimmed reads the genotyping filter dropped
  std::vector<PairHmmReadInputs> hmm_reads;      ///< per genotyping read
  ReadLikelihoodMatrix likelihoods;              ///< genotyping reads x genotyping haplotypes

  std::vector<VariantCall> calls;
  std::vector<std::size_t> called_haplotypes;  ///< genotyping haplotypes of the called alleles
  /// -bamout: the called haplotypes in the order GATK's HashSet first received them (each
  /// call's alleles in order, each allele's haplotypes in order), and per genotyping read the
  /// "contig:position=allele" of the calls it informs, joined with ", " (its XA tag).
  std::vector<std::size_t> called_haplotypes_in_order;
  std::vector<std::string> supported_alleles;
  std::vector<HaplotypeBamRecord> bam_records;  ///< -bamout: haplotype_bam_records' output
  /// Sites with a '*' allele that no deletion recorded before them covered (their calls would
  /// change if an earlier region's deletion did).
  std::vector<std::int64_t> uncovered_spanning_deletion_sites;
  std::vector<ReferenceSite> reference_sites;  ///< gVCF mode: the region's reference model
  bool has_work = true;  ///< false once a step finds nothing to call in the region
};

/// finalizeRegion, then the local assembly of the region's reads against its padded reference.
/// Inactive regions and regions without reads get has_work = false.
void assemble_region(RegionWork& work, const ContigReference& contig,
                     std::span<const CallRead* const> region_reads,
                     const HaplotypeCallerOptions& options);

/// From the aligned haplotypes: the variation events (the given ones with them), the calling
/// window and the trimmed haplotypes (has_work = false without variation). With given events,
/// given_allele_haplotypes.hpp's haplotypes are added after this.
void trim_to_calling_window(RegionWork& work, const HaplotypeCallerOptions& options);

/// After trim_to_calling_window (and the given alleles' haplotypes): the trimmed reads that pass
/// the genotyping filter and their PairHMM inputs (has_work = false without variation or reads).
void prepare_genotyping(RegionWork& work, const ContigReference& contig,
                        const HaplotypeCallerOptions& options);

/// Applies the mismapping cap and drops poorly modelled reads from work.likelihoods (filled by
/// the PairHMM batch), as ReadLikelihoodCalculationEngine does after the HMM.
void finish_likelihoods(RegionWork& work, const HaplotypeCallerOptions& options);

/// Reference-confidence mode, after genotype_region (or for a region that had no work): the
/// region's reference model in work.reference_sites, one site per position of the region's span
/// except where a call starts (HaplotypeCallerEngine.callRegion's gVCF branches); a region whose
/// calls have no called genotype keeps none of them (containsCalls). `region_reads` are the
/// region's reads before finalisation, used when assemble_region did not finalise them.
void reference_model_for_region(RegionWork& work, const ContigReference& contig,
                                std::span<const CallRead* const> region_reads,
                                const HaplotypeCallerOptions& options);

/// Tracks the deletions emitted so far (GenotypingEngine's upstream deletions), so that a later
/// site they span may output the '*' allele.
struct UpstreamDeletions {
  std::vector<ContigInterval> spans;
  bool covers(std::int64_t position);
  void record(const VariantCall& call);
};

/// HaplotypeCallerGenotypingEngine.assignGenotypeLikelihoods: work.calls (with <NON_REF>, the
/// gVCF annotations and work.called_haplotypes in reference-confidence mode). `deletions` are
/// those emitted before the region; the region's own are added as its calls are made.
void genotype_region(RegionWork& work, const ContigReference& contig,
                     const HaplotypeCallerOptions& options, UpstreamDeletions& deletions);

}  // namespace gpp::stages::call
