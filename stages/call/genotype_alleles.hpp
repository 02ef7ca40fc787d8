// Unphased genotypes of a given ploidy over alleles 0..A-1 and their VCF canonical order (the PL
// order), as GATK's GenotypeAlleleCounts and GenotypeIndexCalculator define them.
//
// The canonical order: haploid genotypes follow the allele order; otherwise genotype g comes before
// h when g's largest allele is smaller, and on a tie the remaining ploidy-1 alleles decide.
// Diploid: 0/0 0/1 1/1 0/2 1/2 2/2 0/3 ...; triploid: 0/0/0 0/0/1 0/1/1 1/1/1 0/0/2 0/1/2 1/1/2
// 0/2/2 ... The number of genotypes is C(P + A - 1, A - 1); the first genotype containing allele a
// has index C(P + a - 1, a - 1).
//
// @code
//   auto g = GenotypeAlleleCounts::first(2);  // 0/0, index 0
//   g.increase();                             // 0/1, index 1
//   g.increase();                             // 1/1, index 2
//   alleles_to_index(std::vector<int>{2, 0}); // == 3 (0/2)
// @endcode
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpp::stages::call {

/// One unphased genotype: the alleles it holds with their copy numbers, and its canonical index.
class GenotypeAlleleCounts {
 public:
  /// The first genotype of the given ploidy (all copies of allele 0); ploidy 0 has no alleles.
  /// @throws gpp::Error when ploidy is negative
  static GenotypeAlleleCounts first(int ploidy);

  /// Moves to the next genotype in canonical order (index + 1); ploidy 0 stays as it is.
  void increase();

  /// The next genotype in canonical order, leaving this one unchanged.
  GenotypeAlleleCounts next() const;

  int ploidy() const { return ploidy_; }
  int index() const { return index_; }
  int distinct_allele_count() const { return static_cast<int>(allele_counts_.size() / 2); }

  /// Allele index of the rank-th distinct allele (ranks follow increasing allele index).
  /// @throws gpp::Error when rank is outside [0, distinct_allele_count())
  int allele_index_at(int rank) const;

  /// Copies of the rank-th distinct allele. @throws gpp::Error when rank is out of range
  int allele_count_at(int rank) const;

  /// Rank of allele in this genotype, or -(insertion rank) - 1 when absent.
  /// @throws gpp::Error when allele is negative
  int allele_rank_for(int allele) const;

  /// Copies of allele (0 when absent). @throws gpp::Error when allele is negative
  int allele_count_for(int allele) const;

  bool contains_allele(int allele) const { return allele_rank_for(allele) >= 0; }

  /// Largest / smallest allele index present; -1 for ploidy 0.
  int maximum_allele_index() const;
  int minimum_allele_index() const;

  /// log10 of the number of phased orderings: log10(P! / prod(count!)) (0 for homozygotes).
  double log10_combination_count() const;

  /// Allele indices with repeats, in increasing order (e.g. {0, 2, 2} for 0/2/2).
  std::vector<int> allele_indices() const;

  /// "0/2/2"; the empty string for ploidy 0.
  std::string to_string() const;

  /// Calls action(allele, count) for each allele present, in increasing allele order.
  template <typename Action>
  void for_each_allele_index_and_count(Action&& action) const {
    for (std::size_t i = 0; i < allele_counts_.size(); i += 2) {
      action(allele_counts_[i], allele_counts_[i + 1]);
    }
  }

  /// Calls action(allele) for each allele in [0, allele_count) absent from this genotype.
  template <typename Action>
  void for_each_absent_allele_index(Action&& action, int allele_count) const {
    std::size_t present = 0;
    for (int allele = 0; allele < allele_count; ++allele) {
      if (present < allele_counts_.size() && allele_counts_[present] == allele) {
        present += 2;
        continue;
      }
      action(allele);
    }
  }

  /// Same ploidy and same alleles with the same counts.
  bool operator==(const GenotypeAlleleCounts& other) const {
    return ploidy_ == other.ploidy_ && allele_counts_ == other.allele_counts_;
  }

 private:
  GenotypeAlleleCounts(int ploidy, int index, std::vector<int> allele_counts)
      : ploidy_(ploidy), index_(index), allele_counts_(std::move(allele_counts)) {}

  int ploidy_ = 0;
  int index_ = 0;
  std::vector<int> allele_counts_;  ///< allele, count, allele, count ... by increasing allele
};

/**
 * @brief Every genotype of the given ploidy over allele_count alleles, in canonical order
 *        (element i has index i).
 * @throws gpp::Error as genotype_count
 */
std::vector<GenotypeAlleleCounts> all_genotypes(int ploidy, int allele_count);

/**
 * @brief Index of the first genotype holding allele (GenotypeIndexCalculator
 *        .indexOfFirstGenotypeWithAllele): C(ploidy + allele - 1, allele - 1), 0 for allele 0.
 * @throws gpp::Error when the value overflows 64 bits
 */
long long index_of_first_genotype_with_allele(int ploidy, int allele);

/**
 * @brief Number of genotypes of a ploidy over allele_count alleles: C(P + A - 1, A - 1).
 * @throws gpp::Error when ploidy or allele_count is negative, or the count reaches 2^31 - 1
 *         (GATK refuses such sites)
 */
int genotype_count(int ploidy, int allele_count);

/**
 * @brief Canonical index of the genotype holding these alleles (one entry per copy, any order).
 * @throws gpp::Error for a negative allele or an index that does not fit an int
 */
int alleles_to_index(std::span<const int> alleles);

/**
 * @brief Canonical index of a genotype written as allele, count, allele, count ... (any allele
 *        order; counts may be 0).
 * @throws gpp::Error for an odd length or a negative count
 */
int allele_counts_to_index(std::span<const int> allele_count_pairs);

/**
 * @brief For each genotype over the new alleles, the index of the same genotype over the old
 *        alleles (GenotypeIndexCalculator.newToOldGenotypeMap); new allele i is old allele
 *        new_to_old_allele[i].
 */
std::vector<int> new_to_old_genotype_map(int ploidy, std::span<const int> new_to_old_allele);

}  // namespace gpp::stages::call
