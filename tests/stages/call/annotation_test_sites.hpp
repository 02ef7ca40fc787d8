// Test helpers for the variant-annotation tests: SiteEvidence built the way GATK's
// ArtificialAnnotationUtils.makeLikelihoods builds its AlleleLikelihoods (a REF read has log10
// likelihood -1 for REF, an ALT read -1 for ALT, and the given value for the other allele).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/annotations/site_annotations.hpp"
#include "stages/call/annotations/site_evidence.hpp"

namespace gpp::stages::call::annotation_testing {

inline constexpr double kMatchLikelihood = -1.0;  // ArtificialAnnotationUtils.MATCH_LIKELIHOOD

struct TestRead {
  bool reverse = false;
  std::uint8_t mapping_quality = 60;
  std::optional<double> base_quality;
  std::optional<double> read_position;
  std::uint32_t sample = 0;

  TestRead reversed() const {
    return with([](TestRead& r) { r.reverse = true; });
  }
  TestRead in_sample(std::uint32_t s) const {
    return with([s](TestRead& r) { r.sample = s; });
  }
  TestRead with_mapping_quality(std::uint8_t mq) const {
    return with([mq](TestRead& r) { r.mapping_quality = mq; });
  }
  TestRead with_base_quality(double q) const {
    return with([q](TestRead& r) { r.base_quality = q; });
  }
  TestRead with_read_position(double p) const {
    return with([p](TestRead& r) { r.read_position = p; });
  }

 private:
  template <typename F>
  TestRead with(F change) const {
    TestRead copy = *this;
    change(copy);
    return copy;
  }
};

inline const TestRead kForwardRead{};
inline const TestRead kReverseRead = TestRead{}.reversed();

inline void add_read(SiteEvidence& site, const TestRead& read, const std::vector<double>& row) {
  AnnotationRead r;
  r.sample = read.sample;
  r.reverse_strand = read.reverse;
  r.mapping_quality = read.mapping_quality;
  r.base_quality = read.base_quality;
  r.read_position = read.read_position;
  site.reads.push_back(r);
  site.log10_likelihoods.insert(site.log10_likelihoods.end(), row.begin(), row.end());
}

/// A REF/ALT site with one genotype per entry of `genotypes` (default: one 0/1 sample).
inline SiteEvidence biallelic_site(const std::vector<TestRead>& ref_reads,
                                   const std::vector<TestRead>& alt_reads,
                                   double ref_read_alt_likelihood = -100.0,
                                   double alt_read_ref_likelihood = -100.0,
                                   std::vector<Genotype> genotypes = {{{0, 1}, {30, 0, 190}}}) {
  SiteEvidence site;
  site.likelihood_allele_count = 2;
  site.call_alleles = {0, 1};
  site.samples = std::move(genotypes);
  site.log10_p_error = -5;
  for (const TestRead& r : ref_reads)
    add_read(site, r, {kMatchLikelihood, ref_read_alt_likelihood});
  for (const TestRead& r : alt_reads)
    add_read(site, r, {alt_read_ref_likelihood, kMatchLikelihood});
  return site;
}

/// `count` copies of a read.
inline std::vector<TestRead> reads(int count, const TestRead& read = {}) {
  return std::vector<TestRead>(static_cast<std::size_t>(count), read);
}

/// The value of an INFO key, or nullopt when it is not written.
inline std::optional<std::string> info_value(const SiteAnnotations& annotations,
                                             std::string_view key) {
  for (const InfoField& field : annotations.info) {
    if (field.key == key) return field.value;
  }
  return std::nullopt;
}

}  // namespace gpp::stages::call::annotation_testing
