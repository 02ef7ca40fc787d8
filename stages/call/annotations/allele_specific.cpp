#include "stages/call/annotations/allele_specific.hpp"

#include <cmath>

#include "stages/call/annotations/java_number_format.hpp"
#include "stages/call/annotations/mann_whitney_u.hpp"
#include "stages/call/annotations/rank_sum.hpp"

namespace gpp::stages::call {

namespace {

constexpr int kMappingQualityUnavailable = 255;
constexpr int kStrandBiasMinCount = 2;  // StrandBiasUtils.MIN_COUNT
constexpr double kHistogramBinSize = 0.1;
constexpr double kHistogramBinEpsilon = 0.01;

/// AS_RankSumTest.makeRawAnnotationString over calculateRankSum: '|' and each ALT's z.
std::string rank_sum_raw_text(const std::vector<std::vector<double>>& values) {
  std::string text;
  for (std::size_t allele = 1; allele < values.size(); ++allele) {
    text += '|';
    // No REF value: calculateRankSum gives no allele a value.
    if (values[0].empty()) continue;
    text += allele_specific_histogram_text(
        mann_whitney_u_test(values[allele], values[0], MannWhitneyTestType::kFirstDominates).z);
  }
  return text;
}

}  // namespace

std::string allele_specific_histogram_text(double value) {
  if (std::isnan(value)) return "NaN";
  const auto bin = static_cast<long long>(std::llround(
      std::floor((value + kHistogramBinEpsilon * kHistogramBinSize) / kHistogramBinSize)));
  return java_format_fixed(static_cast<double>(static_cast<int>(bin)) * kHistogramBinSize, 1) +
         ",1";
}

AlleleSpecificData::AlleleSpecificData(std::size_t alleles, std::size_t samples)
    : squared_mapping_quality_(alleles, 0.0),
      sample_strands_(samples, std::vector<std::array<int, 2>>(alleles, {0, 0})),
      strands_(alleles, {0, 0}),
      mapping_quality_(alleles),
      base_quality_(alleles),
      read_position_(alleles) {}

void AlleleSpecificData::add_read(std::size_t sample, std::size_t allele,
                                  const AnnotationRead& read) {
  if (read.mapping_quality != kMappingQualityUnavailable) {
    squared_mapping_quality_[allele] +=
        static_cast<double>(read.mapping_quality) * read.mapping_quality;
  }
  ++sample_strands_[sample][allele][read.reverse_strand ? 1 : 0];
  if (!rank_sum_usable_mapping_quality(read.mapping_quality)) return;
  // getElementForRead's value, cast to int as calculateRawData stores it.
  mapping_quality_[allele].push_back(read.mapping_quality);
  if (read.base_quality) {
    base_quality_[allele].push_back(static_cast<int>(*read.base_quality));
  }
  if (read.read_position) {
    read_position_[allele].push_back(static_cast<int>(*read.read_position));
  }
}

void AlleleSpecificData::end_sample(std::size_t sample) {
  int reads = 0;
  for (const auto& counts : sample_strands_[sample]) reads += counts[0] + counts[1];
  if (reads <= kStrandBiasMinCount) return;
  for (std::size_t allele = 0; allele < strands_.size(); ++allele) {
    strands_[allele][0] += sample_strands_[sample][allele][0];
    strands_[allele][1] += sample_strands_[sample][allele][1];
  }
}

void AlleleSpecificData::append_fields(const AnnotationSet& annotations,
                                       std::vector<InfoField>& info) const {
  if (annotations.contains(Annotation::kAsBaseQualityRankSumTest)) {
    info.push_back({"AS_RAW_BaseQRankSum", rank_sum_raw_text(base_quality_)});
  }
  if (annotations.contains(Annotation::kAsRMSMappingQuality)) {
    std::string text;
    for (const double sum : squared_mapping_quality_) {
      if (!text.empty()) text += '|';
      text += java_format_fixed(sum, 2);
    }
    info.push_back({"AS_RAW_MQ", text});
  }
  if (annotations.contains(Annotation::kAsMappingQualityRankSumTest)) {
    info.push_back({"AS_RAW_MQRankSum", rank_sum_raw_text(mapping_quality_)});
  }
  if (annotations.contains(Annotation::kAsReadPosRankSumTest)) {
    info.push_back({"AS_RAW_ReadPosRankSum", rank_sum_raw_text(read_position_)});
  }
  if (annotations.contains(Annotation::kAsFisherStrand) ||
      annotations.contains(Annotation::kAsStrandOddsRatio)) {
    std::string text;
    for (const auto& counts : strands_) {
      if (!text.empty()) text += '|';
      text += std::to_string(counts[0]) + ',' + std::to_string(counts[1]);
    }
    info.push_back({"AS_SB_TABLE", text});
  }
}

}  // namespace gpp::stages::call
