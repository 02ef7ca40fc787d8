// Genotype log10 likelihoods from read-by-allele likelihoods: GATK
// GenotypeLikelihoodCalculator.computeLog10GenotypeLikelihoods and its rescaledNonLogLikelihoods,
// with the same per-genotype-shape numerics and summation order.
#include "stages/call/genotype_likelihoods.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "stages/call/genotype_alleles.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {
namespace {

// Linear-space likelihoods after dividing each read's column by its best allele likelihood, and
// the log10 of the product of those maxima (GATK rescaledNonLogLikelihoods).
struct RescaledLikelihoods {
  std::vector<double> linear;  // allele-major, as the input
  double log10_rescaling = 0.0;
};

RescaledLikelihoods rescaled_linear_likelihoods(const AlleleLikelihoodMatrix& reads) {
  const int alleles = reads.allele_count;
  const int read_count = reads.read_count;
  std::vector<double> read_maxima(read_count, -std::numeric_limits<double>::infinity());
  for (int a = 0; a < alleles; ++a) {
    for (int r = 0; r < read_count; ++r) read_maxima[r] = std::max(read_maxima[r], reads.at(a, r));
  }
  RescaledLikelihoods result;
  result.linear.resize(static_cast<std::size_t>(alleles) * read_count);
  for (int a = 0; a < alleles; ++a) {
    for (int r = 0; r < read_count; ++r) {
      result.linear[a * read_count + r] = reads.at(a, r) - read_maxima[r];
    }
  }
  for (const double maximum : read_maxima) result.log10_rescaling += maximum;
  for (double& value : result.linear) value = std::pow(10.0, value);
  return result;
}

}  // namespace

std::vector<double> log10_genotype_likelihoods(int ploidy, const AlleleLikelihoodMatrix& reads) {
  if (ploidy < 1) throw Error("genotype likelihoods: ploidy must be 1 or greater");
  if (reads.allele_count < 1) throw Error("genotype likelihoods: no allele");
  if (reads.read_count < 0 ||
      reads.values.size() != static_cast<std::size_t>(reads.allele_count) * reads.read_count) {
    throw Error("genotype likelihoods: the matrix size does not match alleles x reads");
  }
  const int alleles = reads.allele_count;
  const int read_count = reads.read_count;
  const double log10_ploidy_per_read = read_count * std::log10(ploidy);

  const bool multiallelic_genotypes_possible = alleles > 2 && ploidy > 2;
  RescaledLikelihoods rescaled;
  std::vector<double> per_read(multiallelic_genotypes_possible ? read_count : 0);
  if (multiallelic_genotypes_possible) rescaled = rescaled_linear_likelihoods(reads);

  std::vector<double> result(genotype_count(ploidy, alleles));
  GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(ploidy);
  for (std::size_t g = 0; g < result.size(); ++g, genotype.increase()) {
    const int components = genotype.distinct_allele_count();
    if (components == 1) {
      // log10 P(reads | AA...A) = sum over reads of log10 P(read | A)
      const int allele = genotype.allele_index_at(0);
      double sum = 0.0;
      for (int r = 0; r < read_count; ++r) sum += reads.at(allele, r);
      result[g] = sum;
    } else if (components == 2) {
      const int allele1 = genotype.allele_index_at(0);
      const int allele2 = genotype.allele_index_at(1);
      const int count1 = genotype.allele_count_at(0);
      const double log10_count1 = std::log10(count1);
      const double log10_count2 = std::log10(ploidy - count1);
      double sum = 0.0;
      for (int r = 0; r < read_count; ++r) {
        sum += approximate_log10_sum_log10(reads.at(allele1, r) + log10_count1,
                                           reads.at(allele2, r) + log10_count2);
      }
      result[g] = sum - log10_ploidy_per_read;
    } else {
      std::fill(per_read.begin(), per_read.end(), 0.0);
      genotype.for_each_allele_index_and_count([&](int allele, int count) {
        const double* row = rescaled.linear.data() + static_cast<std::size_t>(allele) * read_count;
        for (int r = 0; r < read_count; ++r) per_read[r] += count * row[r];
      });
      double sum = 0.0;
      for (int r = 0; r < read_count; ++r) sum += std::log10(per_read[r]);
      result[g] = sum - log10_ploidy_per_read + rescaled.log10_rescaling;
    }
  }
  return result;
}

}  // namespace gpp::stages::call
