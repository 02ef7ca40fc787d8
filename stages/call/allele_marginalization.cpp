// GATK AlleleLikelihoods.marginalize (marginalLikelihoodsDirect) and retainEvidence with
// HaplotypeCallerGenotypingEngine's informative-read overlap.
#include "stages/call/allele_marginalization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

ReadAlleleLikelihoods marginalize(std::span<const double> read_by_haplotype, std::size_t read_count,
                                  std::size_t haplotype_count,
                                  std::span<const std::vector<std::size_t>> haplotypes_of_allele) {
  if (read_by_haplotype.size() != read_count * haplotype_count) {
    throw Error("likelihood matrix has " + std::to_string(read_by_haplotype.size()) +
                " values, expected " + std::to_string(read_count) + " reads x " +
                std::to_string(haplotype_count) + " haplotypes");
  }
  for (const std::vector<std::size_t>& haplotypes : haplotypes_of_allele) {
    for (std::size_t h : haplotypes) {
      if (h >= haplotype_count) {
        throw Error("missing old allele: haplotype " + std::to_string(h) +
                    " in a likelihood collection of " + std::to_string(haplotype_count));
      }
    }
  }
  ReadAlleleLikelihoods result;
  result.allele_count = haplotypes_of_allele.size();
  result.reads.resize(read_count);
  result.log10_likelihoods.assign(read_count * result.allele_count,
                                  -std::numeric_limits<double>::infinity());
  for (std::size_t r = 0; r < read_count; ++r) {
    result.reads[r] = r;
    const double* row = read_by_haplotype.data() + r * haplotype_count;
    for (std::size_t a = 0; a < result.allele_count; ++a) {
      double best = -std::numeric_limits<double>::infinity();
      for (std::size_t h : haplotypes_of_allele[a]) best = std::max(best, row[h]);
      result.log10_likelihoods[r * result.allele_count + a] = best;
    }
  }
  return result;
}

ContigInterval informative_read_interval(std::int64_t start, std::int64_t stop, int margin,
                                         std::int64_t contig_length) {
  if (margin < 0) throw Error("padding must be >= 0");
  if (contig_length < 1) throw Error("contigLength should be at least 1");
  const ContigInterval interval{std::max<std::int64_t>(0, start - margin),
                                std::min<std::int64_t>(contig_length - 1, stop + margin)};
  if (interval.first > contig_length - 1 || interval.last < 0) {
    throw Error("locus " + std::to_string(start) + "-" + std::to_string(stop) +
                " lies off its contig");
  }
  return interval;
}

bool read_overlaps(ContigInterval target, ReadSpan read) {
  return target.first <= read.end - 1 && read.start <= target.last;
}

ReadAlleleLikelihoods marginalize_informative_reads(
    std::span<const double> read_by_haplotype, std::size_t read_count, std::size_t haplotype_count,
    std::span<const std::vector<std::size_t>> haplotypes_of_allele,
    std::span<const ReadSpan> read_spans, std::int64_t start, std::int64_t stop,
    std::int64_t contig_length, int margin) {
  if (read_spans.size() != read_count) {
    throw Error("need one read span per read: " + std::to_string(read_spans.size()) + " for " +
                std::to_string(read_count) + " reads");
  }
  const ReadAlleleLikelihoods all =
      marginalize(read_by_haplotype, read_count, haplotype_count, haplotypes_of_allele);
  const ContigInterval target = informative_read_interval(start, stop, margin, contig_length);
  ReadAlleleLikelihoods kept;
  kept.allele_count = all.allele_count;
  for (std::size_t r = 0; r < read_count; ++r) {
    if (!read_overlaps(target, read_spans[r])) continue;
    kept.reads.push_back(r);
    const auto row =
        all.log10_likelihoods.begin() + static_cast<std::ptrdiff_t>(r * all.allele_count);
    kept.log10_likelihoods.insert(kept.log10_likelihoods.end(), row,
                                  row + static_cast<std::ptrdiff_t>(all.allele_count));
  }
  return kept;
}

namespace {

/// Apache Commons Math Median (Percentile 50, legacy estimation) of values[0, n): NaN for none;
/// position p = (n + 1) / 2 between the sorted values floor(p) and floor(p) + 1 (1-based).
double legacy_median(std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  if (n == 1) return values[0];
  std::sort(values.begin(), values.end());
  const double position = 0.5 * static_cast<double>(n + 1);
  const double floor_position = std::floor(position);
  const auto index = static_cast<std::size_t>(floor_position);
  if (position < 1) return values[0];
  if (position >= static_cast<double>(n)) return values[n - 1];
  const double lower = values[index - 1], upper = values[index];
  return lower + (position - floor_position) * (upper - lower);
}

}  // namespace

void add_non_ref_allele(ReadAlleleLikelihoods& likelihoods) {
  const std::size_t old_count = likelihoods.allele_count;
  const std::size_t rows = likelihoods.reads.size();
  std::vector<double> widened(rows * (old_count + 1), -std::numeric_limits<double>::infinity());
  for (std::size_t r = 0; r < rows; ++r) {
    std::copy_n(likelihoods.log10_likelihoods.begin() + static_cast<std::ptrdiff_t>(r * old_count),
                old_count, widened.begin() + static_cast<std::ptrdiff_t>(r * (old_count + 1)));
  }
  likelihoods.allele_count = old_count + 1;
  likelihoods.log10_likelihoods = std::move(widened);
  std::vector<std::size_t> all(old_count + 1);
  for (std::size_t a = 0; a < all.size(); ++a) all[a] = a;
  update_non_ref_likelihoods(likelihoods, all);
}

void update_non_ref_likelihoods(ReadAlleleLikelihoods& likelihoods,
                                std::span<const std::size_t> considered) {
  const std::size_t count = likelihoods.allele_count;
  if (count == 0) return;
  const std::size_t non_ref = count - 1;
  const std::size_t concrete_alleles = count - 1;
  std::vector<bool> usable(count, false);
  for (std::size_t a : considered) {
    if (a < non_ref) usable[a] = true;
  }
  std::vector<double> below_best;
  for (std::size_t r = 0; r < likelihoods.reads.size(); ++r) {
    double* row = likelihoods.log10_likelihoods.data() + r * count;
    double best = -std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < count; ++a) best = std::max(best, row[a]);
    below_best.clear();
    for (std::size_t a = 0; a < non_ref; ++a) {
      if (usable[a] && row[a] < best && !std::isnan(row[a])) below_best.push_back(row[a]);
    }
    const double median = legacy_median(below_best);
    row[non_ref] = !std::isnan(median)     ? median
                   : concrete_alleles <= 1 ? std::numeric_limits<double>::quiet_NaN()
                                           : best;
  }
}

}  // namespace gpp::stages::call
