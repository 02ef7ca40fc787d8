// The annotation options resolved as GATK's annotation plugin resolves them for HaplotypeCaller
// (GATKAnnotationPluginDescriptor.getResolvedInstances and validateAndResolvePlugins; its
// reference-confidence change, HaplotypeCallerEngine.filterReferenceConfidenceAnnotations).
#include "stages/call/annotations/annotation_set.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

AnnotationSet resolved(const AnnotationArguments& arguments,
                       std::vector<std::string>* out = nullptr) {
  std::vector<std::string> warnings;
  AnnotationSet set = resolve_annotations(arguments, warnings);
  if (out) *out = warnings;
  return set;
}

TEST(AnnotationSet, DefaultsAreTheStandardGroups) {
  const AnnotationSet defaults = AnnotationSet::haplotype_caller_defaults();
  for (const char* name :
       {"BaseQualityRankSumTest", "ChromosomeCounts", "Coverage", "DepthPerAlleleBySample",
        "DepthPerSampleHC", "ExcessHet", "FisherStrand", "InbreedingCoeff",
        "MappingQualityRankSumTest", "QualByDepth", "RMSMappingQuality", "ReadPosRankSumTest",
        "StrandOddsRatio"}) {
    EXPECT_TRUE(defaults.contains(*annotation_named(name))) << name;
  }
  EXPECT_FALSE(defaults.contains(Annotation::kStrandBiasBySample));
  std::vector<std::string> warnings;
  EXPECT_EQ(resolved({}, &warnings), defaults);
  EXPECT_TRUE(warnings.empty());
}

TEST(AnnotationSet, EnabledGroupsAndExcluded) {
  AnnotationArguments arguments;
  arguments.enabled = {"StrandBiasBySample", "Coverage"};
  arguments.excluded = {"FisherStrand", "StrandBiasBySample2"};
  EXPECT_THROW(resolved(arguments), Error);  // no such annotation
  arguments.excluded = {"FisherStrand", "DepthPerAlleleBySample"};
  std::vector<std::string> warnings;
  AnnotationSet set = resolved(arguments, &warnings);
  AnnotationSet expected = AnnotationSet::haplotype_caller_defaults();
  expected.add(Annotation::kStrandBiasBySample);
  expected.remove(Annotation::kFisherStrand);
  expected.remove(Annotation::kDepthPerAlleleBySample);
  EXPECT_EQ(set, expected);
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "Redundant enabled annotation (Coverage) is enabled for this tool by "
                          "default"}));

  // Without the tool's defaults: only what -A and -G name, minus -AX.
  AnnotationArguments only;
  only.disable_tool_defaults = true;
  only.groups = {"StandardHCAnnotation"};
  only.enabled = {"QualByDepth"};
  only.excluded = {"StrandBiasBySample"};
  set = resolved(only, &warnings);
  expected = AnnotationSet();
  expected.add(Annotation::kDepthPerSampleHC);
  expected.add(Annotation::kQualByDepth);
  EXPECT_EQ(set, expected);
  EXPECT_EQ(warnings.size(), 3u);  // a default group, a default annotation, an unused exclusion
  EXPECT_EQ(warnings.back(),
            "Disabled annotation (StrandBiasBySample) is not enabled by this tool");
  only.groups = {"StandardAnnotation"};
  set = resolved(only);
  EXPECT_TRUE(set.contains(Annotation::kFisherStrand));
  EXPECT_FALSE(set.contains(Annotation::kDepthPerSampleHC));
}

TEST(AnnotationSet, RefusedNames) {
  AnnotationArguments both;
  both.enabled = {"FisherStrand"};
  both.excluded = {"FisherStrand"};
  EXPECT_THROW(resolved(both), Error);
  AnnotationArguments unknown_group;
  unknown_group.groups = {"ReducibleAnnotation"};
  EXPECT_THROW(resolved(unknown_group), Error);
  AnnotationArguments other;
  other.enabled = {"TandemRepeat"};
  try {
    resolved(other);
    FAIL() << "TandemRepeat is not computed here";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--annotation TandemRepeat: not an annotation"),
              std::string::npos)
        << e.what();
  }
}

TEST(AnnotationSet, ReferenceConfidenceMode) {
  AnnotationSet set = AnnotationSet::haplotype_caller_defaults();
  set.remove(Annotation::kCoverage);
  const AnnotationSet gvcf = set.for_reference_confidence();
  EXPECT_TRUE(gvcf.contains(Annotation::kStrandBiasBySample));
  for (const Annotation removed :
       {Annotation::kChromosomeCounts, Annotation::kFisherStrand, Annotation::kStrandOddsRatio,
        Annotation::kQualByDepth, Annotation::kCoverage}) {
    EXPECT_FALSE(gvcf.contains(removed));
  }
  EXPECT_TRUE(gvcf.contains(Annotation::kRMSMappingQuality));
  EXPECT_EQ(gvcf.for_reference_confidence(), gvcf);
}

TEST(AnnotationSet, DeclaredDefinitions) {
  AnnotationSet set = AnnotationSet::haplotype_caller_defaults();
  EXPECT_TRUE(set.declares("INFO", "AF"));
  EXPECT_TRUE(set.declares("FORMAT", "AD"));
  EXPECT_FALSE(set.declares("FORMAT", "SB"));
  EXPECT_FALSE(set.declares("INFO", "AS_SB_TABLE"));
  set.remove(Annotation::kChromosomeCounts);
  set.remove(Annotation::kRMSMappingQuality);
  EXPECT_FALSE(set.declares("INFO", "AF"));
  EXPECT_FALSE(set.declares("INFO", "RAW_MQandDP"));
  // Lines of no annotation are always declared.
  for (const char* id : {"DP", "GT", "GQ", "PL"}) EXPECT_TRUE(set.declares("FORMAT", id)) << id;
  EXPECT_TRUE(set.declares("INFO", "MLEAC"));
  EXPECT_TRUE(set.declares("INFO", "END"));
  // AS_SB_TABLE is the raw data of AS_FisherStrand and of AS_StrandOddsRatio.
  set.add(Annotation::kAsStrandOddsRatio);
  EXPECT_TRUE(set.declares("INFO", "AS_SB_TABLE"));
  EXPECT_TRUE(set.has_allele_specific());
  EXPECT_FALSE(set.without_allele_specific().has_allele_specific());
}

TEST(AnnotationSet, AlleleSpecificGroup) {
  AnnotationArguments arguments;
  arguments.groups = {"StandardAnnotation", "AS_StandardAnnotation"};
  arguments.excluded = {"AS_QualByDepth"};
  std::vector<std::string> warnings;
  const AnnotationSet set = resolved(arguments, &warnings);
  for (const char* name : {"AS_BaseQualityRankSumTest", "AS_FisherStrand", "AS_InbreedingCoeff",
                           "AS_MappingQualityRankSumTest", "AS_RMSMappingQuality",
                           "AS_ReadPosRankSumTest", "AS_StrandOddsRatio"}) {
    EXPECT_TRUE(set.contains(*annotation_named(name))) << name;
  }
  EXPECT_FALSE(set.contains(Annotation::kAsQualByDepth));
  EXPECT_TRUE(set.contains(Annotation::kFisherStrand));
  // Only StandardAnnotation is a default group; excluding AS_QualByDepth, not a default, warns.
  EXPECT_EQ(warnings.size(), 2u);
  // The reference-confidence rule leaves them.
  EXPECT_TRUE(set.for_reference_confidence().contains(Annotation::kAsFisherStrand));
}

}  // namespace
}  // namespace gpp::stages::call
