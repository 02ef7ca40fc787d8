// GATK HaplotypeCaller's reference-confidence model (ReferenceConfidenceModel, -ERC GVCF): for
// every position of a region's span, the confidence that the sample is homozygous reference there,
// as the per-base <NON_REF> record
// (ReferenceConfidenceModel.makeReferenceConfidenceVariantContext).
//
// Per position, over the pileup of the evidence reads (AssemblyBasedCallerUtils
// .getPileupsOverReference: reads sorted by ReadCoordinateComparator, LocusIteratorByState with
// deletions included; an empty pileup where no read covers the position):
//  - SNP likelihoods: calcGenotypeLikelihoodsOfRefVsAny with readsWereRealigned = true
//    (stages/call/locus_activity.hpp, RefVsAnyAccumulator): bases of quality <= 6
//    (BASE_QUAL_THRESHOLD) are skipped, deletions count with quality --ref-model-del-qual (30) and
//    are never skipped; a base is alt if it differs from the reference or is a deletion
//    (isAltAfterAssembly). AD = {ref, alt} counts, DP their sum (RefVsAnyResult). Each
//    likelihood is then capped at the hom-ref one (getGenotypeLikelihoodsCappedByHomRefLikelihood);
//  - indel likelihoods: getIndelPLs for the number of reads that rule out an indel of up to
//    --indel-size-to-eliminate-in-ref-model (10) bases starting there
//    (calcNReadsWithNoPlausibleIndelsReads, capped at MAX_N_INDEL_INFORMATIVE_READS 40);
//  - the likelihoods of the two whose hom-ref GQ is worse (getGLwithWorstGQ) give the PLs
//    (GenotypeLikelihoods.getAsPLs) and GQ (GATKVariantContextUtils.calculateGQFromPLs).
//
// Not covered: the flow-based deletion quality, and --override-fragment-softclip-check (GATK then
// skips bases outside the reads' original soft clips); HaplotypeCaller's defaults need neither.
// Where a variant call starts, GATK writes the call instead of the position's record; that
// replacement is the caller's (the per-read informativeness cache gives the same answers whether
// or not those positions are evaluated, since reads are queried at increasing offsets).
//
// @code
//   ReferenceWindow padded{padded_bases, region.padded_start};   // GATK's refHaplotype
//   std::vector<ReferenceSite> sites = reference_confidence(
//       reads, region.contig, padded, {region.start, region.end - 1}, 2);
//   // sites[i].position == region.start + i; sites[i].pls == {0, 30, 348}, gq 30 for 10 reference
//   // reads of quality 30 away from the reads' ends
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/call_read.hpp"
#include "stages/call/contig_interval.hpp"
#include "stages/call/pileup.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::stages::call {

/// ReferenceConfidenceModel.MAX_N_INDEL_INFORMATIVE_READS: more reads add nothing (GQ caps at 99).
inline constexpr int kMaxIndelInformativeReads = 40;

/// The reference-confidence model's arguments (defaults: HaplotypeCaller's).
struct ReferenceConfidenceOptions {
  int indel_size_to_eliminate = 10;    ///< --indel-size-to-eliminate-in-ref-model (>= 0)
  std::uint8_t deletion_quality = 30;  ///< --ref-model-del-qual (REF_MODEL_DELETION_QUAL)
  std::uint8_t min_base_quality = 6;   ///< BASE_QUAL_THRESHOLD: bases at or below are skipped
};

/**
 * @brief ReferenceConfidenceModel.calculateRefConfidence for one sample, without the calls: one
 *        hom-ref record per position of `span`.
 *
 * @param reads      the sample's evidence reads after realignment to their best haplotypes, all
 *                   on `contig` (any order: they are sorted as ReadCoordinateComparator sorts
 *                   them). They must stay in place during the call.
 * @param contig     the region's contig index (copied into the records)
 * @param reference  GATK's reference haplotype: the bases of the region's padded span (upper case,
 *                   non-ACGT as N, as GATK's reference reader gives them) and its start. The indel
 *                   scan compares reads with these bases up to their end.
 * @param span       the positions to report (the region's active span), inside `reference`
 * @param ploidy     the sample's ploidy (>= 1)
 * @param options    the model's arguments
 * @return span.size() records in position order (REF base, AD, DP, GQ capped at 99, ploidy + 1
 *         PLs)
 * @throws gpp::Error if ploidy < 1, indel_size_to_eliminate < 0, `span` is not inside
 *         `reference`, a read is on another contig, or a read is malformed (PileupWalker)
 */
std::vector<ReferenceSite> reference_confidence(std::span<const CallRead> reads,
                                                std::int32_t contig, ReferenceWindow reference,
                                                ContigInterval span, int ploidy,
                                                const ReferenceConfidenceOptions& options = {});

/**
 * @brief ReferenceConfidenceModel.getCigarModifiedOffset: the element's index in the read's
 *        "IGV view" (AlignmentUtils.getBasesAndBaseQualitiesAlignedOneToOne), counting the bases
 *        of the CIGAR elements before it that consume the reference or are soft clips.
 * @code
 *   // read 7M3D6M, element at read offset 11 (the 5th base of 6M): 7 + 3 + 4 == 14
 * @endcode
 */
int cigar_modified_offset(const PileupElement& element);

/**
 * @brief ReferenceConfidenceModel.getIndelPLs: the log10 likelihoods (index = non-ref copies) of
 *        seeing `informative_reads` reads (capped at kMaxIndelInformativeReads) without an indel,
 *        each with indel error rate 10^-4.5: n * log10(1 - 10^-4.5) for hom-ref, and
 *        n * (approximateLog10SumLog10(log10(1 - 10^-4.5) + log10(P - i), -4.5 + log10(i)) -
 *        log10(P)) for i non-ref copies; all zero for 0 reads.
 * @code
 *   indel_log10_likelihoods(2, 1);   // {-1.37e-5, -0.30103, -4.5}: PLs 0, 3, 45
 * @endcode
 * @throws gpp::Error if ploidy < 1 or informative_reads < 0
 */
std::vector<double> indel_log10_likelihoods(int ploidy, int informative_reads);

/**
 * @brief GATKVariantContextUtils.calculateGQFromPLs: the second-smallest PL minus the smallest
 *        (not capped).
 * @code
 *   gq_from_pls(std::vector<int>{20, 0, 200}) == 20
 * @endcode
 * @throws gpp::Error for fewer than 2 PLs
 */
int gq_from_pls(std::span<const int> pls);

/**
 * @brief ReferenceConfidenceModel.getGLwithWorstGQ: `first` if its hom-ref log10 GQ
 *        (GenotypeLikelihoods.getGQLog10FromLikelihoods(0, ..)) is greater (less confident) than
 *        `second`'s, else `second`.
 * @return one of the two spans
 */
std::span<const double> likelihoods_with_worst_gq(std::span<const double> first,
                                                  std::span<const double> second);

/**
 * @brief ReferenceConfidenceModel.calcNReadsWithNoPlausibleIndelsReads and
 *        readHasNoPlausibleIdealsOfSize, with GATK's per-read cache (a bit per base of the read's
 *        IGV view, computed at the read's first query and kept for the later, increasing offsets).
 *
 * A read rules out an indel starting at the element when no deletion or insertion of 1 to
 * max_indel_size bases, aligning the rest of the read from its end, costs no more mismatching
 * base quality than the read as aligned; the read's last max_indel_size bases never do.
 * @code
 *   IndelInformativeReads informative(reads, reference.bases, 10);
 *   int n = informative.count(walker.pileup_at(pos), pos - reference.start);   // 0..40
 * @endcode
 */
class IndelInformativeReads {
 public:
  /**
   * @param reads           the reads the pileup elements point to (kept by pointer)
   * @param reference       the reference bases (GATK's refHaplotype; kept by view)
   * @param max_indel_size  --indel-size-to-eliminate-in-ref-model
   * @throws gpp::Error if max_indel_size < 0
   */
  IndelInformativeReads(std::span<const CallRead> reads, std::string_view reference,
                        int max_indel_size);

  /**
   * @brief Reads of `pileup` that rule out an indel at reference index `reference_offset`,
   *        skipping deletions and bases just before a deletion or insertion; at most
   *        kMaxIndelInformativeReads (the reads after that many are not asked).
   * @throws gpp::Error as read_has_no_plausible_indels
   */
  int count(std::span<const PileupElement> pileup, std::int64_t reference_offset);

  /**
   * @brief One element of count(): true when its read rules out an indel at `reference_offset`
   *        (false for the deletions and the bases before a deletion or insertion count skips).
   * @throws gpp::Error as read_has_no_plausible_indels
   */
  bool informs(const PileupElement& element, std::int64_t reference_offset) {
    return !element.is_before_deletion_start() && !element.is_before_insertion() &&
           !element.is_deletion() && read_has_no_plausible_indels(element, reference_offset);
  }

  /**
   * @brief readHasNoPlausibleIdealsOfSize for the element's read at its cigar_modified_offset and
   *        reference index `reference_offset` (answered from the read's cache after its first
   *        query). An index less than max_indel_size before the reference's end (or past it)
   *        leaves nothing to compare: false.
   * @throws gpp::Error if the element's read is not one of `reads`, or reference_offset < 0
   */
  bool read_has_no_plausible_indels(const PileupElement& element, std::int64_t reference_offset);

 private:
  struct ReadBits {
    std::size_t first_word = 0;
    std::size_t word_count = 0;
    bool computed = false;
  };
  void compute(const CallRead& read, ReadBits& bits, std::int64_t read_start,
               std::int64_t ref_start);
  void mark_plausible_indels(std::int64_t read_start, std::int64_t ref_start, std::int64_t last,
                             std::int64_t secondary, std::int64_t indel_size, bool insertion,
                             std::uint64_t* words) const;

  std::span<const CallRead> reads_;
  std::string_view reference_;
  int max_indel_size_;
  std::vector<ReadBits> bits_;        ///< per read of reads_
  std::vector<std::uint64_t> words_;  ///< the reads' bit sets, one after another
  // Scratch for the read being computed: its IGV view and the baseline mismatch sums.
  std::string padded_bases_;
  std::vector<std::uint8_t> padded_quals_;
  std::string_view aligned_bases_;
  std::span<const std::uint8_t> aligned_quals_;
  std::vector<int> baseline_;
};

}  // namespace gpp::stages::call
