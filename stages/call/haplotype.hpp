// A haplotype of an assembly region and the GATK operations on one haplotype that the
// haplotype -> allele step needs: Haplotype.setCigar (consolidation), Haplotype.trim,
// Haplotype.insertAllele, Haplotype.getConsolidatedPaddedCigar and the SIZE_AND_BASE_ORDER
// comparator (GATK utils/haplotype/Haplotype).
//
// @code
//   Haplotype h = make_haplotype("ACGTACGT", cigar /* 2M2I4M */, /*alignment_start_wrt_ref=*/10,
//                                {10, 15}, /*is_reference=*/false);
//   auto t = trim_haplotype(h, {12, 15});   // leading insertion dropped
//   // t->bases == "ACGT", cigar "4M", t->alignment_start_wrt_ref == 12
// @endcode
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/contig_interval.hpp"

namespace gpp::stages::call {

struct Haplotype {
  std::string bases;                 ///< upper case
  std::vector<std::uint32_t> cigar;  ///< vs the reference, BAM-packed, as setCigar leaves it
  /// GATK alignmentStartHapwrtRef: offset, in the reference window the events are read against
  /// (ReferenceWindow), of the first reference base the CIGAR consumes.
  std::int64_t alignment_start_wrt_ref = 0;
  ContigInterval location;  ///< GATK genomeLocation: the span the haplotype covers
  bool is_reference = false;
  double score = std::numeric_limits<double>::quiet_NaN();  ///< assembly path score
  int kmer_size = 0;
};

/**
 * @brief A haplotype as GATK builds one with `new Haplotype(bases, isRef)` + setCigar +
 * setAlignmentStartHapwrtRef + setGenomeLocation: bases upper-cased, CIGAR consolidated by
 * CigarBuilder(false) (neighbours merged, "ID" written "DI", end deletions kept).
 * @throws gpp::Error if the CIGAR's query length is not bases.size()
 */
Haplotype make_haplotype(std::string_view bases, std::span<const std::uint32_t> cigar,
                         std::int64_t alignment_start_wrt_ref, ContigInterval location,
                         bool is_reference);

/// Haplotype.setCigar: consolidates `cigar` into `haplotype`. Throws as make_haplotype.
void set_haplotype_cigar(Haplotype& haplotype, std::span<const std::uint32_t> cigar);

/**
 * @brief Haplotype.trim: the part of `haplotype` exactly covering `span`.
 *
 * The bases are those aligned to the span (AlignmentUtils.getBasesCoveringRefInterval); the CIGAR
 * is trimCigarByReference's with a leading or trailing insertion removed; the result's location
 * is `span`, its alignment_start_wrt_ref moves by span.first - location.first, and score and
 * k-mer size are kept. The result is a reference haplotype iff the input is and !ignore_ref_state.
 *
 * @return nullopt where the span starts or ends inside a deletion, or nothing but an insertion
 *         would be left
 * @throws gpp::Error if `span` is not inside haplotype.location or the haplotype has no CIGAR
 */
std::optional<Haplotype> trim_haplotype(const Haplotype& haplotype, ContigInterval span,
                                        bool ignore_ref_state = false);

/**
 * @brief Haplotype.insertAllele: the bases of `haplotype` with `ref_allele` at contig position
 * `insert_location` replaced by `alt_allele` (used to build haplotypes for given alleles).
 *
 * A deletion whose padding base is the one before the haplotype (insert_location ==
 * location.first - 1) drops the first ref - alt bases. Otherwise the position is found through
 * the CIGAR (ReadUtils.getReadIndexForReferenceCoordinate from location.first).
 * @return nullopt outside the haplotype, inside a deletion, or with too few bases after it
 */
std::optional<std::string> insert_allele(const Haplotype& haplotype, std::string_view ref_allele,
                                         std::string_view alt_allele, std::int64_t insert_location);

/// Haplotype.getConsolidatedPaddedCigar: the CIGAR plus `pad` M, consolidated by CigarBuilder
/// (which removes deletions at the ends).
std::vector<std::uint32_t> consolidated_padded_cigar(const Haplotype& haplotype, std::uint32_t pad);

/// Haplotype.SIZE_AND_BASE_ORDER: shorter first, then bases in lexicographic order.
bool size_and_base_less(const Haplotype& a, const Haplotype& b);

}  // namespace gpp::stages::call
