// HaplotypeCaller's contamination filter (--contamination-fraction-to-filter): GATK's
// AlleleLikelihoods.contaminationDownsampling with AlleleBiasedDownsamplingUtils, on one sample's
// read x allele likelihoods at one locus, before its genotypes are computed.
//  - a fraction that is NaN or at most 0 removes nothing; one of 1 or more removes every read;
//  - otherwise each informative read (L(best) - L(second) > 0.2, no tie-breaking) counts for its
//    best allele; (int)(informative reads x fraction) reads are removed, as many from each allele
//    as targetAlleleCounts gives: the removal of that many from one allele, or half of it from
//    each of two, that brings the counts closest to a clean het or hom genotype;
//  - which reads of an allele go: GATK draws them from its run-wide random generator (so its
//    choice depends on every earlier draw of the run); here they are drawn from a generator seeded
//    by the locus and the allele alone, so that the choice never depends on threads, batches or
//    the regions before it. The number removed per allele is GATK's.
//
// @code
//   target_allele_counts({10, 10, 2}, 4) == {10, 10, 0};   // the third allele's reads go
//   ReadAlleleLikelihoods reads = ...;                      // 40 informative reads
//   remove_contamination(reads, 0.05, locus_seed(contig, start));  // 2 reads removed
// @endcode
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/allele_marginalization.hpp"

namespace gpp::stages::call {

/// AlleleBiasedDownsamplingUtils.targetAlleleCounts: the allele counts after removing
/// `reads_to_remove` reads from one allele, or half of them from each of two, whichever gives the
/// lowest score min(max - next + rest, next + rest) (the first such in allele order; the counts
/// unchanged when none scores below them).
std::vector<int> target_allele_counts(std::span<const int> allele_counts, int reads_to_remove);

/// A seed for remove_contamination from the locus: contig index and 0-based start.
std::uint64_t locus_seed(std::int32_t contig, std::int64_t start);

/// AlleleLikelihoods.contaminationDownsampling for one sample's reads at a locus: removes rows of
/// `reads` (the others keep their order).
void remove_contamination(ReadAlleleLikelihoods& reads, double fraction, std::uint64_t seed);

/**
 * @brief AlleleBiasedDownsamplingUtils.loadContaminationFile (--contamination-fraction-per-sample-
 * file): "SAMPLE<TAB>FRACTION" lines, no header, each line trimmed, empty lines skipped; the
 * fractions of `samples` (every line's when null), as GATK keeps only the input's samples.
 * @throws gpp::Error naming `path` and the line: not exactly two tab-separated fields, an empty
 *         field, a fraction that is not a number or outside 0..1 (NaN passes, as in Java, and
 *         filters nothing), a kept sample given twice
 */
std::map<std::string, double> parse_contamination_fractions(
    std::string_view text, const std::string& path, const std::set<std::string>* samples = nullptr);

}  // namespace gpp::stages::call
