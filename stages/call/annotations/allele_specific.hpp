// The allele-specific annotations (GATK's AS_StandardAnnotation group) as HaplotypeCaller writes
// them in reference-confidence (gVCF) mode: the raw data GenotypeGVCFs combines across samples
// (VariantAnnotatorEngine with useRaw: ReducibleAnnotation.annotateRawData), one value per allele
// of the call, REF and <NON_REF> included, joined by '|':
//  - AS_RAW_MQ (AS_RMSMappingQuality): per allele the sum of squared mapping qualities of the
//    informative reads whose best allele it is (MQ 255 left out), "%.2f";
//  - AS_SB_TABLE (AS_FisherStrand, AS_StrandOddsRatio; StrandBiasUtils): per allele
//    "forward,reverse" counts of those reads, of the samples with more than 2 of them;
//  - AS_RAW_BaseQRankSum, AS_RAW_MQRankSum, AS_RAW_ReadPosRankSum (AS_RankSumTest): per ALT
//    (<NON_REF> too) the Mann-Whitney z of its reads' values (truncated to integers) against the
//    REF reads', written as a one-value histogram (Histogram: bins of 0.1, "bin,1"; "NaN" when the
//    ALT has no value); nothing after the '|' when no REF read has a value. Reads count as in the
//    rank sums (usable mapping quality, a value for the test).
// AS_QualByDepth and AS_InbreedingCoeff have no raw data: only their header lines are written.
//
// @code
//   AlleleSpecificData data(3, 1);   // REF, T, <NON_REF>; one sample
//   data.add_read(0, 1, read);       // an informative read whose best allele is T
//   data.end_sample(0);
//   data.append_fields(annotations, info);  // AS_RAW_MQ=0.00|3600.00|0.00; ...
// @endcode
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "stages/call/annotations/annotation_set.hpp"
#include "stages/call/annotations/site_annotations.hpp"
#include "stages/call/annotations/site_evidence.hpp"

namespace gpp::stages::call {

class AlleleSpecificData {
 public:
  AlleleSpecificData(std::size_t alleles, std::size_t samples);

  /// An informative read of `sample` whose best allele is the call's allele `allele` (0: REF).
  void add_read(std::size_t sample, std::size_t allele, const AnnotationRead& read);
  /// The sample's reads are all in: its strand counts join the site's if it has more than 2.
  void end_sample(std::size_t sample);

  /// The raw fields of the allele-specific annotations in `annotations` (unsorted).
  void append_fields(const AnnotationSet& annotations, std::vector<InfoField>& info) const;

 private:
  using Values = std::vector<std::vector<double>>;  ///< per allele
  std::vector<double> squared_mapping_quality_;
  std::vector<std::vector<std::array<int, 2>>> sample_strands_;  ///< [sample][allele]
  std::vector<std::array<int, 2>> strands_;
  Values mapping_quality_, base_quality_, read_position_;
};

/// Histogram.toString of one value: "bin,1" with bins of 0.1 ("%.1f"), "NaN" for NaN.
std::string allele_specific_histogram_text(double value);

}  // namespace gpp::stages::call
