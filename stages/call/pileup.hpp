// Per-position pileups of aligned reads as HaplotypeCaller's traversal builds them: GATK
// LocusIteratorByState (includeReadsWithDeletionAtLoci = true, Ns excluded) stepping each read with
// AlignmentStateMachine.stepForwardOnGenome, and PileupElement's view of one read at one position.
//
// Rules kept from GATK:
//  - a read contributes one element at each reference position its M, =, X or D operations cover;
//    N (reference skip) positions give no element;
//  - a base inside the read's adaptor (ReadUtils.isBaseInsideAdaptor) gives no element;
//  - elements come in the order the reads were added (coordinate order);
//  - a read whose CIGAR starts with a deletion (no query base before it) or ends with one is
//    malformed (AlignmentStateMachine throws; here gpp::Error when the read is added).
// Base-quality filtering is not done here: GATK's pileup keeps every base and the consumers
// (ReferenceConfidenceModel) skip low-quality ones.
//
// @code
//   PileupWalker walker;
//   walker.add_read(read);                    // reads in order of start
//   for (std::int64_t pos = from; pos < to; ++pos) {
//     std::span<const PileupElement> pileup = walker.pileup_at(pos);   // positions increase
//   }
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/cigar.hpp"
#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

/// GATK PileupElement.DELETION_BASE and DELETION_QUAL: what a deletion element reports.
inline constexpr char kDeletionBase = 'D';
inline constexpr std::uint8_t kDeletionQual = 16;

/// "No neighbouring CIGAR element" for PileupElement::previous_op / next_op.
inline constexpr std::uint8_t kNoCigarOp = 0xFF;

/// One read at one reference position (GATK PileupElement). The read is not owned.
struct PileupElement {
  const CallRead* read = nullptr;
  std::int32_t read_offset = 0;           ///< GATK getOffset; for a deletion, the base before it
  std::uint32_t cigar_index = 0;          ///< GATK getCurrentCigarOffset
  std::uint32_t offset_in_cigar = 0;      ///< GATK getOffsetInCurrentCigar
  std::uint32_t cigar_length = 0;         ///< length of the current CIGAR element
  CigarOp op = CigarOp::kMatch;           ///< M, =, X or D
  std::uint8_t previous_op = kNoCigarOp;  ///< CIGAR element just before (any operation)
  std::uint8_t next_op = kNoCigarOp;      ///< CIGAR element just after (any operation)
  bool previous_on_genome_is_deletion = false;  ///< nearest M/=/X/D element before is a D
  bool next_on_genome_is_deletion = false;      ///< nearest M/=/X/D element after is a D

  bool is_deletion() const { return op == CigarOp::kDeletion; }
  bool at_start_of_cigar() const { return offset_in_cigar == 0; }
  bool at_end_of_cigar() const { return offset_in_cigar + 1 == cigar_length; }
  /// GATK isImmediatelyAfter(op) / isImmediatelyBefore(op).
  bool is_immediately_after(CigarOp o) const {
    return at_start_of_cigar() && previous_op == static_cast<std::uint8_t>(o);
  }
  bool is_immediately_before(CigarOp o) const {
    return at_end_of_cigar() && next_op == static_cast<std::uint8_t>(o);
  }
  bool is_before_deletion_start() const {
    return !is_deletion() && at_end_of_cigar() && next_on_genome_is_deletion;
  }
  bool is_after_deletion_end() const {
    return !is_deletion() && at_start_of_cigar() && previous_on_genome_is_deletion;
  }
  bool is_before_insertion() const { return is_immediately_before(CigarOp::kInsertion); }
  bool is_after_insertion() const { return is_immediately_after(CigarOp::kInsertion); }
  bool is_next_to_soft_clip() const {
    return is_immediately_after(CigarOp::kSoftClip) || is_immediately_before(CigarOp::kSoftClip);
  }
  /// GATK getBase / getQual: 'D' and 16 for a deletion.
  char base() const { return is_deletion() ? kDeletionBase : read->bases[read_offset]; }
  std::uint8_t qual() const { return is_deletion() ? kDeletionQual : read->quals[read_offset]; }
  std::uint8_t mapping_quality() const { return read->mapping_quality; }
};

/**
 * @brief GATK ReadUtils.isBaseInsideAdaptor: is reference position `position` (0-based) in the
 *        adaptor of the read, as inferred from the mate's position and the insert size?
 *
 * False when the fragment size is not well defined (ReadUtils.hasWellDefinedFragmentSize: TLEN 0,
 * unpaired, mate unmapped, both mates on one strand, or mates not facing each other) or when
 * TLEN > 100. Reverse strand: inside when position < mate start; forward: inside when
 * position >= start + |TLEN|.
 */
bool is_base_inside_adaptor(const CallRead& read, std::int64_t position);

/**
 * @brief GATK AlignmentContext pileups built position by position over reads of one contig.
 *
 * Reads are added in order of alignment start; the walker keeps pointers to them, so they must stay
 * alive and in place (not moved) until a pileup is requested past their end. Memory follows the
 * reads that overlap the current position.
 */
class PileupWalker {
 public:
  /**
   * @brief Adds a read (not copied).
   * @throws gpp::Error if its start is before the previous read's start, if its CIGAR starts or
   *         ends with a deletion (GATK AlignmentStateMachine), or if bases, qualities and CIGAR
   *         disagree in length
   */
  void add_read(const CallRead& read);

  /**
   * @brief The pileup at `position` (0-based). Positions must not decrease between calls.
   * @return elements in read order; valid until the next call
   * @throws gpp::Error if `position` is before the previous one
   */
  std::span<const PileupElement> pileup_at(std::int64_t position);

  /// Reads added and not yet passed.
  std::size_t reads_in_flight() const { return cursors_.size(); }
  /// Start of the last read added (INT64_MIN when none).
  std::int64_t last_read_start() const { return last_start_; }

 private:
  friend std::vector<PileupElement> pileup_elements_of_read(const CallRead& read);

  // AlignmentStateMachine: where a read's alignment stands.
  struct Cursor {
    const CallRead* read = nullptr;
    std::int32_t cigar_index = -1;
    std::int64_t offset_in_element = -1;
    std::int32_t read_offset = -1;
    std::int64_t genome_offset = -1;
    bool finished = false;
  };
  // One stepForwardOnGenome; false once the read's alignment is exhausted.
  static bool step_forward_on_genome(Cursor& cursor);
  static PileupElement make_element(const Cursor& cursor);

  std::vector<Cursor> cursors_;
  std::vector<PileupElement> pileup_;
  std::int64_t last_start_ = INT64_MIN;
  std::int64_t last_position_ = INT64_MIN;
};

/// Every pileup element of one read, position by position (the reference positions its M/=/X/D
/// operations cover, adaptor bases included). For tests and for PileupElement.createPileupForRead.
/// @throws gpp::Error as PileupWalker::add_read
std::vector<PileupElement> pileup_elements_of_read(const CallRead& read);

}  // namespace gpp::stages::call
