// Which variant annotations the caller writes: GATK's annotation plugin (-A, -AX, -G,
// --disable-tool-default-annotations) over the annotations computed here, with HaplotypeCaller's
// default groups (StandardAnnotation, StandardHCAnnotation) and its reference-confidence rule.
//
// GATKAnnotationPluginDescriptor.getResolvedInstances: the tool's defaults (unless disabled), plus
// the annotations of the groups given, plus those named, minus those excluded. In
// reference-confidence (gVCF) mode HaplotypeCallerEngine.filterReferenceConfidenceAnnotations then
// adds StrandBiasBySample and removes ChromosomeCounts, FisherStrand, StrandOddsRatio and
// QualByDepth, whatever was asked.
//
// @code
//   AnnotationArguments args;
//   args.excluded = {"FisherStrand"};
//   args.enabled = {"StrandBiasBySample"};
//   std::vector<std::string> warnings;
//   AnnotationSet set = resolve_annotations(args, warnings);
//   set.contains(Annotation::kFisherStrand);        // false: no FS
//   set.contains(Annotation::kStrandBiasBySample);  // true: FORMAT SB in VCF mode too
// @endcode
#pragma once

#include <bitset>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpp::stages::call {

/// The annotations computed here, by GATK's class names.
enum class Annotation : std::size_t {
  kBaseQualityRankSumTest,     ///< INFO BaseQRankSum
  kChromosomeCounts,           ///< INFO AC, AF, AN
  kCoverage,                   ///< INFO DP
  kDepthPerAlleleBySample,     ///< FORMAT AD
  kDepthPerSampleHC,           ///< FORMAT DP
  kExcessHet,                  ///< INFO ExcessHet
  kFisherStrand,               ///< INFO FS
  kInbreedingCoeff,            ///< INFO InbreedingCoeff (declared; needs >= 10 samples)
  kMappingQualityRankSumTest,  ///< INFO MQRankSum
  kQualByDepth,                ///< INFO QD
  kRMSMappingQuality,          ///< INFO MQ (RAW_MQandDP in gVCF mode)
  kReadPosRankSumTest,         ///< INFO ReadPosRankSum
  kStrandBiasBySample,         ///< FORMAT SB
  kStrandOddsRatio,            ///< INFO SOR
  // The allele-specific group AS_StandardAnnotation, written in reference-confidence (gVCF) mode
  // as the raw data GenotypeGVCFs combines (allele_specific.hpp).
  kAsBaseQualityRankSumTest,     ///< INFO AS_RAW_BaseQRankSum
  kAsFisherStrand,               ///< INFO AS_SB_TABLE
  kAsInbreedingCoeff,            ///< INFO AS_InbreedingCoeff (declared; no raw data)
  kAsMappingQualityRankSumTest,  ///< INFO AS_RAW_MQRankSum
  kAsQualByDepth,                ///< INFO AS_QD (declared; no raw data)
  kAsRMSMappingQuality,          ///< INFO AS_RAW_MQ
  kAsReadPosRankSumTest,         ///< INFO AS_RAW_ReadPosRankSum
  kAsStrandOddsRatio,            ///< INFO AS_SB_TABLE
  // Not an annotation class: VariantAnnotatorEngine's dbSNP overlap, there when --dbsnp is given
  // (known_variant_overlap.hpp); no option names it.
  kDbsnpMembership,  ///< INFO DB
  // Not an annotation class either: GenotypingEngine's count of the alternate alleles discovered
  // at a site (--annotate-with-num-discovered-alleles).
  kNumberOfDiscoveredAlleles,  ///< INFO NDA
  kCount
};

class AnnotationSet {
 public:
  /// HaplotypeCaller's defaults: StandardAnnotation and StandardHCAnnotation (all of the above
  /// but StrandBiasBySample).
  static AnnotationSet haplotype_caller_defaults();

  bool contains(Annotation annotation) const { return bits_[index(annotation)]; }
  void add(Annotation annotation) { bits_.set(index(annotation)); }
  void remove(Annotation annotation) { bits_.reset(index(annotation)); }

  /// HaplotypeCallerEngine.filterReferenceConfidenceAnnotations (idempotent).
  AnnotationSet for_reference_confidence() const;

  /// Whether any of the allele-specific (AS_*) annotations is in the set.
  bool has_allele_specific() const;
  /// The set without the allele-specific annotations.
  AnnotationSet without_allele_specific() const;

  /// Whether a header has the definition (kind, id): one of an annotation only when the set has
  /// that annotation (AS_SB_TABLE: AS_FisherStrand or AS_StrandOddsRatio), every other one
  /// (GT, GQ, PL, FORMAT DP, MLEAC, END, ...) always.
  bool declares(std::string_view kind, std::string_view id) const;

  bool operator==(const AnnotationSet&) const = default;

 private:
  static std::size_t index(Annotation annotation) { return static_cast<std::size_t>(annotation); }
  std::bitset<static_cast<std::size_t>(Annotation::kCount)> bits_;
};

/// The annotation options as given.
struct AnnotationArguments {
  std::vector<std::string> enabled;    ///< -A / --annotation
  std::vector<std::string> groups;     ///< -G / --annotation-group
  std::vector<std::string> excluded;   ///< -AX / --annotations-to-exclude
  bool disable_tool_defaults = false;  ///< --disable-tool-default-annotations
};

/**
 * @brief GATKAnnotationPluginDescriptor's resolution of `arguments` for HaplotypeCaller.
 * @param warnings GATK's warnings are appended: a redundant annotation or group (a default), an
 *        excluded annotation that was not enabled
 * @throws gpp::Error for a name that is not one of the annotations or groups computed here (GATK's
 *         other optional annotations), or an annotation both enabled and excluded
 */
AnnotationSet resolve_annotations(const AnnotationArguments& arguments,
                                  std::vector<std::string>& warnings);

/// The annotation of GATK class name `name`, if it is one computed here.
std::optional<Annotation> annotation_named(std::string_view name);

}  // namespace gpp::stages::call
