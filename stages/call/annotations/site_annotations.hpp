// All variant annotations HaplotypeCaller writes by default in VCF mode, for one call, as the text
// GATK's VariantAnnotatorEngine.annotateContext + htsjdk VCFEncoder produce:
//   INFO  AC AF AN (ChromosomeCounts), BaseQRankSum, DP (Coverage), ExcessHet, FS, MLEAC MLEAF
//         (from the genotyper), MQ (RMSMappingQuality), MQRankSum, QD, ReadPosRankSum, SOR;
//   FORMAT AD (DepthPerAlleleBySample), DP (DepthPerSampleHC).
// FORMAT annotations come first and INFO ones see them (QD uses AD), as in annotateContext. INFO
// keys come out sorted as htsjdk's TreeMap writes them. SiteEvidence::annotations chooses among
// them (-A, -AX: annotation_set.hpp); without AD, QD divides by the sample's annotation reads.
//
// Per read, two best alleles are found (best_allele.hpp): over all likelihood alleles (FS, SOR, the
// rank sums; a read whose best allele the call dropped counts for neither REF nor ALT) and over the
// call's alleles only (AD and FORMAT DP: GATK marginalizes the likelihoods to the call's alleles
// first).
//
// In reference-confidence (gVCF) mode (SiteEvidence::reference_confidence), as
// HaplotypeCallerEngine.filterReferenceConfidenceAnnotations sets it up: no AC/AF/AN, FS, SOR or
// QD; MQ is written raw (RAW_MQandDP = sum of squared MQs, reads counted: RMSMappingQuality
// .annotateRawData); FORMAT SB (StrandBiasBySample: the sample's strand table, no minimum count).
//
// Not covered here: InbreedingCoeff (needs >= 10 samples; not computed), allele-specific (AS_)
// annotations, pedigree founders for ExcessHet, the VCF QUAL column and GT:GQ:PL.
//
// @code
//   SiteEvidence site = ...;  // 2 REF reads, 2 ALT reads, 0/1
//   SiteAnnotations a = annotate_site(site);
//   info_field_text(a.info);  // "AC=1;AF=0.500;AN=2;BaseQRankSum=...;DP=4;ExcessHet=0.0000;FS=..."
// @endcode
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stages/call/annotations/site_evidence.hpp"

namespace gpp::stages::call {

/// One INFO key and its value text.
struct InfoField {
  std::string key;
  std::string value;  ///< empty for a flag (DB): written as the key alone

  bool operator==(const InfoField&) const = default;
};

/// FORMAT annotations of one sample.
struct SampleAnnotations {
  std::optional<std::vector<int>> allele_depths;  ///< AD (REF first); absent for a no-call
  std::optional<int> depth;                       ///< DP; absent for a no-call
  /// SB (StrandBiasBySample, gVCF mode only): REF forward, REF reverse, ALT forward, ALT reverse.
  std::optional<std::array<int, 4>> strand_bias;
};

struct SiteAnnotations {
  std::vector<InfoField> info;             ///< sorted by key
  std::vector<SampleAnnotations> samples;  ///< one per SiteEvidence::samples
};

/**
 * @brief The annotations of one call.
 *
 * @param site reads, likelihoods, genotypes and QUAL of the call (see SiteEvidence)
 * @return INFO fields in VCF order and per-sample AD / DP
 * @throws gpp::Error if the shapes disagree (likelihood matrix size, call_alleles[0] != 0 or out of
 *         range, a read's sample out of range, MLEAC count != ALT count, PL length)
 */
SiteAnnotations annotate_site(const SiteEvidence& site);

/// "KEY=value;KEY=value" in the given order ("." when there is none).
std::string info_field_text(std::span<const InfoField> info);

/// Comma-joined integers ("12,7"), as htsjdk writes an int array.
std::string join_integers(std::span<const int> values);

}  // namespace gpp::stages::call
