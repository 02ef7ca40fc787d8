// The genotyping of one HaplotypeCaller site: GATK GenotypingEngine.calculateGenotypes as
// HaplotypeCallerGenotypingEngine calls it (any output mode, forced alleles of --alleles,
// --use-posteriors-to-calculate-qual off, USE_PLS_TO_ASSIGN). In VCF mode:
//  1. each sample's genotype likelihoods are quantised to PLs (calculateGLsForThisEvent stores
//     PLs; everything downstream reads PL / -10);
//  2. with more than --max-alternate-alleles alts, the alts of largest likelihood sum are kept for
//     the allele-frequency model (AlleleSubsettingUtils.calculateMostLikelyAlleles);
//  3. the allele-frequency model gives P(no variant) and per-alt P(absent);
//  4. an alt is output when P(absent) < 10^(-stand_call_conf / 10) (a '*' allele only when an
//     emitted upstream deletion covers the site); with no such alt the site is monomorphic;
//  5. QUAL = -10 log10 P(no variant) (of a monomorphic site -10 log10 P(variant)); the site is
//     emitted when it is polymorphic and QUAL >= stand_call_conf (30), and not when its only
//     output alt is '*'. --output-mode EMIT_ALL_CONFIDENT_SITES also emits a monomorphic site at
//     that QUAL, with the reference allele alone; EMIT_ALL_ACTIVE_SITES emits every site (the
//     '*'-only ones too), FILTER LowQual below the threshold;
//  6. genotypes are called from the PLs restricted to the output alleles; MLEAC from the model,
//     MLEAF = min(1, MLEAC / AN) with AN the called alleles. With the reference allele alone the
//     genotype is hom-ref without GQ or PL (GATKVariantContextUtils.subsetToRefOnly).
// In reference-confidence (gVCF) mode see GenotypingOptions::reference_confidence: with
// stand_call_conf 0 every alt whose absence is not certain is plausible, all alts are output, and a
// site is dropped only when it is monomorphic (or at the shared '*' rule).
//
// @code
//   std::vector<SampleGenotypeLikelihoods> samples = {{2, {-93.4, 0.0, -124.8}}};
//   std::vector<AlleleDescription> alleles = {{1, false}, {1, false}};
//   SiteCall call = calculate_genotypes(samples, alleles, false, GenotypingOptions{});
//   // call.emitted, call.qual ~ 926.64, call.genotypes[0].alleles == {0, 1}, gq 99, PL 934,0,1248
// @endcode
#pragma once

#include <span>
#include <vector>

#include "stages/call/allele_frequency_calculator.hpp"
#include "stages/call/allele_subsetting.hpp"
#include "stages/call/genotype_assignment.hpp"
#include "stages/call/genotype_likelihoods.hpp"

namespace gpp::stages::call {

/// GATK's default --standard-min-confidence-threshold-for-calling.
inline constexpr double kDefaultStandardConfidenceForCalling = 30.0;

/// Sites with more alleles than this are skipped (htsjdk
/// MAX_DIPLOID_ALT_ALLELES_THAT_CAN_BE_GENOTYPED).
inline constexpr int kMaxAllelesThatCanBeGenotyped = 50;

/// --output-mode (GATK OutputMode): which sites a call is made at.
enum class OutputMode {
  kVariantsOnly,       ///< EMIT_VARIANTS_ONLY: variant sites at QUAL >= stand_call_conf
  kAllConfidentSites,  ///< EMIT_ALL_CONFIDENT_SITES: also sites confidently hom-ref (ALT '.')
  kAllActiveSites,     ///< EMIT_ALL_ACTIVE_SITES: every genotyped site, LowQual below the
                       ///< threshold
};

/// The genotyping arguments of HaplotypeCaller that this step reads.
struct GenotypingOptions {
  double standard_confidence_for_calling = kDefaultStandardConfidenceForCalling;
  OutputMode output_mode = OutputMode::kVariantsOnly;
  int max_alternate_alleles = kDefaultMaxAlternateAlleles;
  AlleleFrequencyPriors priors = priors_from_heterozygosity();
  /// Reference-confidence (gVCF) mode, as HaplotypeCallerEngine sets it up: stand_call_conf 0 (set
  /// by the caller's options), every alt kept (HaplotypeCallerGenotypingEngine.forceKeepAllele),
  /// all_site_pls (set by the caller's options), and the <NON_REF> allele
  /// (AlleleDescription::is_non_ref) kept by the max-alt-alleles subsetting.
  bool reference_confidence = false;
  /// --all-site-pls (annotateAllSitesWithPLs, forced on in reference-confidence mode): QUAL is
  /// -10 log10 P(no variant) at monomorphic sites too, instead of -10 log10 P(variant present).
  bool all_site_pls = false;
};

/// The outcome for one site.
struct SiteCall {
  bool emitted = false;      ///< false where GATK returns no call (the site is not written)
  std::vector<int> alleles;  ///< output alleles as indices into the input alleles; [0] is 0
  double qual = 0.0;         ///< phred-scaled confidence (QUAL)
  bool low_qual = false;     ///< FILTER LowQual: QUAL < stand_call_conf (EMIT_ALL_ACTIVE_SITES)
  std::vector<Genotype> genotypes;             ///< per sample; allele i means alleles[i]
  std::vector<int> mle_allele_counts;          ///< MLEAC, per output alt
  std::vector<double> mle_allele_frequencies;  ///< MLEAF, per output alt
  std::vector<int> model_alleles;              ///< alleles the frequency model saw (input indices)
  AfCalcResult model;                          ///< the frequency model's result over model_alleles
};

/**
 * @brief GenotypingEngine.calculateGenotypes for one HaplotypeCaller site in VCF mode.
 *
 * @param samples  each sample's ploidy and genotype log10 likelihoods over all the site's alleles
 *                 (log10_genotype_likelihoods' output; PL-quantised inputs give the same result)
 * @param alleles  the site's alleles, reference first
 * @param covered_by_upstream_deletion whether an emitted upstream deletion spans this site (GATK
 *                 GenotypingEngine.isVcCoveredByDeletion; the caller tracks emitted deletions);
 *                 without it a '*' allele is never output
 * @param options  stand_call_conf, max alternate alleles, priors
 * @param forced   alleles (indices into `alleles`) consistent with a given allele (--alleles):
 *                 output whenever the frequency model sees them, plausible or not, and with any
 *                 of them the site is emitted whatever its QUAL (not when its only output alt
 *                 is '*')
 * @return the call; emitted is false where GATK returns null (also for no sample, or more than
 *         kMaxAllelesThatCanBeGenotyped alleles)
 * @throws gpp::Error when fewer than 2 alleles are given or a sample's likelihood count does not
 *         match its ploidy and the allele count
 */
SiteCall calculate_genotypes(std::span<const SampleGenotypeLikelihoods> samples,
                             std::span<const AlleleDescription> alleles,
                             bool covered_by_upstream_deletion, const GenotypingOptions& options,
                             std::span<const int> forced = {});

}  // namespace gpp::stages::call
