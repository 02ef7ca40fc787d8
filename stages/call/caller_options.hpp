// Every HaplotypeCaller argument the caller reads, with GATK 4's defaults, in one struct: the
// `call` command fills it from its options and `run` passes the same struct, so an option added
// here reaches both.
#pragma once

#include <cstdint>

#include "stages/call/activity_profile.hpp"
#include "stages/call/annotations/annotation_set.hpp"
#include "stages/call/assembly_region.hpp"
#include "stages/call/calling_window.hpp"
#include "stages/call/downsampler.hpp"
#include "stages/call/genotyping_engine.hpp"
#include "stages/call/locus_activity.hpp"
#include "stages/call/pairhmm_read_inputs.hpp"
#include "stages/call/pcr_indel_model.hpp"
#include "stages/call/ploidy_regions.hpp"
#include "stages/call/read_filters.hpp"
#include "stages/call/read_likelihoods.hpp"
#include "stages/call/read_threading_assembler.hpp"
#include "stages/call/reference_confidence.hpp"
#include "stages/call/region_reads.hpp"

namespace gpp::stages::call {

/// A region with more reads than this keeps a subset of them chosen by a hash of the read names
/// (whole fragments, in input order), so
/// that a pile-up of any depth costs bounded time and memory. GATK has no such bound by default
/// (gatk PR #9433 adds one); at 30x a region holds about 200 reads, so normal data never meets it.
inline constexpr int kDefaultMaxReadsPerRegion = 2000;

/// Regions whose Smith-Waterman and PairHMM work goes to the engines together (thousands, so that
/// the GPU gets large launches).
inline constexpr std::size_t kDefaultRegionsPerBatch = 4096;

/// --emit-ref-confidence (-ERC): NONE writes a VCF of the variants; GVCF adds the reference model
/// of every other base in GQ-banded blocks; BP_RESOLUTION writes it as one record per base.
enum class ReferenceConfidenceMode { kNone, kGvcf, kBpResolution };

/// --bam-writer-type (GATK HaplotypeBAMWriter.WriterType): which records a haplotype BAM gets
/// (haplotype_bam.hpp).
enum class BamWriterType {
  kCalledHaplotypes,
  kCalledHaplotypesNoReads,
  kAllPossibleHaplotypes,
  kNoHaplotypes,
};

/// -bamout / --bam-output: whether a haplotype BAM is written, and which records.
struct HaplotypeBamOptions {
  bool enabled = false;
  BamWriterType type = BamWriterType::kCalledHaplotypes;
};

struct HaplotypeCallerOptions {
  ReferenceConfidenceMode reference_confidence = ReferenceConfidenceMode::kNone;
  int sample_ploidy = 2;  ///< --sample-ploidy
  std::vector<PloidyRegion>
      ploidy_regions;                  ///< --ploidy-regions: other ploidies (ploidy_regions.hpp)
  std::uint8_t min_base_quality = 10;  ///< --min-base-quality-score
  int min_mapping_quality = kDefaultMinMappingQuality;  ///< --minimum-mapping-quality (read filter)
  std::uint32_t disabled_read_filters = 0;  ///< ReadFilterContext::disabled (--disable-read-filter)
  std::int64_t max_read_length =
      0;  ///< ReadFilterContext::max_read_length (--filter-reads-too-long)
  int max_reads_per_alignment_start = kDefaultMaxReadsPerAlignmentStart;  ///< 0: off
  int max_reads_per_region = kDefaultMaxReadsPerRegion;                   ///< 0: off
  int max_genotype_count = 1024;                                          ///< --max-genotype-count
  int max_mnp_distance = 0;                                               ///< --max-mnp-distance
  bool skip_alternate_contigs = false;  ///< --no-alt-contigs: no calls on *_alt and HLA contigs
  /// -bamout: the regions' haplotypes and realigned reads are kept for a BAM (the reads keep
  /// their tags; genotyping records which haplotypes and alleles each call used).
  HaplotypeBamOptions bam_output;
  /// !--do-not-run-physical-phasing: PGT/PID/PS in a gVCF; derive() turns it off for a ploidy
  /// other than 2, as HaplotypeCallerEngine.validateAndInitializeArgs does.
  bool physical_phasing = true;
  /// --force-call-filtered-alleles: --alleles records whatever their FILTER (given_alleles.hpp)
  bool force_call_filtered_alleles = false;
  /// --contamination-fraction-to-filter, or the sample's line of
  /// --contamination-fraction-per-sample-file: the share of each site's informative reads
  /// removed before its genotypes are computed (contamination_downsampling.hpp); 0: none.
  double contamination_fraction = 0.0;
  /// --use-filtered-read-map-for-annotations: the annotations see only the reads the
  /// contamination filter left (by default all of them, as GATK's).
  bool annotate_contamination_filtered_reads = false;
  std::size_t regions_per_batch = kDefaultRegionsPerBatch;  ///< at least 1; output unchanged
  AssemblyRegionOptions regions;
  LocusActivityOptions activity;
  RegionFinalizationOptions finalization;
  ReadThreadingAssemblerArgs assembly;
  GenotypingPadding padding;
  PcrIndelModelKind pcr_indel_model = PcrIndelModelKind::kConservative;
  PairHmmInputOptions hmm_inputs;
  ReadLikelihoodOptions likelihoods;
  GenotypingFilterOptions genotyping_filter;
  GenotypingOptions genotyping;
  ReferenceConfidenceOptions reference_model;  ///< reference-confidence mode
  /// -A / -AX / -G; derive() applies reference-confidence mode's changes.
  AnnotationSet annotations = AnnotationSet::haplotype_caller_defaults();

  bool emits_reference_confidence() const {
    return reference_confidence != ReferenceConfidenceMode::kNone;
  }

  /// Makes the options that derive from others agree (mbq -> activity, tail quality and assembly
  /// minimum; ploidy -> activity; adaptive pruning -> prune factor 0; reference-confidence mode ->
  /// genotyping, whose calling threshold it sets to 0 as
  /// HaplotypeCallerEngine.validateAndInitializeArgs does, and the annotations); call after
  /// changing the user-facing fields.
  void derive() {
    genotyping.reference_confidence = emits_reference_confidence();
    if (emits_reference_confidence()) {
      genotyping.standard_confidence_for_calling = 0.0;
      genotyping.all_site_pls = true;
      annotations = annotations.for_reference_confidence();
    }
    activity.sample_ploidy = sample_ploidy;
    activity.min_base_quality = min_base_quality;
    finalization.min_tail_quality = static_cast<std::uint8_t>(min_base_quality - 1);
    assembly.min_base_quality_to_use = min_base_quality;
    // HaplotypeCallerReadThreadingAssemblerArgumentCollection: with adaptive pruning the
    // assembler's prune factor (also the dangling-end recovery's) is 0.
    if (assembly.adaptive_pruning) assembly.prune_factor = 0;
    if (sample_ploidy != 2) physical_phasing = false;
    // --soft-clip-low-quality-ends: the likelihood engine's modifySoftclippedBases is false.
    hmm_inputs.hard_clip_soft_clipped_bases = finalization.soft_clip_low_quality_ends;
  }
};

}  // namespace gpp::stages::call
