#include "stages/call/annotations/annotation_set.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

// The classes an option can name: every annotation but the two no option names (DB, NDA).
constexpr std::array<std::pair<std::string_view, Annotation>,
                     static_cast<std::size_t>(Annotation::kCount) - 2>
    kNames{{
        {"BaseQualityRankSumTest", Annotation::kBaseQualityRankSumTest},
        {"ChromosomeCounts", Annotation::kChromosomeCounts},
        {"Coverage", Annotation::kCoverage},
        {"DepthPerAlleleBySample", Annotation::kDepthPerAlleleBySample},
        {"DepthPerSampleHC", Annotation::kDepthPerSampleHC},
        {"ExcessHet", Annotation::kExcessHet},
        {"FisherStrand", Annotation::kFisherStrand},
        {"InbreedingCoeff", Annotation::kInbreedingCoeff},
        {"MappingQualityRankSumTest", Annotation::kMappingQualityRankSumTest},
        {"QualByDepth", Annotation::kQualByDepth},
        {"RMSMappingQuality", Annotation::kRMSMappingQuality},
        {"ReadPosRankSumTest", Annotation::kReadPosRankSumTest},
        {"StrandBiasBySample", Annotation::kStrandBiasBySample},
        {"StrandOddsRatio", Annotation::kStrandOddsRatio},
        {"AS_BaseQualityRankSumTest", Annotation::kAsBaseQualityRankSumTest},
        {"AS_FisherStrand", Annotation::kAsFisherStrand},
        {"AS_InbreedingCoeff", Annotation::kAsInbreedingCoeff},
        {"AS_MappingQualityRankSumTest", Annotation::kAsMappingQualityRankSumTest},
        {"AS_QualByDepth", Annotation::kAsQualByDepth},
        {"AS_RMSMappingQuality", Annotation::kAsRMSMappingQuality},
        {"AS_ReadPosRankSumTest", Annotation::kAsReadPosRankSumTest},
        {"AS_StrandOddsRatio", Annotation::kAsStrandOddsRatio},
    }};
static_assert(std::none_of(kNames.begin(), kNames.end(),
                           [](const auto& entry) { return entry.first.empty(); }),
              "every entry of kNames is given");

// GATK's groups as its annotation classes declare them (implements StandardAnnotation /
// StandardHCAnnotation).
constexpr std::array kStandardAnnotation = {
    Annotation::kBaseQualityRankSumTest,
    Annotation::kChromosomeCounts,
    Annotation::kCoverage,
    Annotation::kDepthPerAlleleBySample,
    Annotation::kExcessHet,
    Annotation::kFisherStrand,
    Annotation::kInbreedingCoeff,
    Annotation::kMappingQualityRankSumTest,
    Annotation::kQualByDepth,
    Annotation::kRMSMappingQuality,
    Annotation::kReadPosRankSumTest,
    Annotation::kStrandOddsRatio,
};
constexpr std::array kStandardHCAnnotation = {Annotation::kDepthPerSampleHC};
constexpr std::array kAsStandardAnnotation = {
    Annotation::kAsBaseQualityRankSumTest,
    Annotation::kAsFisherStrand,
    Annotation::kAsInbreedingCoeff,
    Annotation::kAsMappingQualityRankSumTest,
    Annotation::kAsQualByDepth,
    Annotation::kAsRMSMappingQuality,
    Annotation::kAsReadPosRankSumTest,
    Annotation::kAsStrandOddsRatio,
};

/// Header definitions and the annotation declaring each (AS_SB_TABLE: either of two).
constexpr std::array<std::pair<std::pair<std::string_view, std::string_view>, Annotation>, 26>
    kDefinitionOwners{{
        {{"INFO", "AC"}, Annotation::kChromosomeCounts},
        {{"INFO", "AF"}, Annotation::kChromosomeCounts},
        {{"INFO", "AN"}, Annotation::kChromosomeCounts},
        {{"INFO", "BaseQRankSum"}, Annotation::kBaseQualityRankSumTest},
        {{"INFO", "DP"}, Annotation::kCoverage},
        {{"INFO", "ExcessHet"}, Annotation::kExcessHet},
        {{"INFO", "FS"}, Annotation::kFisherStrand},
        {{"INFO", "InbreedingCoeff"}, Annotation::kInbreedingCoeff},
        {{"INFO", "MQ"}, Annotation::kRMSMappingQuality},
        {{"INFO", "RAW_MQandDP"}, Annotation::kRMSMappingQuality},
        {{"INFO", "MQRankSum"}, Annotation::kMappingQualityRankSumTest},
        {{"INFO", "QD"}, Annotation::kQualByDepth},
        {{"INFO", "ReadPosRankSum"}, Annotation::kReadPosRankSumTest},
        {{"INFO", "SOR"}, Annotation::kStrandOddsRatio},
        {{"FORMAT", "AD"}, Annotation::kDepthPerAlleleBySample},
        {{"FORMAT", "SB"}, Annotation::kStrandBiasBySample},
        {{"INFO", "DB"}, Annotation::kDbsnpMembership},
        {{"INFO", "NDA"}, Annotation::kNumberOfDiscoveredAlleles},
        {{"INFO", "AS_RAW_BaseQRankSum"}, Annotation::kAsBaseQualityRankSumTest},
        {{"INFO", "AS_SB_TABLE"}, Annotation::kAsFisherStrand},
        {{"INFO", "AS_SB_TABLE"}, Annotation::kAsStrandOddsRatio},
        {{"INFO", "AS_InbreedingCoeff"}, Annotation::kAsInbreedingCoeff},
        {{"INFO", "AS_RAW_MQRankSum"}, Annotation::kAsMappingQualityRankSumTest},
        {{"INFO", "AS_QD"}, Annotation::kAsQualByDepth},
        {{"INFO", "AS_RAW_MQ"}, Annotation::kAsRMSMappingQuality},
        {{"INFO", "AS_RAW_ReadPosRankSum"}, Annotation::kAsReadPosRankSumTest},
    }};

template <class Group>
void add_all(AnnotationSet& set, const Group& group) {
  for (const Annotation annotation : group) set.add(annotation);
}

std::string names_computed_here() {
  std::string names;
  for (const auto& [name, annotation] : kNames) {
    names += names.empty() ? "" : ", ";
    names += name;
  }
  return names;
}

Annotation known_annotation(const std::string& name, const char* option) {
  if (const auto annotation = annotation_named(name)) return *annotation;
  throw Error(std::string(option) + " " + name +
              ": not an annotation gpu-pipeline computes (it computes " + names_computed_here() +
              "; GATK's other optional annotations are not available)");
}

}  // namespace

AnnotationSet AnnotationSet::haplotype_caller_defaults() {
  AnnotationSet set;
  add_all(set, kStandardAnnotation);
  add_all(set, kStandardHCAnnotation);
  return set;
}

AnnotationSet AnnotationSet::for_reference_confidence() const {
  AnnotationSet set = *this;
  set.add(Annotation::kStrandBiasBySample);
  for (const Annotation annotation : {Annotation::kChromosomeCounts, Annotation::kFisherStrand,
                                      Annotation::kStrandOddsRatio, Annotation::kQualByDepth}) {
    set.remove(annotation);
  }
  return set;
}

std::optional<Annotation> annotation_named(std::string_view name) {
  for (const auto& [known, annotation] : kNames) {
    if (known == name) return annotation;
  }
  return std::nullopt;
}

bool AnnotationSet::has_allele_specific() const {
  return std::any_of(kAsStandardAnnotation.begin(), kAsStandardAnnotation.end(),
                     [this](Annotation a) { return contains(a); });
}

AnnotationSet AnnotationSet::without_allele_specific() const {
  AnnotationSet set = *this;
  for (const Annotation annotation : kAsStandardAnnotation) set.remove(annotation);
  return set;
}

bool AnnotationSet::declares(std::string_view kind, std::string_view id) const {
  bool owned = false;
  for (const auto& [definition, annotation] : kDefinitionOwners) {
    if (definition.first != kind || definition.second != id) continue;
    if (contains(annotation)) return true;
    owned = true;
  }
  return !owned;
}

AnnotationSet resolve_annotations(const AnnotationArguments& arguments,
                                  std::vector<std::string>& warnings) {
  const AnnotationSet defaults = AnnotationSet::haplotype_caller_defaults();
  AnnotationSet set;
  if (!arguments.disable_tool_defaults) set = defaults;
  for (const std::string& group : arguments.groups) {
    if (group == "StandardAnnotation") {
      add_all(set, kStandardAnnotation);
    } else if (group == "StandardHCAnnotation") {
      add_all(set, kStandardHCAnnotation);
    } else if (group == "AS_StandardAnnotation") {
      add_all(set, kAsStandardAnnotation);
      continue;
    } else {
      throw Error("--annotation-group " + group +
                  ": not a group gpu-pipeline computes (StandardAnnotation, StandardHCAnnotation, "
                  "AS_StandardAnnotation)");
    }
    // Both are HaplotypeCaller's default groups.
    warnings.push_back("Redundant enabled annotation group (" + group +
                       ") is enabled for this tool by default");
  }
  for (const std::string& name : arguments.enabled) {
    if (std::find(arguments.excluded.begin(), arguments.excluded.end(), name) !=
        arguments.excluded.end()) {
      throw Error("The annotation(s): " + name + " are both enabled and disabled");
    }
    const Annotation annotation = known_annotation(name, "--annotation");
    if (defaults.contains(annotation)) {
      warnings.push_back("Redundant enabled annotation (" + name +
                         ") is enabled for this tool by default");
    }
    set.add(annotation);
  }
  for (const std::string& name : arguments.excluded) {
    const Annotation annotation = known_annotation(name, "--annotations-to-exclude");
    if (!defaults.contains(annotation)) {
      warnings.push_back("Disabled annotation (" + name + ") is not enabled by this tool");
    }
    set.remove(annotation);
  }
  return set;
}

}  // namespace gpp::stages::call
