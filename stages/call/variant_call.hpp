// One called site as the VCF writer needs it: what HaplotypeCaller's annotated VariantContext
// holds in VCF mode (alleles, QUAL, INFO annotations, one sample's GT:AD:DP:GQ:PL).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stages/call/annotations/site_annotations.hpp"
#include "stages/call/genotype_assignment.hpp"

namespace gpp::stages::call {

struct VariantCall {
  std::int32_t contig = -1;
  std::int64_t position = 0;         ///< 0-based position of the reference allele
  std::vector<std::string> alleles;  ///< REF first; '*' for a spanning deletion
  double qual = 0.0;                 ///< phred-scaled, as GATK reports it
  std::vector<InfoField> info;       ///< sorted by key, formatted as GATK writes them
  Genotype genotype;                 ///< allele indices into `alleles`
  SampleAnnotations sample;          ///< AD, DP

  friend bool operator<(const VariantCall& a, const VariantCall& b) {
    return a.contig != b.contig ? a.contig < b.contig : a.position < b.position;
  }
};

}  // namespace gpp::stages::call
