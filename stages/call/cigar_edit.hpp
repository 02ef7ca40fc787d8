// The CIGAR editing rules GATK applies to haplotypes when it trims them or inserts alleles into
// them: CigarBuilder (merging, dropping deletions at the ends, deletions before insertions),
// AlignmentUtils.trimCigarByReference / trimCigarByBases,
// AlignmentUtils.getBasesCoveringRefInterval and ReadUtils.getReadIndexForReferenceCoordinate.
// CIGARs are BAM-packed (core/cigar.hpp).
//
// @code
//   GatkCigarBuilder builder;  // drops deletions at the ends, like new CigarBuilder()
//   builder.add(cigar_element(CigarOp::kDeletion, 2));
//   builder.add(cigar_element(CigarOp::kMatch, 3));
//   CigarBuildResult built = builder.make_and_record_deletions_removed();
//   // cigar_to_string(built.cigar) == "3M", built.leading_deletions_removed == 2
//
//   // bases ACTTGT aligned as 2I4M: the leading insertion is not part of [0, 3]
//   bases_covering_ref_interval(0, 3, "ACTTGT", 0, two_i_four_m) == "TTGT"
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cigar.hpp"

namespace gpp::stages::call {

/// A CIGAR made by GatkCigarBuilder, with the deletion bases it dropped at either end.
struct CigarBuildResult {
  std::vector<std::uint32_t> cigar;
  std::int64_t leading_deletions_removed = 0;
  std::int64_t trailing_deletions_removed = 0;
};

/**
 * @brief GATK CigarBuilder: add elements one by one, get a clean CIGAR.
 *
 * Merges neighbours with one operator, moves a deletion before an adjacent insertion ("ID" ->
 * "DI"), checks the [H][S]body[S][H] structure, and (when remove_deletions_at_ends) drops
 * deletions at either end of the body, counting the bases dropped.
 */
class GatkCigarBuilder {
 public:
  explicit GatkCigarBuilder(bool remove_deletions_at_ends = true)
      : remove_deletions_at_ends_(remove_deletions_at_ends) {}

  /// Adds one BAM-packed element; zero-length elements are ignored.
  /// @throws gpp::Error where GATK's section validation fails (e.g. "M" after a right clip)
  GatkCigarBuilder& add(std::uint32_t element);
  GatkCigarBuilder& add_all(std::span<const std::uint32_t> elements);

  /// The CIGAR; drops a trailing deletion (or the D of a trailing "DI") when removing ends.
  /// @throws gpp::Error if the CIGAR is all soft clip, or empty and !allow_empty
  std::vector<std::uint32_t> make(bool allow_empty = false);
  /// make() plus the deletion bases removed at either end.
  CigarBuildResult make_and_record_deletions_removed();

  /// Leading deletion bases dropped so far (getLeadingDeletionBasesRemoved).
  std::int64_t leading_deletions_removed() const { return leading_removed_; }
  /// Trailing deletion bases dropped, those of the last make() included
  /// (getTrailingDeletionBasesRemoved).
  std::int64_t trailing_deletions_removed() const {
    return trailing_removed_ + trailing_removed_in_make_;
  }

 private:
  enum class Section { kLeftHardClip, kLeftSoftClip, kMiddle, kRightSoftClip, kRightHardClip };
  void advance_section(CigarOp op);
  bool last_two_were_deletion_and_insertion() const;

  std::vector<std::uint32_t> elements_;
  bool has_last_ = false;
  CigarOp last_ = CigarOp::kMatch;
  Section section_ = Section::kLeftHardClip;
  bool remove_deletions_at_ends_;
  std::int64_t leading_removed_ = 0;
  std::int64_t trailing_removed_ = 0;
  std::int64_t trailing_removed_in_make_ = 0;
};

/**
 * @brief AlignmentUtils.trimCigarByReference: the part of `cigar` over reference offsets
 * [start, end] (0 = the first reference base of the CIGAR), zero-length elements at either edge
 * kept, deletions at the ends removed.
 * @throws gpp::Error if start < 0, end < start, or the CIGAR does not reach `end`
 */
CigarBuildResult trim_cigar_by_reference(std::span<const std::uint32_t> cigar, std::int64_t start,
                                         std::int64_t end);

/// AlignmentUtils.trimCigarByBases: as trim_cigar_by_reference over read offsets [start, end].
CigarBuildResult trim_cigar_by_bases(std::span<const std::uint32_t> cigar, std::int64_t start,
                                     std::int64_t end);

/**
 * @brief AlignmentUtils.getBasesCoveringRefInterval: the bases aligned to reference offsets
 * [ref_start, ref_end], insertions inside the interval included, insertions at its edges left out.
 *
 * @param bases_start_on_ref reference offset of the first base the CIGAR aligns
 * @return the bases, or nullopt where the interval starts or ends inside a deletion
 * @throws gpp::Error on a bad interval, a CIGAR whose query length is not bases.size(), an
 *         operator other than M = X I D, or an interval the CIGAR does not cover
 */
std::optional<std::string> bases_covering_ref_interval(std::int64_t ref_start, std::int64_t ref_end,
                                                       std::string_view bases,
                                                       std::int64_t bases_start_on_ref,
                                                       std::span<const std::uint32_t> cigar);

/// Read offset aligned to a reference position and the CIGAR operator there.
struct ReadIndexAtReference {
  bool found = false;
  std::int64_t index = -1;
  CigarOp op = CigarOp::kMatch;
};

/**
 * @brief ReadUtils.getReadIndexForReferenceCoordinate: where reference position `ref_coord` falls
 * in an alignment starting at `alignment_start` (soft clips count as reference here, as in GATK).
 * Inside a deletion the index is that of the first base after it; not found before the start or
 * past the end.
 */
ReadIndexAtReference read_index_for_reference_coordinate(std::int64_t alignment_start,
                                                         std::span<const std::uint32_t> cigar,
                                                         std::int64_t ref_coord);

}  // namespace gpp::stages::call
