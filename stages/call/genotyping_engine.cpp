// One HaplotypeCaller site in VCF mode: GATK GenotypingEngine.calculateGenotypes
// (cannotBeGenotyped, calculateOutputAlleleSubset, passesEmitThreshold, passesCallThreshold,
// composeCallAttributes / calculateMLEAlleleFrequencies) with AlleleSubsettingUtils.subsetAlleles
// and HaplotypeCallerGenotypingEngine.calculateGLsForThisEvent's PL quantisation.
#include "stages/call/genotyping_engine.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"

namespace gpp::stages::call {
namespace {

// The genotypes as GATK holds them after calculateGLsForThisEvent: PLs, read back as PL / -10.
std::vector<SampleGenotypeLikelihoods> quantized_to_pls(
    std::span<const SampleGenotypeLikelihoods> samples) {
  std::vector<SampleGenotypeLikelihoods> quantized;
  quantized.reserve(samples.size());
  for (const SampleGenotypeLikelihoods& sample : samples) {
    const std::vector<int> pls = pls_from_log10_likelihoods(sample.log10_likelihoods);
    quantized.push_back({sample.ploidy, log10_likelihoods_from_pls(pls)});
  }
  return quantized;
}

// Likelihoods over a subset of alleles, rescaled so the best is 0 (subsetAlleles).
std::vector<double> likelihoods_over(const SampleGenotypeLikelihoods& sample,
                                     const std::vector<int>& kept_alleles) {
  const std::vector<int> indices = subsetted_genotype_indices(sample.ploidy, kept_alleles);
  return subset_log10_likelihoods(sample.log10_likelihoods, indices);
}

// Java's Math.min(1.0, AC / AN): NaN (0 / 0) stays NaN.
double mle_frequency(int allele_count, long long called_alleles) {
  const double frequency = static_cast<double>(allele_count) / static_cast<double>(called_alleles);
  return std::isnan(frequency) ? frequency : std::min(1.0, frequency);
}

}  // namespace

SiteCall calculate_genotypes(std::span<const SampleGenotypeLikelihoods> samples,
                             std::span<const AlleleDescription> alleles,
                             bool covered_by_upstream_deletion, const GenotypingOptions& options,
                             std::span<const int> forced) {
  const int allele_count = static_cast<int>(alleles.size());
  if (allele_count < 2) throw Error("genotyping: a site needs a reference and an alt allele");
  for (const SampleGenotypeLikelihoods& sample : samples) {
    if (sample.ploidy < 1 || static_cast<int>(sample.log10_likelihoods.size()) !=
                                 genotype_count(sample.ploidy, allele_count)) {
      throw Error("genotyping: a sample's likelihoods do not match its ploidy and " +
                  std::to_string(allele_count) + " alleles");
    }
  }
  SiteCall call;
  if (samples.empty() || allele_count > kMaxAllelesThatCanBeGenotyped) return call;

  const std::vector<SampleGenotypeLikelihoods> genotypes = quantized_to_pls(samples);

  // --max-alternate-alleles: the model sees the alts of largest likelihood sum, with PLs
  // re-derived from the subset (the reduced genotypes store PLs too).
  int non_ref_allele = -1;
  for (int a = 1; a < allele_count; ++a) {
    if (alleles[a].is_non_ref) non_ref_allele = a;
  }
  call.model_alleles =
      most_likely_alleles(genotypes, allele_count, options.max_alternate_alleles, non_ref_allele);
  std::vector<AlleleDescription> model_descriptions;
  for (const int allele : call.model_alleles) model_descriptions.push_back(alleles[allele]);
  std::vector<SampleGenotypeLikelihoods> model_genotypes;
  if (static_cast<int>(call.model_alleles.size()) == allele_count) {
    model_genotypes = genotypes;
  } else {
    for (const SampleGenotypeLikelihoods& sample : genotypes) {
      model_genotypes.push_back({sample.ploidy, likelihoods_over(sample, call.model_alleles)});
    }
    model_genotypes = quantized_to_pls(model_genotypes);
  }
  call.model = calculate_allele_frequencies(model_genotypes, model_descriptions, options.priors);

  // calculateOutputAlleleSubset: plausible alts (every alt in gVCF mode, forceKeepAllele) and the
  // forced ones, except a '*' no emitted deletion explains.
  bool monomorphic = true;
  std::vector<int> output_model_alts;
  for (int i = 1; i < static_cast<int>(call.model_alleles.size()); ++i) {
    const bool plausible = call.model.passes_threshold(i, options.standard_confidence_for_calling);
    const bool spurious_spanning_deletion =
        model_descriptions[i].is_spanning_deletion && !covered_by_upstream_deletion;
    monomorphic = monomorphic && !(plausible && !spurious_spanning_deletion);
    const bool is_forced =
        std::find(forced.begin(), forced.end(), call.model_alleles[i]) != forced.end();
    if ((plausible || options.reference_confidence || is_forced) && !spurious_spanning_deletion) {
      output_model_alts.push_back(i);
    }
  }

  const double log10_confidence = !monomorphic || options.all_site_pls
                                      ? call.model.log10_p_no_variant + 0.0
                                      : call.model.log10_p_variant_present() + 0.0;
  call.qual = (-10.0 * log10_confidence) + 0.0;
  const bool passes_call_threshold = call.qual >= options.standard_confidence_for_calling;
  // passesEmitThreshold and emitAllActiveSites (the exception for a first output alt <NON_REF>
  // never applies: HaplotypeCaller puts it last).
  const bool emit_all_active_sites = options.output_mode == OutputMode::kAllActiveSites;
  const bool passes_emit_threshold =
      (options.output_mode == OutputMode::kAllConfidentSites || !monomorphic) &&
      passes_call_threshold;
  if (!passes_emit_threshold && !emit_all_active_sites && forced.empty()) return call;
  if (!emit_all_active_sites && output_model_alts.size() == 1 &&
      model_descriptions[output_model_alts[0]].is_spanning_deletion) {
    return call;
  }

  call.emitted = true;
  call.low_qual = !passes_call_threshold;
  call.alleles.push_back(0);
  for (const int i : output_model_alts) {
    call.alleles.push_back(call.model_alleles[i]);
    call.mle_allele_counts.push_back(call.model.mle_allele_counts[i - 1]);
  }
  if (call.alleles.size() == 1) {
    // subsetToRefOnly: hom-ref genotypes without GQ or PL; no MLEAC.
    for (const SampleGenotypeLikelihoods& sample : genotypes) {
      Genotype genotype;
      genotype.alleles.assign(static_cast<std::size_t>(sample.ploidy), 0);
      call.genotypes.push_back(genotype);
    }
    return call;
  }

  // subsetAlleles from the site's full genotypes to the output alleles, GT/GQ from the PLs.
  const int output_allele_count = static_cast<int>(call.alleles.size());
  long long called_alleles = 0;
  for (const SampleGenotypeLikelihoods& sample : genotypes) {
    const std::vector<double> likelihoods = likelihoods_over(sample, call.alleles);
    call.genotypes.push_back(assign_genotype(sample.ploidy, likelihoods, output_allele_count));
    for (const int allele : call.genotypes.back().alleles) {
      if (allele != kNoCallAlleleIndex) ++called_alleles;
    }
  }
  for (const int count : call.mle_allele_counts) {
    call.mle_allele_frequencies.push_back(mle_frequency(count, called_alleles));
  }
  return call;
}

}  // namespace gpp::stages::call
