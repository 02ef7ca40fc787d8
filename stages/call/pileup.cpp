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
  const auto name = [&read] { return read.name.empty() ? std::string("(unnamed)") : read.name; };
  if (read.quals.size() != read.bases.size()) {
    throw Error("read " + name() + ": " + std::to_string(read.bases.size()) + " bases but " +
                std::to_string(read.quals.size()) + " qualities");
  }
  if (cigar_query_length(read.cigar) != read.bases.size()) {
    throw Error("read " + name() + ": CIGAR " + cigar_to_string(read.cigar) + " does not match " +
                std::to_string(read.bases.size()) + " bases");
  }
  // AlignmentStateMachine: a deletion before any query base, or a final deletion, is malformed.
  bool seen_query_base = false;
  for (std::uint32_t element : read.cigar) {
    const CigarOp op = cigar_op(element);
    if (op == CigarOp::kDeletion && !seen_query_base && cigar_length(element) > 0) {
      throw Error("read " + name() + " starts with a deletion (CIGAR " +
                  cigar_to_string(read.cigar) + "): malformed read");
    }
    if (consumes_query(op) && cigar_length(element) > 0) seen_query_base = true;
  }
  if (!read.cigar.empty() && cigar_op(read.cigar.back()) == CigarOp::kDeletion) {
    throw Error("read " + name() + " ends with a deletion (CIGAR " + cigar_to_string(read.cigar) +
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
  cursor.start = read.start;
  cursor.end = read.end();
  cursor.element_start = cursor.element_end = read.start;
  // is_base_inside_adaptor as a span of positions, worked out once per read.
  if (has_well_defined_fragment_size(read) && read.insert_size <= kDefaultAdaptorSize) {
    if (read.is_reverse_strand()) {
      cursor.adaptor_free_start = read.mate_start;
    } else {
      cursor.adaptor_free_end = read.start + std::llabs(read.insert_size);
    }
  }
  cursors_.push_back(cursor);
}

bool PileupWalker::next_element(Cursor& c) {
  const auto& cigar = c.read->cigar;
  const auto n_elements = static_cast<std::int32_t>(cigar.size());
  std::int32_t query = c.query_after;
  for (std::int32_t index = c.cigar_index + 1; index < n_elements; ++index) {
    const std::uint32_t element = cigar[static_cast<std::size_t>(index)];
    const CigarOp op = cigar_op(element);
    const auto length = static_cast<std::int32_t>(cigar_length(element));
    switch (op) {
      case CigarOp::kHardClip:
      case CigarOp::kPadding:
        continue;
      case CigarOp::kInsertion:
      case CigarOp::kSoftClip:
        query += length;
        continue;
      case CigarOp::kMatch:
      case CigarOp::kSequenceMatch:
      case CigarOp::kSequenceMismatch:
      case CigarOp::kDeletion:
      case CigarOp::kSkip:
        break;
      default:
        throw Error("pileup: read " + c.read->name + " has an unknown CIGAR operation");
    }
    if (length == 0) continue;  // the state machine steps over empty elements
    c.cigar_index = index;
    c.query_before = query;
    c.query_after = consumes_query(op) ? query + length : query;
    c.element_start = c.element_end;
    c.element_end = c.element_start + length;
    if (op == CigarOp::kSkip) {  // gives no element
      c.element.op = CigarOp::kSkip;
      return true;
    }
    // The fields that depend only on the CIGAR element.
    const auto at = static_cast<std::size_t>(index);
    PileupElement& e = c.element;
    e = PileupElement{};
    e.read = c.read;
    e.cigar_index = static_cast<std::uint32_t>(at);
    e.cigar_length = static_cast<std::uint32_t>(length);
    e.op = op;
    if (at > 0) e.previous_op = static_cast<std::uint8_t>(cigar_op(cigar[at - 1]));
    if (at + 1 < cigar.size()) e.next_op = static_cast<std::uint8_t>(cigar_op(cigar[at + 1]));
    for (std::size_t i = at; i-- > 0;) {
      if (is_on_genome(cigar_op(cigar[i]))) {
        e.previous_on_genome_is_deletion = cigar_op(cigar[i]) == CigarOp::kDeletion;
        break;
      }
    }
    for (std::size_t i = at + 1; i < cigar.size(); ++i) {
      if (is_on_genome(cigar_op(cigar[i]))) {
        e.next_on_genome_is_deletion = cigar_op(cigar[i]) == CigarOp::kDeletion;
        break;
      }
    }
    return true;
  }
  c.finished = true;
  return false;
}

void PileupWalker::compact() {
  std::erase_if(cursors_, [](const Cursor& c) { return c.read == nullptr; });
  passed_ = 0;
}

void PileupWalker::check_position(std::int64_t position) {
  if (position < last_position_) {
    throw Error("pileup: position " + std::to_string(position) + " requested after " +
                std::to_string(last_position_));
  }
  last_position_ = position;
}

std::span<const PileupElement> PileupWalker::pileup_at(std::int64_t position) {
  pileup_.clear();
  for_each_element_at(position, [this](const PileupElement& e) { pileup_.push_back(e); });
  return pileup_;
}

std::vector<PileupElement> pileup_elements_of_read(const CallRead& read) {
  validate_read(read);
  // PileupElement.createPileupForReadAndOffset walks one read's own state machine: adaptor bases
  // are kept.
  std::vector<PileupElement> elements;
  PileupWalker::Cursor cursor;
  cursor.read = &read;
  cursor.element_start = cursor.element_end = read.start;
  cursor.start = read.start;
  while (PileupWalker::next_element(cursor)) {
    if (cursor.element.op == CigarOp::kSkip) continue;
    for (std::int64_t position = cursor.element_start; position < cursor.element_end; ++position) {
      elements.push_back(PileupWalker::make_element(cursor, position));
    }
  }
  return elements;
}

}  // namespace gpp::stages::call
