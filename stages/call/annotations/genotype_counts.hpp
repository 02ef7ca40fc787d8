// Annotations computed from the called genotypes:
//  - AC, AF, AN (ChromosomeCounts -> htsjdk VariantContextUtils.calculateChromosomeCounts): AN =
//    called alleles over all genotypes; per ALT, AC = its called copies and AF = AC / AN (a Double,
//    written by vcf_format_double); nothing when AN = 0;
//  - MLEAC / MLEAF (GenotypingEngine.composeCallAttributes): the AF calculation's MLE counts, and
//    min(1, MLEAC / AN) with AN the called alleles of the genotypes, always written as lists;
//  - ExcessHet (ExcessHet.calculateEH over GenotypeUtils.computeDiploidGenotypeCounts, rounding
//    on): per diploid genotype with PLs, its normalized PL probabilities (for several ALTs:
//    REF/REF, REF/best-ALT, best-ALT/best-ALT renormalized, and any genotype whose most likely call
//    carries no REF counts hom-var) are rounded to ref / het / hom-var counts; the right-sided
//    Hardy-Weinberg exact test (Wigginton et al. 2005, no mid-p since GATK 4.2.4) gives p and the
//    value is -10 log10 p ("%.4f"), 160 when p < 1e-59. Written when at least one genotype is
//    called and diploid. A single het sample gives 0.0000 (older GATK, with mid-p: 3.0103).
//
// @code
//   excess_het_exact_test(21, 79, 0) == 0.3096036754839548 (approximately)
// @endcode
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stages/call/annotations/site_evidence.hpp"

namespace gpp::stages::call {

struct ChromosomeCounts {
  int allele_number = 0;                   ///< AN
  std::vector<int> allele_counts;          ///< AC per ALT
  std::vector<double> allele_frequencies;  ///< AF per ALT
};

/**
 * @brief ChromosomeCounts.annotate.
 * @param genotypes  the call's genotypes
 * @param alt_count  number of ALT alleles of the call
 * @return nullopt when there are no genotypes or no called allele (nothing is written)
 */
std::optional<ChromosomeCounts> chromosome_counts(std::span<const Genotype> genotypes,
                                                  int alt_count);

/// GenotypingEngine.calculateMLEAlleleFrequencies: min(1, count / called alleles) per count.
std::vector<double> mle_allele_frequencies(std::span<const int> mle_allele_counts,
                                           std::span<const Genotype> genotypes);

/// Ref / het / hom-var counts (GenotypeCounts).
struct DiploidGenotypeCounts {
  double hom_ref = 0;
  double het = 0;
  double hom_var = 0;
};

/**
 * @brief GenotypeUtils.computeDiploidGenotypeCounts(vc, genotypes, round = true) for genotypes
 * that all have PLs (HaplotypeCaller's do); diploid genotypes without PLs are skipped.
 * @throws gpp::Error if a PL vector has the wrong length for allele_count
 */
DiploidGenotypeCounts diploid_genotype_counts(std::span<const Genotype> genotypes,
                                              int allele_count);

/**
 * @brief ExcessHet.exactTest: right-sided Hardy-Weinberg p-value of seeing het_count or more hets.
 * @throws gpp::Error if a count is negative
 */
double excess_het_exact_test(int het_count, int hom_ref_count, int hom_var_count);

/// ExcessHet.calculateEH's value for counts: -10 log10 p (+ 0.0), or 160 when p < 1e-59.
double excess_het_phred(const DiploidGenotypeCounts& counts);

/**
 * @brief ExcessHet.annotate for a variant call: "%.4f" of excess_het_phred.
 * @return nullopt when no genotype is called and diploid
 */
std::optional<std::string> excess_het_text(std::span<const Genotype> genotypes, int allele_count);

}  // namespace gpp::stages::call
