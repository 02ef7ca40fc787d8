// What the variant annotations of one call need (the input of annotate_site): the call's alleles
// and genotypes, its QUAL, and the reads of GATK's annotation likelihoods with their per-allele
// log10 likelihoods.
//
// In HaplotypeCaller (HaplotypeCallerGenotypingEngine.assignGenotypeLikelihoods and
// prepareReadAlleleLikelihoodsForAnnotation) the annotation reads of a call are:
//  - the reads of the genotyping likelihoods that overlap the event span +/- 2 bp
//    (--allele-informative-reads-overlap-margin), with their allele likelihoods marginalized from
//    the haplotypes (max over the haplotypes carrying each allele), read records as realigned to
//    their best haplotype;
//  - plus the reads dropped by the genotyping filter (unclipped length < 10, MQ < 20, mate on
//    another contig) that overlap the same interval, with likelihood 0 for every allele. They count
//    in INFO DP and MQ (and QD's fallback depth) but are never informative.
// The likelihood alleles are those of the merged event (REF first); the call may have dropped some
// ALTs (GenotypingEngine.calculateGenotypes keeps only plausible ones), hence call_alleles.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "stages/call/annotations/annotation_set.hpp"
#include "stages/call/genotype_assignment.hpp"

namespace gpp::stages::call {

/// htsjdk Genotype.getType.
enum class GenotypeType { kUnavailable, kNoCall, kMixed, kHomRef, kHet, kHomVar };

/// htsjdk Genotype.determineType: no alleles -> unavailable; all '.' -> no-call; some '.' ->
/// mixed; else het if two different alleles, hom-ref if all 0, hom-var otherwise.
inline GenotypeType genotype_type(std::span<const int> alleles) {
  if (alleles.empty()) return GenotypeType::kUnavailable;
  bool saw_no_call = false, saw_different = false;
  int first_called = kNoCallAlleleIndex;
  for (int allele : alleles) {
    if (allele == kNoCallAlleleIndex) {
      saw_no_call = true;
    } else if (first_called == kNoCallAlleleIndex) {
      first_called = allele;
    } else if (allele != first_called) {
      saw_different = true;
    }
  }
  if (saw_no_call)
    return first_called == kNoCallAlleleIndex ? GenotypeType::kNoCall : GenotypeType::kMixed;
  if (saw_different) return GenotypeType::kHet;
  return first_called == 0 ? GenotypeType::kHomRef : GenotypeType::kHomVar;
}

/// htsjdk Genotype.isCalled: neither no-call nor unavailable (a mixed genotype is called).
inline bool is_called(GenotypeType type) {
  return type != GenotypeType::kNoCall && type != GenotypeType::kUnavailable;
}

/// One read of the annotation read set (its likelihoods live in SiteEvidence::log10_likelihoods).
struct AnnotationRead {
  std::uint32_t sample = 0;             ///< index into SiteEvidence::samples
  bool reverse_strand = false;          ///< FLAG 0x10
  std::uint8_t mapping_quality = 0;     ///< MAPQ (255: unavailable)
  std::optional<double> base_quality;   ///< rank_sum_read_values(...).base_quality
  std::optional<double> read_position;  ///< rank_sum_read_values(...).read_position
};

/// Everything annotate_site needs for one call.
struct SiteEvidence {
  std::int32_t contig = 0;  ///< reference index (only used to key the QD jitter)
  std::int64_t start = 0;   ///< 0-based start of the call (only used to key the QD jitter)
  /// Columns of the likelihood matrix: the merged event's alleles, REF in column 0.
  std::uint32_t likelihood_allele_count = 0;
  /// For each allele of the call in VCF order (REF, ALT1, ...): its likelihood column;
  /// call_alleles[0] must be 0.
  std::vector<std::uint32_t> call_alleles;
  std::vector<AnnotationRead> reads;
  /// reads.size() x likelihood_allele_count log10 likelihoods, one row per read.
  std::vector<double> log10_likelihoods;
  /// One genotype per sample, in VCF sample order (GT over the call's alleles, PL in VCF order;
  /// GQ is not used).
  std::vector<Genotype> samples;
  /// log10 of the probability that the site is not variant (VariantContext.getLog10PError;
  /// QUAL = -10 x this).
  double log10_p_error = 0;
  /// MLEAC, one per ALT of the call (AFCalculationResult.getAlleleCountAtMLE); empty: MLEAC and
  /// MLEAF are not written.
  std::vector<int> mle_allele_counts;
  /// The alternate alleles of the site handed to genotyping (<NON_REF> counted in gVCF mode):
  /// INFO NDA with Annotation::kNumberOfDiscoveredAlleles.
  int discovered_alternate_alleles = 0;
  /// Reference-confidence (gVCF) mode: its annotation set (see site_annotations.hpp).
  bool reference_confidence = false;
  /// The annotations to write (in reference-confidence mode as
  /// AnnotationSet::for_reference_confidence makes them).
  AnnotationSet annotations = AnnotationSet::haplotype_caller_defaults();

  std::span<const double> read_likelihoods(std::size_t read) const {
    return {log10_likelihoods.data() + read * likelihood_allele_count, likelihood_allele_count};
  }
};

}  // namespace gpp::stages::call
