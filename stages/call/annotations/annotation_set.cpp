#include "stages/call/annotations/annotation_set.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

constexpr std::array<std::pair<std::string_view, Annotation>,
                     static_cast<std::size_t>(Annotation::kCount)>
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
    }};

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

/// Header definitions and the annotation declaring each.
constexpr std::array<std::pair<std::pair<std::string_view, std::string_view>, Annotation>, 17>
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
        // FORMAT DP is one of the standard lines every caller declares (makeVCFHeader).
        {{"FORMAT", "DP"}, Annotation::kCount},
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
              "; GATK's allele-specific AS_* and other optional annotations are not available)");
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

std::optional<Annotation> annotation_of_definition(std::string_view kind, std::string_view id) {
  for (const auto& [definition, annotation] : kDefinitionOwners) {
    if (definition.first == kind && definition.second == id) {
      if (annotation == Annotation::kCount) return std::nullopt;
      return annotation;
    }
  }
  return std::nullopt;
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
    } else {
      throw Error("--annotation-group " + group +
                  ": not a group gpu-pipeline computes (StandardAnnotation, StandardHCAnnotation; "
                  "GATK's AS_StandardAnnotation is not available)");
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
