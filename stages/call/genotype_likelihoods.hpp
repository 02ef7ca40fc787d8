// Genotype log10 likelihoods of one sample from its read-by-allele log10 likelihoods, as GATK
// GenotypeLikelihoodCalculator.computeLog10GenotypeLikelihoods does it for HaplotypeCaller
// (IndependentSampleGenotypesModel):
//
//   log10 P(reads | g) = sum over reads r of log10( sum over alleles a in g of count_a * L(r|a) )
//                        - nReads * log10(ploidy)
//
// with GATK's numerics per genotype shape: homozygotes sum the allele's row; genotypes with two
// distinct alleles use approximateLog10SumLog10 (Jacobian lookup table) per read; genotypes with
// three or more distinct alleles (ploidy > 2 and more than 2 alleles) go through linear space after
// subtracting each read's best allele likelihood, which is added back at the end.
//
// @code
//   // 2 alleles x 1 read, L(r|ref) = 10^-1, L(r|alt) = 10^-3; diploid
//   std::vector<double> values = {-1.0, -3.0};
//   auto gl = log10_genotype_likelihoods(2, {values, 2, 1});
//   // gl ~ {-1.0, log10((0.1 + 0.001) / 2), -3.0}   (0/0, 0/1, 1/1; the middle one through
//   // the lookup table, within 1e-8)
// @endcode
#pragma once

#include <span>
#include <vector>

namespace gpp::stages::call {

/// One sample's read-by-allele log10 likelihoods (reads already marginalised to alleles),
/// allele-major: the likelihood of read r given allele a is values[a * read_count + r].
struct AlleleLikelihoodMatrix {
  std::span<const double> values;
  int allele_count = 0;
  int read_count = 0;

  double at(int allele, int read) const { return values[allele * read_count + read]; }
};

/// One sample's genotype log10 likelihoods in canonical (PL) order, with the sample's ploidy.
struct SampleGenotypeLikelihoods {
  int ploidy = 2;
  std::vector<double> log10_likelihoods;
};

/**
 * @brief GATK GenotypeLikelihoodCalculator.computeLog10GenotypeLikelihoods.
 *
 * @param ploidy the sample's ploidy (1 or more)
 * @param reads  read-by-allele log10 likelihoods of the sample; zero reads gives all zeros
 * @return one log10 likelihood per genotype, in canonical order (genotype_count(ploidy, alleles))
 * @throws gpp::Error when ploidy < 1, there is no allele, values.size() != alleles * reads, or
 *         the genotype count is too large (see genotype_count)
 */
std::vector<double> log10_genotype_likelihoods(int ploidy, const AlleleLikelihoodMatrix& reads);

}  // namespace gpp::stages::call
