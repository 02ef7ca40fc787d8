// Read x haplotype log10 likelihoods -> read x allele log10 likelihoods at one locus, as
// HaplotypeCallerGenotypingEngine does it: AlleleLikelihoods.marginalize (each allele takes, per
// read, the MAXIMUM over the haplotypes carrying it; -infinity when none does), then
// retainEvidence keeps only reads overlapping the locus widened by
// --allele-informative-reads-overlap-margin 2 on each side (clipped to the contig). The read span
// tested is the read's alignment span after GATK's clipping and realignment to its best
// haplotype (read.getStart()..getEnd(); soft clips not included).
//
// Matrices are read-major, as the PairHMM writes them: value(r, h) at r * haplotype_count + h.
//
// @code
//   // 2 reads x 3 haplotypes; allele 0 <- haplotypes {0}, allele 1 <- haplotypes {1, 2}
//   double lk[] = {-1, -5, -3,   -4, -2, -6};
//   std::vector<std::size_t> ref_haps{0}, alt_haps{1, 2};
//   auto m = marginalize(lk, 2, 3, std::vector{ref_haps, alt_haps});
//   // m.log10_likelihoods == {-1, -3,   -4, -2}
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "stages/call/contig_interval.hpp"

namespace gpp::stages::call {

/// --allele-informative-reads-overlap-margin default.
inline constexpr int kAlleleInformativeReadsOverlapMargin = 2;

/// Read x allele log10 likelihoods of one sample at one locus.
struct ReadAlleleLikelihoods {
  std::size_t allele_count = 0;
  std::vector<std::size_t> reads;         ///< per row: the read's row in the haplotype matrix
  std::vector<double> log10_likelihoods;  ///< reads.size() x allele_count, read-major

  double at(std::size_t row, std::size_t allele) const {
    return log10_likelihoods[row * allele_count + allele];
  }
};

/// A read's aligned span, 0-based, end exclusive (CallRead::start, CallRead::end()).
struct ReadSpan {
  std::int64_t start = 0;
  std::int64_t end = 0;
};

/**
 * @brief AlleleLikelihoods.marginalize for one sample, every read kept.
 * @param read_by_haplotype    read_count x haplotype_count log10 likelihoods, read-major
 * @param haplotypes_of_allele per allele, the haplotypes carrying it (LocusAlleles::haplotypes)
 * @throws gpp::Error if the matrix size is not read_count x haplotype_count or a haplotype index
 *         is out of range (GATK: "missing old allele")
 */
ReadAlleleLikelihoods marginalize(std::span<const double> read_by_haplotype, std::size_t read_count,
                                  std::size_t haplotype_count,
                                  std::span<const std::vector<std::size_t>> haplotypes_of_allele);

/**
 * @brief The interval a read must overlap to be kept for the locus [start, stop]:
 * SimpleInterval(mergedVC).expandWithinContig(margin, contig length), 0-based.
 * @throws gpp::Error for a negative margin or a contig length < 1
 */
ContigInterval informative_read_interval(std::int64_t start, std::int64_t stop, int margin,
                                         std::int64_t contig_length);

/// GATK's read test `target.overlaps(read)` with the read's span (a read consuming no reference
/// has last = start - 1 and overlaps only where that still meets the target).
bool read_overlaps(ContigInterval target, ReadSpan read);

/**
 * @brief marginalize, then keep the reads overlapping informative_read_interval(start, stop,
 * margin, contig_length), in their original order.
 * @param read_spans one per read row of the haplotype matrix
 * @throws gpp::Error as marginalize, or if read_spans.size() != read_count
 */
ReadAlleleLikelihoods marginalize_informative_reads(
    std::span<const double> read_by_haplotype, std::size_t read_count, std::size_t haplotype_count,
    std::span<const std::vector<std::size_t>> haplotypes_of_allele,
    std::span<const ReadSpan> read_spans, std::int64_t start, std::int64_t stop,
    std::int64_t contig_length, int margin = kAlleleInformativeReadsOverlapMargin);

/**
 * @brief AlleleLikelihoods.addNonReferenceAllele: appends the <NON_REF> allele as a last column,
 * each read's value set by update_non_ref_likelihoods over every other allele.
 */
void add_non_ref_allele(ReadAlleleLikelihoods& likelihoods);

/**
 * @brief AlleleLikelihoods.updateNonRefAlleleLikelihoods(allelesToConsider), <NON_REF> being the
 * last column: per read, the median (Apache Commons Median, legacy estimation) of the considered
 * alleles' likelihoods that are below the read's best (NaN excluded); with none, the best
 * likelihood, or NaN when there are fewer than two other alleles.
 * @param considered allele columns the median may use (the <NON_REF> column is never used)
 */
void update_non_ref_likelihoods(ReadAlleleLikelihoods& likelihoods,
                                std::span<const std::size_t> considered);

}  // namespace gpp::stages::call
