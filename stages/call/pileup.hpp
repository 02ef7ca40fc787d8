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

  /**
   * @brief visit(const PileupElement&) for each element of the pileup at `position`, in the
   *        order pileup_at gives them, without storing them (pileup_at is built on it).
   * @throws gpp::Error as pileup_at
   */
  template <typename Visit>
  void for_each_element_at(std::int64_t position, Visit&& visit);

  /// Reads added and not yet passed.
  std::size_t reads_in_flight() const { return cursors_.size() - passed_; }
  /// Start of the last read added (INT64_MIN when none).
  std::int64_t last_read_start() const { return last_start_; }

 private:
  friend std::vector<PileupElement> pileup_elements_of_read(const CallRead& read);

  // AlignmentStateMachine, stepped one CIGAR element at a time: the current element covering the
  // reference is kept with its span, so a position inside it costs a comparison (the state
  // machine's per-base steps give the same offsets: read offset = query bases before the element
  // + offset in it for M/=/X, the last base before it for D/N). What does not change while a read
  // is in flight (its end, its adaptor-free span, the element's neighbours) is cached.
  struct Cursor {
    const CallRead* read = nullptr;  ///< nullptr once passed (removed at the next compaction)
    std::int64_t start = 0;          ///< read->start
    std::int64_t end = 0;            ///< read->end()
    /// Positions in [adaptor_free_start, adaptor_free_end) are not inside the adaptor.
    std::int64_t adaptor_free_start = INT64_MIN;
    std::int64_t adaptor_free_end = INT64_MAX;
    std::int64_t element_start = 0;  ///< reference span of the current element
    std::int64_t element_end = 0;    ///< (before the first: both at the read's start)
    std::int32_t cigar_index = -1;   ///< current element (-1: none yet)
    std::int32_t query_before = 0;   ///< query bases before the current element
    std::int32_t query_after = 0;    ///< query bases up to the end of the current element
    bool finished = false;           ///< no reference-consuming element left
    PileupElement element;           ///< CIGAR fields of the current element (not for N)
  };
  // Moves to the next element that consumes reference bases; false when there is none.
  static bool next_element(Cursor& cursor);
  static PileupElement make_element(const Cursor& cursor, std::int64_t position) {
    PileupElement e = cursor.element;
    const auto offset = static_cast<std::int32_t>(position - cursor.element_start);
    e.offset_in_cigar = static_cast<std::uint32_t>(offset);
    e.read_offset =
        e.op == CigarOp::kDeletion ? cursor.query_before - 1 : cursor.query_before + offset;
    return e;
  }
  void check_position(std::int64_t position);
  void compact();

  std::vector<Cursor> cursors_;
  std::vector<PileupElement> pileup_;
  std::size_t passed_ = 0;  ///< cursors with read == nullptr
  std::int64_t last_start_ = INT64_MIN;
  std::int64_t last_position_ = INT64_MIN;
};

template <typename Visit>
void PileupWalker::for_each_element_at(std::int64_t position, Visit&& visit) {
  check_position(position);
  for (Cursor& c : cursors_) {
    if (c.read == nullptr || c.start > position) continue;  // passed, or not started
    while (!c.finished && c.element_end <= position) next_element(c);
    // The elements tile the reference from the read's start, so `position` is in this one.
    if (!c.finished && c.element.op != CigarOp::kSkip && position >= c.adaptor_free_start &&
        position < c.adaptor_free_end) {
      visit(make_element(c, position));
    }
    if (c.finished || c.end <= position + 1) {
      c.read = nullptr;
      ++passed_;
    }
  }
  // Passed reads are dropped now and then, keeping the order of the others.
  if (passed_ > 16 && passed_ * 4 > cursors_.size()) compact();
}

/// Every pileup element of one read, position by position (the reference positions its M/=/X/D
/// operations cover, adaptor bases included). For tests and for PileupElement.createPileupForRead.
/// @throws gpp::Error as PileupWalker::add_read
std::vector<PileupElement> pileup_elements_of_read(const CallRead& read);

}  // namespace gpp::stages::call
