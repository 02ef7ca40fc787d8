// HaplotypeCaller's read transformer and read filters:
//  - IUPACReadTransformer(strict) (HaplotypeCallerEngine.makeStandardHCReadTransformer), applied
//    before the filters: IUPAC ambiguity codes become N, anything else but A C G T throws;
//  - the standard filters, in HaplotypeCallerEngine.makeStandardHCReadFilters order:
//    MappingQualityReadFilter(20), MAPPING_QUALITY_AVAILABLE (MQ != 255), MAPPED,
//    NOT_SECONDARY_ALIGNMENT, NOT_DUPLICATE, PASSES_VENDOR_QUALITY_CHECK,
//    NON_ZERO_REFERENCE_LENGTH_ALIGNMENT, GOOD_CIGAR (CigarUtils.isGood on htsjdk's
//    Cigar.isValid), and WellformedReadFilter (valid start and end, alignment within the
//    contig, a read group, as many qualities as bases, CIGAR read length = bases, bases stored,
//    no N operator). Supplementary alignments pass, as in GATK;
//  - the genotyping-time filter after assembly (HaplotypeCallerEngine.filterNonPassingReads):
//    unclipped length < 10, MQ < --mapping-quality-threshold-for-genotyping (20), mate mapped to
//    another contig, or (with --keep-read-group) another read group.
//
// @code
//   ReadFilterContext context{contig_lengths, read_group_count};
//   convert_iupac_to_n(read);                        // may throw
//   if (first_failing_hc_read_filter(read, context) == ReadFilterFailure::kNone) keep(read);
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

/// HaplotypeCallerEngine.DEFAULT_READ_QUALITY_FILTER_THRESHOLD.
inline constexpr int kDefaultMinMappingQuality = 20;
/// QualityUtils.MAPPING_QUALITY_UNAVAILABLE.
inline constexpr int kMappingQualityUnavailable = 255;
/// HaplotypeCallerEngine.READ_LENGTH_FILTER_THRESHOLD.
inline constexpr std::int64_t kReadLengthFilterThreshold = 10;

/// The first standard filter a read fails (GATK's counting filter charges a read to that one).
enum class ReadFilterFailure : std::uint8_t {
  kNone,
  kMappingQuality,
  kMappingQualityAvailable,
  kMapped,
  kNotSecondaryAlignment,
  kNotDuplicate,
  kPassesVendorQualityCheck,
  kNonZeroReferenceLengthAlignment,
  kGoodCigar,
  // the parts of WellformedReadFilter, in its order
  kValidAlignmentStart,
  kValidAlignmentEnd,
  kAlignmentAgreesWithHeader,
  kHasReadGroup,
  kMatchingBasesAndQuals,
  kReadLengthEqualsCigarLength,
  kSeqIsStored,
  kCigarContainsNoNOperator,
  kReadLength,  ///< ReadLengthReadFilter's upper bound, when one is set
};

/// The GATK filter class charged with `failure` ("MappingQualityReadFilter", ...; every
/// WellformedReadFilter part gives "WellformedReadFilter"); "" for kNone.
std::string_view gatk_filter_name(ReadFilterFailure failure);

/// What the filters need from the BAM header.
struct ReadFilterContext {
  std::span<const std::int64_t> contig_lengths;  ///< by reference index (BAM refID)
  /// Reads whose read_group index is >= this have no read group (fail HAS_READ_GROUP); the
  /// loader gives RG-less reads such an index.
  std::size_t read_group_count = 0;
  int min_mapping_quality = kDefaultMinMappingQuality;  ///< MappingQualityReadFilter
  /// ReadLengthReadFilter after the standard ones: reads of more bases fail (0: none do).
  /// Parabricks' --filter-reads-too-long sets 500.
  std::int64_t max_read_length = 0;
  /// Standard filters turned off (--disable-read-filter): a bit per ReadFilterFailure.
  std::uint32_t disabled = 0;
};

/// The bit of ReadFilterContext::disabled that turns `filter` off.
constexpr std::uint32_t read_filter_bit(ReadFilterFailure filter) {
  return std::uint32_t{1} << static_cast<unsigned>(filter);
}

/**
 * @brief ReadFilterContext::disabled for GATK's --disable-read-filter names.
 *
 * HaplotypeCaller's standard filters that only leave reads out turn off: MappingQualityReadFilter,
 * MappingQualityAvailableReadFilter, NotSecondaryAlignmentReadFilter, NotDuplicateReadFilter,
 * PassesVendorQualityCheckReadFilter.
 * @throws gpp::Error for MappedReadFilter, NonZeroReferenceLengthAlignmentReadFilter,
 *         GoodCigarReadFilter and WellformedReadFilter (the caller relies on mapped, well-formed
 *         alignments) and for a name that is not one of HaplotypeCaller's filters
 */
std::uint32_t disabled_read_filters(std::span<const std::string> names);

/// The first filter of makeStandardHCReadFilters that `read` fails, or kNone.
ReadFilterFailure first_failing_hc_read_filter(const CallRead& read,
                                               const ReadFilterContext& context);
inline bool passes_hc_read_filters(const CallRead& read, const ReadFilterContext& context) {
  return first_failing_hc_read_filter(read, context) == ReadFilterFailure::kNone;
}

/// WellformedReadFilter alone: the first of its checks `read` fails (kValidAlignmentStart ..
/// kCigarContainsNoNOperator), or kNone. Unmapped reads pass the position checks, as in GATK.
ReadFilterFailure first_failing_wellformed_check(const CallRead& read,
                                                 const ReadFilterContext& context);

/// htsjdk Cigar.isValid returning no error: zero-length elements, H not at an end, S not at an
/// end (or just inside an H), two I (or two D) with only I/D/clips between them, P at the end or
/// not between real operators, and no M/=/X/I/D/N at all are errors. An empty CIGAR is valid.
bool is_valid_cigar(std::span<const std::uint32_t> cigar);

/// GATK CigarUtils.isGood: valid, no I/D next to an I/D, and no D as the first or last operator
/// once clips are skipped.
bool is_good_cigar(std::span<const std::uint32_t> cigar);

/// IUPACReadTransformer(strict): R Y M K W S B D H V N (either case) become 'N'; A C G T (either
/// case) stay. @throws gpp::Error naming the read for any other byte ('*', '=', '.', ...).
void convert_iupac_to_n(CallRead& read);

/// ReadFilterLibrary.MATE_ON_SAME_CONTIG_OR_NO_MAPPED_MATE: unpaired, or mate unmapped, or read
/// mapped on the mate's contig.
bool mate_on_same_contig_or_no_mapped_mate(const CallRead& read);

struct GenotypingFilterOptions {
  int mapping_quality_threshold = kDefaultMinMappingQuality;  ///< --mapping-quality-threshold-...
  std::optional<std::uint32_t> keep_read_group;  ///< --keep-read-group, as a read-group index
};

/// !HaplotypeCallerEngine.filterNonPassingReads for one read: unclipped length >= 10, MQ >=
/// threshold, mate on the same contig or unmapped, and the kept read group if one is set.
bool passes_genotyping_filter(const CallRead& read, const GenotypingFilterOptions& options = {});

}  // namespace gpp::stages::call
