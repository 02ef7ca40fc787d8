// Genotype enumeration and canonical indexing: GATK GenotypeAlleleCounts (first, increase/next,
// ranks, log10CombinationCount) and GenotypeIndexCalculator (indexOfFirstGenotypeWithAllele,
// genotypeCount, allelesToIndex, alleleCountsToIndex, newToOldGenotypeMap).
// computeMaxAcceptableAlleleCount lives with the allele pruning in alleles_at_locus.
#include "stages/call/genotype_alleles.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {
namespace {

// C(n, k) exactly, or nullopt-like -1 when a step overflows 64 bits (commons-math throws there).
long long binomial_or_overflow(long long n, long long k) {
  if (k < 0 || k > n) return 0;
  k = std::min(k, n - k);
  std::uint64_t result = 1;
  for (long long i = 1; i <= k; ++i) {
    std::uint64_t product = 0;
    // result * (n - k + i) is divisible by i: result is C(n - k + i - 1, i - 1).
    if (__builtin_mul_overflow(result, static_cast<std::uint64_t>(n - k + i), &product)) return -1;
    result = product / static_cast<std::uint64_t>(i);
  }
  if (result > static_cast<std::uint64_t>(LLONG_MAX)) return -1;
  return static_cast<long long>(result);
}

// Index of the genotype whose alleles (with repeats) are given: sum over the sorted alleles, from
// the largest down, of the number of genotypes of the remaining ploidy before that allele.
int index_of_sorted_alleles(const std::vector<int>& sorted) {
  const int ploidy = static_cast<int>(sorted.size());
  long long index = 0;
  for (int n = 0; n < ploidy; ++n) {
    index += index_of_first_genotype_with_allele(ploidy - n, sorted[ploidy - n - 1]);
    if (index > INT_MAX) throw Error("genotype index does not fit an int");
  }
  return static_cast<int>(index);
}

}  // namespace

GenotypeAlleleCounts GenotypeAlleleCounts::first(int ploidy) {
  if (ploidy < 0)
    throw Error("genotype ploidy must be 0 or greater, got " + std::to_string(ploidy));
  if (ploidy == 0) return GenotypeAlleleCounts(0, 0, {});
  return GenotypeAlleleCounts(ploidy, 0, {0, ploidy});
}

void GenotypeAlleleCounts::increase() {
  std::vector<int>& counts = allele_counts_;
  if (counts.empty()) return;  // ploidy 0: one genotype only
  if (counts.size() == 2) {
    if (ploidy_ == 1) {
      ++counts[0];  // haploid: A -> B -> C ...
    } else {
      counts = {0, ploidy_ - 1, counts[0] + 1, 1};  // AAA -> AAB, DDD -> AAE
    }
  } else {
    // Only the two smallest alleles change: one copy moves from allele0 up to allele0 + 1 and the
    // remaining copies of allele0 drop to allele 0.
    const int allele0 = counts[0];
    const int freq0 = counts[1];
    const bool consecutive = counts[2] == allele0 + 1;
    if (freq0 == 1) {
      if (consecutive) {
        counts.erase(counts.begin(), counts.begin() + 2);
        ++counts[1];
      } else {
        counts[0] = allele0 + 1;
      }
    } else if (consecutive) {
      counts[0] = 0;
      counts[1] = freq0 - 1;
      ++counts[3];
    } else {
      counts[0] = 0;
      counts[1] = freq0 - 1;
      counts.insert(counts.begin() + 2, {allele0 + 1, 1});
    }
  }
  ++index_;
}

GenotypeAlleleCounts GenotypeAlleleCounts::next() const {
  GenotypeAlleleCounts result = *this;
  result.increase();
  return result;
}

int GenotypeAlleleCounts::allele_index_at(int rank) const {
  if (rank < 0 || rank >= distinct_allele_count()) {
    throw Error("genotype allele rank " + std::to_string(rank) + " is out of range");
  }
  return allele_counts_[2 * rank];
}

int GenotypeAlleleCounts::allele_count_at(int rank) const {
  if (rank < 0 || rank >= distinct_allele_count()) {
    throw Error("genotype allele rank " + std::to_string(rank) + " is out of range");
  }
  return allele_counts_[2 * rank + 1];
}

int GenotypeAlleleCounts::allele_rank_for(int allele) const {
  if (allele < 0) throw Error("allele index must be 0 or greater");
  int low = 0;
  int high = distinct_allele_count();
  while (low < high) {
    const int mid = (low + high) / 2;
    const int mid_allele = allele_counts_[2 * mid];
    if (mid_allele == allele) return mid;
    if (mid_allele < allele) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return -low - 1;
}

int GenotypeAlleleCounts::allele_count_for(int allele) const {
  const int rank = allele_rank_for(allele);
  return rank < 0 ? 0 : allele_counts_[2 * rank + 1];
}

int GenotypeAlleleCounts::maximum_allele_index() const {
  return allele_counts_.empty() ? -1 : allele_counts_[allele_counts_.size() - 2];
}

int GenotypeAlleleCounts::minimum_allele_index() const {
  return allele_counts_.empty() ? -1 : allele_counts_[0];
}

double GenotypeAlleleCounts::log10_combination_count() const {
  double log_denominator = 0.0;
  for (std::size_t i = 1; i < allele_counts_.size(); i += 2) {
    log_denominator += log_factorial(allele_counts_[i]);
  }
  return log_to_log10(log_factorial(ploidy_) - log_denominator);
}

std::vector<int> GenotypeAlleleCounts::allele_indices() const {
  std::vector<int> alleles;
  alleles.reserve(ploidy_);
  for_each_allele_index_and_count(
      [&](int allele, int count) { alleles.insert(alleles.end(), count, allele); });
  return alleles;
}

std::string GenotypeAlleleCounts::to_string() const {
  std::string text;
  for (const int allele : allele_indices()) {
    if (!text.empty()) text += '/';
    text += std::to_string(allele);
  }
  return text;
}

std::vector<GenotypeAlleleCounts> all_genotypes(int ploidy, int allele_count) {
  const int count = genotype_count(ploidy, allele_count);
  std::vector<GenotypeAlleleCounts> genotypes;
  genotypes.reserve(count);
  if (count == 0) return genotypes;
  genotypes.push_back(GenotypeAlleleCounts::first(ploidy));
  for (int i = 1; i < count; ++i) genotypes.push_back(genotypes.back().next());
  return genotypes;
}

long long index_of_first_genotype_with_allele(int ploidy, int allele) {
  if (allele == 0) return 0;
  const long long value =
      binomial_or_overflow(static_cast<long long>(ploidy) + allele - 1, allele - 1);
  if (value < 0) {
    throw Error("the number of genotypes overflows for ploidy " + std::to_string(ploidy) +
                " and allele " + std::to_string(allele));
  }
  return value;
}

int genotype_count(int ploidy, int allele_count) {
  if (ploidy < 0 || allele_count < 0) {
    throw Error("genotype count: ploidy and allele count must be 0 or greater");
  }
  const long long count =
      binomial_or_overflow(static_cast<long long>(ploidy) + allele_count - 1, allele_count - 1);
  if (count < 0 || count >= INT_MAX) {
    throw Error("the number of genotypes is too large for ploidy " + std::to_string(ploidy) +
                " and " + std::to_string(allele_count) + " alleles");
  }
  return static_cast<int>(count);
}

int alleles_to_index(std::span<const int> alleles) {
  std::vector<int> sorted(alleles.begin(), alleles.end());
  for (const int allele : sorted) {
    if (allele < 0) throw Error("genotype alleles must be 0 or greater");
  }
  std::sort(sorted.begin(), sorted.end());
  return index_of_sorted_alleles(sorted);
}

int allele_counts_to_index(std::span<const int> allele_count_pairs) {
  if (allele_count_pairs.size() % 2 != 0) throw Error("allele counts must come in pairs");
  std::vector<int> alleles;
  for (std::size_t i = 0; i < allele_count_pairs.size(); i += 2) {
    const int count = allele_count_pairs[i + 1];
    if (count < 0) throw Error("no allele count can be less than 0");
    alleles.insert(alleles.end(), count, allele_count_pairs[i]);
  }
  return alleles_to_index(alleles);
}

std::vector<int> new_to_old_genotype_map(int ploidy, std::span<const int> new_to_old_allele) {
  const int new_allele_count = static_cast<int>(new_to_old_allele.size());
  std::vector<int> result(genotype_count(ploidy, new_allele_count));
  if (result.empty()) return result;
  GenotypeAlleleCounts genotype = GenotypeAlleleCounts::first(ploidy);
  std::vector<int> old_alleles;
  for (std::size_t i = 0; i < result.size(); ++i, genotype.increase()) {
    old_alleles.clear();
    genotype.for_each_allele_index_and_count([&](int allele, int count) {
      old_alleles.insert(old_alleles.end(), count, new_to_old_allele[allele]);
    });
    std::sort(old_alleles.begin(), old_alleles.end());
    result[i] = index_of_sorted_alleles(old_alleles);
  }
  return result;
}

}  // namespace gpp::stages::call
