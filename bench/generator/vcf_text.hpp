// The simulated sample's variants as VCF 4.2 text: the phased truth set and the sites-only
// known-sites file.
#pragma once

#include <string>
#include <vector>

#include "bench/generator/truth_set.hpp"

namespace gpp::bench {

struct ContigVariants {
  std::string name;
  std::int64_t length = 0;
  const std::vector<Variant>* variants = nullptr;  ///< sorted by position
};

/// Truth VCF: one sample `sample`, GT phased as haplotype 1 | haplotype 2 (the reads' HP tags).
std::string truth_vcf_text(const std::vector<ContigVariants>& contigs, const std::string& sample,
                           const std::string& reference);

/// Sites-only VCF (eight columns) of the known sites.
std::string known_sites_vcf_text(const std::vector<ContigVariants>& contigs,
                                 const std::string& reference);

}  // namespace gpp::bench
