// htsjdk VariantContextUtils.calculateChromosomeCounts, GATK GenotypingEngine's MLEAF,
// GenotypeUtils.computeDiploidGenotypeCounts and ExcessHet (calculateEH, exactTest); see
// genotype_counts.hpp.
#include "stages/call/annotations/genotype_counts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "stages/call/annotations/java_number_format.hpp"

namespace gpp::stages::call {
namespace {

constexpr double kExcessHetMinNeededValue = 1.0e-16;  // ExcessHet.MIN_NEEDED_VALUE
const double kExcessHetPhredMin = -10.0 * std::log10(kExcessHetMinNeededValue);

int called_allele_count(std::span<const Genotype> genotypes) {
  int count = 0;
  for (const Genotype& g : genotypes) {
    for (int a : g.alleles) count += a == kNoCallAlleleIndex ? 0 : 1;
  }
  return count;
}

/// Diploid PL index of the unordered allele pair (j <= k): k(k+1)/2 + j.
int diploid_pl_index(int j, int k) { return k * (k + 1) / 2 + j; }

/// MathUtils.normalizeFromLog10ToLinearSpace of PL / -10.
std::vector<double> normalized_probabilities(std::span<const int> pls) {
  std::vector<double> log10(pls.size());
  std::size_t max_index = 0;
  for (std::size_t i = 0; i < pls.size(); ++i) {
    log10[i] = pls[i] / -10.0;
    if (log10[i] > log10[max_index]) max_index = i;
  }
  const double max_value = log10[max_index];
  double sum = 1.0;
  for (std::size_t i = 0; i < log10.size(); ++i) {
    if (i == max_index || log10[i] == -std::numeric_limits<double>::infinity()) continue;
    sum += std::pow(10.0, log10[i] - max_value);
  }
  const double log10_sum = max_value + (sum != 1.0 ? std::log10(sum) : 0.0);
  for (double& v : log10) v = std::pow(10.0, v - log10_sum);
  return log10;
}

/// MathUtils.fastRound.
int fast_round(double d) { return d > 0.0 ? static_cast<int>(d + 0.5) : static_cast<int>(d - 0.5); }

}  // namespace

std::optional<ChromosomeCounts> chromosome_counts(std::span<const Genotype> genotypes,
                                                  int alt_count) {
  const int an = called_allele_count(genotypes);
  if (genotypes.empty() || an == 0) return std::nullopt;
  ChromosomeCounts counts;
  counts.allele_number = an;
  for (int alt = 1; alt <= alt_count; ++alt) {
    int ac = 0;
    for (const Genotype& g : genotypes)
      ac += static_cast<int>(std::count(g.alleles.begin(), g.alleles.end(), alt));
    counts.allele_counts.push_back(ac);
    counts.allele_frequencies.push_back(static_cast<double>(ac) / static_cast<double>(an));
  }
  return counts;
}

std::vector<double> mle_allele_frequencies(std::span<const int> mle_allele_counts,
                                           std::span<const Genotype> genotypes) {
  const auto an = static_cast<double>(called_allele_count(genotypes));
  std::vector<double> frequencies;
  for (int count : mle_allele_counts) frequencies.push_back(std::min(1.0, count / an));
  return frequencies;
}

DiploidGenotypeCounts diploid_genotype_counts(std::span<const Genotype> genotypes,
                                              int allele_count) {
  const int pl_count = allele_count * (allele_count + 1) / 2;
  DiploidGenotypeCounts counts;
  for (const Genotype& g : genotypes) {
    if (g.alleles.size() != 2 || g.pls.empty()) continue;
    if (static_cast<int>(g.pls.size()) != pl_count) {
      throw Error("ExcessHet: genotype has " + std::to_string(g.pls.size()) + " PLs, expected " +
                  std::to_string(pl_count));
    }
    const std::vector<double> probabilities = normalized_probabilities(g.pls);
    double ref = probabilities[0], het = probabilities[1], var = probabilities[2];
    if (allele_count > 2) {
      // First most likely genotype; if it carries no REF, the sample counts as hom-var.
      const auto max_index = static_cast<int>(
          std::max_element(probabilities.begin(), probabilities.end()) - probabilities.begin());
      int k = 0;
      while ((k + 1) * (k + 2) / 2 <= max_index) ++k;
      const int j = max_index - k * (k + 1) / 2;
      if (j != 0 && k != 0) {
        counts.hom_var += 1;
        continue;
      }
      int het_index = 1, var_index = 2;
      double max_likelihood = probabilities[1];
      for (int alt = 1; alt < allele_count; ++alt) {
        const int candidate = diploid_pl_index(0, alt);
        if (probabilities[candidate] > max_likelihood) {
          max_likelihood = probabilities[candidate];
          het_index = candidate;
          var_index = diploid_pl_index(alt, alt);
        }
      }
      const double sum = probabilities[0] + probabilities[het_index] + probabilities[var_index];
      ref = probabilities[0] / sum;
      het = probabilities[het_index] / sum;
      var = probabilities[var_index] / sum;
    }
    counts.hom_ref += fast_round(ref);
    if (ref != het) counts.het += fast_round(het);      // [0,0,X] PLs count as hom-ref only
    if (var != het) counts.hom_var += fast_round(var);  // [X,0,0] PLs count as het only
  }
  return counts;
}

double excess_het_exact_test(int het_count, int hom_ref_count, int hom_var_count) {
  if (het_count < 0 || hom_ref_count < 0 || hom_var_count < 0) {
    throw Error("ExcessHet: genotype counts cannot be negative");
  }
  const int rare_homs = std::min(hom_ref_count, hom_var_count);
  const int common_homs = std::max(hom_ref_count, hom_var_count);
  const int rare_copies = 2 * rare_homs + het_count;
  const int n = het_count + common_homs + rare_homs;

  std::vector<double> probs(static_cast<std::size_t>(rare_copies) + 1, 0.0);
  // Start near the mode, with the parity of rare_copies.
  int mid = static_cast<int>(std::floor(rare_copies * (2.0 * n - rare_copies) / (2.0 * n - 1.0)));
  if ((mid % 2) != (rare_copies % 2)) ++mid;
  probs[mid] = 1.0;
  double sum = 1.0;

  int hets = mid, rare = (rare_copies - mid) / 2, common = n - hets - rare;
  while (hets >= 2) {
    const double next = probs[hets] * hets * (hets - 1.0) / (4.0 * (rare + 1.0) * (common + 1.0));
    if (next < kExcessHetMinNeededValue) break;
    probs[hets - 2] = next;
    sum = sum + next;
    hets -= 2;
    rare += 1;
    common += 1;
  }
  hets = mid, rare = (rare_copies - mid) / 2, common = n - hets - rare;
  while (hets <= rare_copies - 2) {
    const double next = probs[hets] * 4.0 * rare * common / ((hets + 2.0) * (hets + 1.0));
    if (next < kExcessHetMinNeededValue) break;
    probs[hets + 2] = next;
    sum = sum + next;
    hets += 2;
    rare -= 1;
    common -= 1;
  }

  const double right = probs[het_count] / sum;
  if (het_count == rare_copies) return std::max(0.0, std::min(1.0, right));
  double tail = 0.0;
  for (std::size_t i = static_cast<std::size_t>(het_count) + 1; i < probs.size(); ++i) {
    tail += probs[i];
  }
  return std::max(0.0, std::min(1.0, right + tail / sum));
}

double excess_het_phred(const DiploidGenotypeCounts& counts) {
  const double p =
      excess_het_exact_test(static_cast<int>(counts.het), static_cast<int>(counts.hom_ref),
                            static_cast<int>(counts.hom_var));
  if (p < 10e-60) return kExcessHetPhredMin;
  return -10.0 * std::log10(p) + 0.;
}

std::optional<std::string> excess_het_text(std::span<const Genotype> genotypes, int allele_count) {
  int sample_count = 0;
  for (const Genotype& g : genotypes) {
    if (g.alleles.size() == 2 && is_called(genotype_type(g.alleles)) && !g.pls.empty()) {
      ++sample_count;
    }
  }
  if (sample_count < 1) return std::nullopt;
  return java_format_fixed(excess_het_phred(diploid_genotype_counts(genotypes, allele_count)), 4);
}

}  // namespace gpp::stages::call
