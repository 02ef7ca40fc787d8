// GATK AlleleLikelihoods.marginalize (marginalLikelihoodsDirect) and retainEvidence with
// HaplotypeCallerGenotypingEngine's informative-read overlap.
#include "stages/call/allele_marginalization.hpp"

#include <algorithm>
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

}  // namespace gpp::stages::call
