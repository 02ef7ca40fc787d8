// Pileups as GATK LocusIteratorByState / AlignmentStateMachine / PileupElement build them (see
// pileup.hpp).
#include "stages/call/pileup.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

constexpr std::uint16_t kFlagUnmapped = 0x4;
// ReadUtils.DEFAULT_ADAPTOR_SIZE: reads with a larger (positive) TLEN are never adaptor-clipped.
constexpr std::int64_t kDefaultAdaptorSize = 100;

bool is_on_genome(CigarOp op) {  // PileupElement.ON_GENOME_OPERATORS: M, =, X, D (not N)
  return op == CigarOp::kMatch || op == CigarOp::kSequenceMatch ||
         op == CigarOp::kSequenceMismatch || op == CigarOp::kDeletion;
}

// ReadUtils.hasWellDefinedFragmentSize, in 0-based coordinates.
bool has_well_defined_fragment_size(const CallRead& read) {
  if (read.insert_size == 0) return false;
  if (!read.is_paired()) return false;
  if ((read.flag & kFlagUnmapped) != 0 || read.mate_is_unmapped()) return false;
  if (read.is_reverse_strand() == read.mate_is_reverse_strand()) return false;
  if (read.is_reverse_strand())
    return read.end() > read.mate_start + 1;  // end > mate start (1-based)
  return read.start <= read.mate_start + read.insert_size;
}

void validate_read(const CallRead& read) {
  const std::string name = read.name.empty() ? std::string("(unnamed)") : read.name;
  if (read.quals.size() != read.bases.size()) {
    throw Error("read " + name + ": " + std::to_string(read.bases.size()) + " bases but " +
                std::to_string(read.quals.size()) + " qualities");
  }
  if (cigar_query_length(read.cigar) != read.bases.size()) {
    throw Error("read " + name + ": CIGAR " + cigar_to_string(read.cigar) + " does not match " +
                std::to_string(read.bases.size()) + " bases");
  }
  // AlignmentStateMachine: a deletion before any query base, or a final deletion, is malformed.
  bool seen_query_base = false;
  for (std::uint32_t element : read.cigar) {
    const CigarOp op = cigar_op(element);
    if (op == CigarOp::kDeletion && !seen_query_base && cigar_length(element) > 0) {
      throw Error("read " + name + " starts with a deletion (CIGAR " + cigar_to_string(read.cigar) +
                  "): malformed read");
    }
    if (consumes_query(op) && cigar_length(element) > 0) seen_query_base = true;
  }
  if (!read.cigar.empty() && cigar_op(read.cigar.back()) == CigarOp::kDeletion) {
    throw Error("read " + name + " ends with a deletion (CIGAR " + cigar_to_string(read.cigar) +
                "): malformed read");
  }
}

}  // namespace

bool is_base_inside_adaptor(const CallRead& read, std::int64_t position) {
  if (!has_well_defined_fragment_size(read) || read.insert_size > kDefaultAdaptorSize) return false;
  if (read.is_reverse_strand()) return position < read.mate_start;  // boundary: mate start - 1
  return position >= read.start + std::llabs(read.insert_size);     // boundary: start + |TLEN|
}

void PileupWalker::add_read(const CallRead& read) {
  if (read.start < last_start_) {
    throw Error("pileup: read " + read.name + " at " + std::to_string(read.start) +
                " added after a read starting at " + std::to_string(last_start_) +
                " (reads must be in coordinate order)");
  }
  validate_read(read);
  last_start_ = read.start;
  Cursor cursor;
  cursor.read = &read;
  cursors_.push_back(cursor);
}

bool PileupWalker::step_forward_on_genome(Cursor& c) {
  const auto& cigar = c.read->cigar;
  const auto n_elements = static_cast<std::int32_t>(cigar.size());
  while (true) {
    if (c.cigar_index < 0 ||
        c.offset_in_element + 1 >= static_cast<std::int64_t>(cigar_length(cigar[c.cigar_index]))) {
      ++c.cigar_index;
      if (c.cigar_index < n_elements) {
        c.offset_in_element = -1;
        continue;  // re-check against the new element's length (zero-length elements)
      }
      c.finished = true;
      ++c.genome_offset;
      return false;
    }
    ++c.offset_in_element;
    const std::uint32_t element = cigar[c.cigar_index];
    switch (cigar_op(element)) {
      case CigarOp::kHardClip:
      case CigarOp::kPadding:
        c.offset_in_element = cigar_length(element);
        break;
      case CigarOp::kInsertion:
      case CigarOp::kSoftClip:
        c.offset_in_element = cigar_length(element);
        c.read_offset += static_cast<std::int32_t>(cigar_length(element));
        break;
      case CigarOp::kDeletion:
      case CigarOp::kSkip:
        ++c.genome_offset;
        return true;
      case CigarOp::kMatch:
      case CigarOp::kSequenceMatch:
      case CigarOp::kSequenceMismatch:
        ++c.read_offset;
        ++c.genome_offset;
        return true;
      default:
        throw Error("pileup: read " + c.read->name + " has an unknown CIGAR operation");
    }
  }
}

PileupElement PileupWalker::make_element(const Cursor& c) {
  const auto& cigar = c.read->cigar;
  const auto index = static_cast<std::size_t>(c.cigar_index);
  PileupElement e;
  e.read = c.read;
  e.read_offset = c.read_offset;
  e.cigar_index = static_cast<std::uint32_t>(index);
  e.offset_in_cigar = static_cast<std::uint32_t>(c.offset_in_element);
  e.cigar_length = cigar_length(cigar[index]);
  e.op = cigar_op(cigar[index]);
  if (index > 0) e.previous_op = static_cast<std::uint8_t>(cigar_op(cigar[index - 1]));
  if (index + 1 < cigar.size()) e.next_op = static_cast<std::uint8_t>(cigar_op(cigar[index + 1]));
  for (std::size_t i = index; i-- > 0;) {
    if (is_on_genome(cigar_op(cigar[i]))) {
      e.previous_on_genome_is_deletion = cigar_op(cigar[i]) == CigarOp::kDeletion;
      break;
    }
  }
  for (std::size_t i = index + 1; i < cigar.size(); ++i) {
    if (is_on_genome(cigar_op(cigar[i]))) {
      e.next_on_genome_is_deletion = cigar_op(cigar[i]) == CigarOp::kDeletion;
      break;
    }
  }
  return e;
}

std::span<const PileupElement> PileupWalker::pileup_at(std::int64_t position) {
  if (position < last_position_) {
    throw Error("pileup: position " + std::to_string(position) + " requested after " +
                std::to_string(last_position_));
  }
  last_position_ = position;
  pileup_.clear();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < cursors_.size(); ++i) {
    Cursor& c = cursors_[i];
    const bool started = c.read->start <= position;
    // Step until the alignment reaches `position` (or runs out).
    while (started && !c.finished &&
           (c.cigar_index < 0 || c.read->start + c.genome_offset < position)) {
      step_forward_on_genome(c);
    }
    const bool here = started && !c.finished && c.read->start + c.genome_offset == position;
    if (here) {
      const CigarOp op = cigar_op(c.read->cigar[static_cast<std::size_t>(c.cigar_index)]);
      if (op != CigarOp::kSkip && !is_base_inside_adaptor(*c.read, position)) {
        pileup_.push_back(make_element(c));
      }
    }
    const bool passed = started && (c.finished || c.read->end() <= position + 1);
    if (!passed) cursors_[kept++] = c;
  }
  cursors_.resize(kept);
  return pileup_;
}

std::vector<PileupElement> pileup_elements_of_read(const CallRead& read) {
  validate_read(read);
  // PileupElement.createPileupForReadAndOffset walks one read's own state machine: adaptor bases
  // are kept.
  std::vector<PileupElement> elements;
  PileupWalker::Cursor cursor;
  cursor.read = &read;
  while (PileupWalker::step_forward_on_genome(cursor)) {
    const CigarOp op = cigar_op(read.cigar[static_cast<std::size_t>(cursor.cigar_index)]);
    if (op != CigarOp::kSkip) elements.push_back(PileupWalker::make_element(cursor));
  }
  return elements;
}

}  // namespace gpp::stages::call
