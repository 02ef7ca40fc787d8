// GATK's CIGAR editing rules for haplotypes: CigarBuilder, AlignmentUtils.trimCigar,
// AlignmentUtils.getBasesCoveringRefInterval, ReadUtils.getReadIndexForReferenceCoordinate.
#include "stages/call/cigar_edit.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

std::uint32_t element_length(std::uint32_t e) { return cigar_length(e); }

}  // namespace

void GatkCigarBuilder::advance_section(CigarOp op) {
  if (op == CigarOp::kHardClip) {
    if (section_ == Section::kLeftSoftClip || section_ == Section::kMiddle ||
        section_ == Section::kRightSoftClip) {
      section_ = Section::kRightHardClip;
    }
  } else if (op == CigarOp::kSoftClip) {
    if (section_ == Section::kRightHardClip) {
      throw Error("cigar has already reached its right hard clip");
    }
    if (section_ == Section::kLeftHardClip) {
      section_ = Section::kLeftSoftClip;
    } else if (section_ == Section::kMiddle) {
      section_ = Section::kRightSoftClip;
    }
  } else {
    if (section_ == Section::kRightSoftClip || section_ == Section::kRightHardClip) {
      throw Error("cigar has already reached right clip");
    }
    if (section_ == Section::kLeftHardClip || section_ == Section::kLeftSoftClip) {
      section_ = Section::kMiddle;
    }
  }
}

bool GatkCigarBuilder::last_two_were_deletion_and_insertion() const {
  return has_last_ && last_ == CigarOp::kInsertion && elements_.size() > 1 &&
         cigar_op(elements_[elements_.size() - 2]) == CigarOp::kDeletion;
}

GatkCigarBuilder& GatkCigarBuilder::add(std::uint32_t element) {
  const std::uint32_t length = element_length(element);
  if (length == 0) return *this;
  const CigarOp op = cigar_op(element);

  // a deletion at the start of the body (after clips, or after a leading insertion) is dropped
  if (remove_deletions_at_ends_ && op == CigarOp::kDeletion) {
    if (!has_last_ || is_clipping(last_)) {
      leading_removed_ += length;
      return *this;
    }
    if (last_ == CigarOp::kInsertion &&
        (elements_.size() == 1 || is_clipping(cigar_op(elements_[elements_.size() - 2])))) {
      leading_removed_ += length;
      return *this;
    }
  }

  advance_section(op);

  if (has_last_ && op == last_) {
    elements_.back() = cigar_element(op, cigar_length(elements_.back()) + length);
  } else if (!has_last_) {
    elements_.push_back(element);
    last_ = op;
    has_last_ = true;
  } else if (is_clipping(op)) {
    // starting the right clip: a deletion just before it (or the D of a "DI") is dropped
    if (remove_deletions_at_ends_ && !consumes_query(last_) && !is_clipping(last_)) {
      trailing_removed_ += cigar_length(elements_.back());
      elements_.back() = element;
      last_ = op;
    } else if (remove_deletions_at_ends_ && last_two_were_deletion_and_insertion()) {
      // GATK leaves its last operator at the insertion here; so do we
      const std::size_t n = elements_.size();
      trailing_removed_ += cigar_length(elements_[n - 2]);
      elements_[n - 2] = elements_[n - 1];
      elements_[n - 1] = element;
    } else {
      elements_.push_back(element);
      last_ = op;
    }
  } else if (op == CigarOp::kDeletion && last_ == CigarOp::kInsertion) {
    // "ID" is written "DI"; a deletion before the insertion absorbs this one; last stays I
    const std::size_t n = elements_.size();
    if (n > 1 && cigar_op(elements_[n - 2]) == CigarOp::kDeletion) {
      elements_[n - 2] = cigar_element(CigarOp::kDeletion, cigar_length(elements_[n - 2]) + length);
    } else {
      elements_.insert(elements_.end() - 1, element);
    }
  } else {
    elements_.push_back(element);
    last_ = op;
  }
  return *this;
}

GatkCigarBuilder& GatkCigarBuilder::add_all(std::span<const std::uint32_t> elements) {
  for (std::uint32_t e : elements) add(e);
  return *this;
}

std::vector<std::uint32_t> GatkCigarBuilder::make(bool allow_empty) {
  if (section_ == Section::kLeftSoftClip && cigar_op(elements_.front()) == CigarOp::kSoftClip) {
    throw Error("cigar is completely soft-clipped");
  }
  trailing_removed_in_make_ = 0;
  if (remove_deletions_at_ends_ && has_last_ && last_ == CigarOp::kDeletion) {
    trailing_removed_in_make_ = cigar_length(elements_.back());
    elements_.pop_back();
  } else if (remove_deletions_at_ends_ && last_two_were_deletion_and_insertion()) {
    trailing_removed_in_make_ = cigar_length(elements_[elements_.size() - 2]);
    elements_.erase(elements_.end() - 2);
  }
  if (!allow_empty && elements_.empty()) {
    throw Error("No cigar elements left after removing leading and trailing deletions.");
  }
  return elements_;
}

CigarBuildResult GatkCigarBuilder::make_and_record_deletions_removed() {
  CigarBuildResult result;
  result.cigar = make();
  result.leading_deletions_removed = leading_removed_;
  result.trailing_deletions_removed = trailing_removed_ + trailing_removed_in_make_;
  return result;
}

namespace {

CigarBuildResult trim_cigar(std::span<const std::uint32_t> cigar, std::int64_t start,
                            std::int64_t end, bool by_reference) {
  if (start < 0) throw Error("start position can't be negative");
  if (end < start) {
    throw Error("end " + std::to_string(end) + " is before start " + std::to_string(start));
  }
  GatkCigarBuilder builder;
  std::int64_t element_end = 0;  // exclusive
  for (std::uint32_t e : cigar) {
    const CigarOp op = cigar_op(e);
    const std::int64_t element_start = element_end;
    const bool counts = by_reference ? consumes_reference(op) : consumes_query(op);
    element_end = element_start + (counts ? cigar_length(e) : 0);
    // zero-length elements exactly at start or at end + 1 are kept
    if (element_end < start || (element_end == start && element_start < start)) continue;
    if (element_start > end && element_end > end + 1) break;
    const std::int64_t overlap = element_end == element_start ? cigar_length(e)
                                                              : std::min(end + 1, element_end) -
                                                                    std::max(start, element_start);
    builder.add(cigar_element(op, static_cast<std::uint32_t>(overlap)));
  }
  if (element_end <= end) {
    throw Error("cigar elements don't reach end position (inclusive) " + std::to_string(end));
  }
  return builder.make_and_record_deletions_removed();
}

}  // namespace

CigarBuildResult trim_cigar_by_reference(std::span<const std::uint32_t> cigar, std::int64_t start,
                                         std::int64_t end) {
  return trim_cigar(cigar, start, end, true);
}

CigarBuildResult trim_cigar_by_bases(std::span<const std::uint32_t> cigar, std::int64_t start,
                                     std::int64_t end) {
  return trim_cigar(cigar, start, end, false);
}

std::optional<std::string> bases_covering_ref_interval(std::int64_t ref_start, std::int64_t ref_end,
                                                       std::string_view bases,
                                                       std::int64_t bases_start_on_ref,
                                                       std::span<const std::uint32_t> cigar) {
  if (ref_start < 0 || ref_end < ref_start) {
    throw Error("Bad start " + std::to_string(ref_start) + " and/or stop " +
                std::to_string(ref_end));
  }
  if (bases_start_on_ref < 0) throw Error("BasesStartOnRef must be >= 0");
  if (static_cast<std::uint64_t>(bases.size()) != cigar_query_length(cigar)) {
    throw Error("Mismatch in length between reference bases " + std::to_string(bases.size()) +
                " and cigar length " + cigar_to_string(cigar));
  }
  std::int64_t ref_pos = bases_start_on_ref;
  std::int64_t bases_pos = 0;
  std::int64_t bases_start = -1;
  std::int64_t bases_stop = -1;
  bool done = false;
  for (std::size_t i = 0; !done && i < cigar.size(); ++i) {
    const CigarOp op = cigar_op(cigar[i]);
    const std::int64_t length = cigar_length(cigar[i]);
    switch (op) {
      case CigarOp::kInsertion:
        bases_pos += length;
        break;
      case CigarOp::kMatch:
      case CigarOp::kSequenceMatch:
      case CigarOp::kSequenceMismatch:
        for (std::int64_t k = 0; k < length; ++k) {
          if (ref_pos == ref_start) bases_start = bases_pos;
          if (ref_pos == ref_end) {
            bases_stop = bases_pos;
            done = true;
            break;
          }
          ++ref_pos;
          ++bases_pos;
        }
        break;
      case CigarOp::kDeletion:
        for (std::int64_t k = 0; k < length; ++k) {
          if (ref_pos == ref_end || ref_pos == ref_start) return std::nullopt;
          ++ref_pos;
        }
        break;
      default:
        throw Error(std::string("Unsupported operator ") + cigar_op_char(op));
    }
  }
  if (bases_start == -1 || bases_stop == -1) {
    throw Error("Never found start " + std::to_string(bases_start) + " or stop " +
                std::to_string(bases_stop) + " given cigar " + cigar_to_string(cigar));
  }
  return std::string(bases.substr(static_cast<std::size_t>(bases_start),
                                  static_cast<std::size_t>(bases_stop - bases_start + 1)));
}

ReadIndexAtReference read_index_for_reference_coordinate(std::int64_t alignment_start,
                                                         std::span<const std::uint32_t> cigar,
                                                         std::int64_t ref_coord) {
  if (ref_coord < alignment_start) return {};
  std::int64_t last_read_pos = 0;  // exclusive
  std::int64_t last_ref_pos = alignment_start;
  for (std::uint32_t e : cigar) {
    const CigarOp op = cigar_op(e);
    const std::int64_t length = cigar_length(e);
    const std::int64_t first_read_pos = last_read_pos;
    const std::int64_t first_ref_pos = last_ref_pos;
    last_read_pos += consumes_query(op) ? length : 0;
    last_ref_pos += (consumes_reference(op) || op == CigarOp::kSoftClip) ? length : 0;
    if (first_ref_pos <= ref_coord && ref_coord < last_ref_pos) {
      const std::int64_t index =
          first_read_pos + (consumes_query(op) ? ref_coord - first_ref_pos : 0);
      return {true, index, op};
    }
  }
  return {};
}

}  // namespace gpp::stages::call
