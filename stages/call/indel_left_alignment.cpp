// GATK AlignmentUtils.leftAlignIndels and AlignmentUtils.normalizeAlleles (IndexRange semantics).
#include "stages/call/indel_left_alignment.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/cigar.hpp"
#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

bool is_indel(CigarOp op) { return op == CigarOp::kInsertion || op == CigarOp::kDeletion; }
bool is_alignment(CigarOp op) {
  return op == CigarOp::kMatch || op == CigarOp::kSequenceMatch || op == CigarOp::kSequenceMismatch;
}
std::int64_t length_on_read(std::uint32_t e) {
  return consumes_query(cigar_op(e)) ? cigar_length(e) : 0;
}
std::int64_t length_on_reference(std::uint32_t e) {
  return consumes_reference(cigar_op(e)) ? cigar_length(e) : 0;
}

/// IndexRange's validation after every change.
void set_range(AlleleRange& range, std::int64_t start, std::int64_t end) {
  if (start > end) throw Error("the range size cannot be negative");
  if (start < 0) throw Error("the range cannot contain negative indices");
  range.start = start;
  range.end = end;
}
void shift(AlleleRange& r, std::int64_t by) { set_range(r, r.start + by, r.end + by); }
void shift_start(AlleleRange& r, std::int64_t by) { set_range(r, r.start + by, r.end); }
void shift_end(AlleleRange& r, std::int64_t by) { set_range(r, r.start, r.end + by); }

/// A base of a sequence; Java would throw ArrayIndexOutOfBounds outside it.
char base_at(std::string_view sequence, std::int64_t i) {
  if (i < 0 || i >= static_cast<std::int64_t>(sequence.size())) {
    throw Error("allele normalization reads outside its sequence (index " + std::to_string(i) +
                ", length " + std::to_string(sequence.size()) + ")");
  }
  return sequence[static_cast<std::size_t>(i)];
}

}  // namespace

std::pair<std::int64_t, std::int64_t> normalize_alleles(std::string_view ref, std::string_view read,
                                                        AlleleRange& ref_range,
                                                        AlleleRange& read_range,
                                                        std::int64_t max_shift, bool trim) {
  if (max_shift > ref_range.start || max_shift > read_range.start) {
    throw Error("maxShift goes past the start of a sequence");
  }
  const auto last_on_right_same = [&] {
    return base_at(ref, ref_range.end - 1) == base_at(read, read_range.end - 1);
  };
  const auto first_on_left_same = [&] {
    return base_at(ref, ref_range.start) == base_at(read, read_range.start);
  };
  const auto next_on_left_same = [&] {
    return base_at(ref, ref_range.start - 1) == base_at(read, read_range.start - 1);
  };
  std::int64_t start_shift = 0;
  std::int64_t end_shift = 0;
  std::int64_t min_size = std::min(ref_range.size(), read_range.size());
  while (trim && min_size > 0 && last_on_right_same()) {
    shift_end(ref_range, -1);
    shift_end(read_range, -1);
    --min_size;
    ++end_shift;
  }
  while (trim && min_size > 0 && first_on_left_same()) {
    shift_start(ref_range, 1);
    shift_start(read_range, 1);
    --min_size;
    --start_shift;
  }
  while (start_shift < max_shift && next_on_left_same() && last_on_right_same()) {
    shift(ref_range, -1);
    shift(read_range, -1);
    ++start_shift;
    ++end_shift;
  }
  return {start_shift, end_shift};
}

CigarBuildResult left_align_indels(std::span<const std::uint32_t> cigar, std::string_view ref,
                                   std::string_view read, std::int64_t read_start) {
  if (read_start < 0) throw Error("read start within reference base array must be non-negative");
  std::ptrdiff_t last_indel = -1;
  for (std::size_t n = 0; n < cigar.size(); ++n) {
    if (is_indel(cigar_op(cigar[n]))) last_indel = static_cast<std::ptrdiff_t>(n);
  }
  if (last_indel < 0) return {std::vector<std::uint32_t>(cigar.begin(), cigar.end()), 0, 0};

  // reference bases are needed from the read start to the rightmost indel
  std::int64_t necessary_ref_length = read_start;
  for (std::ptrdiff_t n = 0; n <= last_indel; ++n)
    necessary_ref_length += length_on_reference(cigar[n]);
  if (necessary_ref_length > static_cast<std::int64_t>(ref.size())) {
    throw Error("read goes past end of reference");
  }

  // Start one base past the end of the read and walk the CIGAR right to left. Indels only
  // accumulate into the ranges; they move when an alignment block (or a clip) is reached.
  std::vector<std::uint32_t> right_to_left;
  const auto emit = [&](CigarOp op, std::int64_t length) {
    right_to_left.push_back(cigar_element(op, static_cast<std::uint32_t>(length)));
  };
  const std::int64_t ref_end =
      read_start + static_cast<std::int64_t>(cigar_reference_length(cigar));
  const auto read_length = static_cast<std::int64_t>(read.size());
  AlleleRange ref_range;
  AlleleRange read_range;
  set_range(ref_range, ref_end, ref_end);
  set_range(read_range, read_length, read_length);
  for (std::size_t n = cigar.size(); n-- > 0;) {
    const std::uint32_t element = cigar[n];
    const CigarOp op = cigar_op(element);
    const std::int64_t length = cigar_length(element);
    if (is_indel(op)) {
      shift_start(ref_range, -length_on_reference(element));
      shift_start(read_range, -length_on_read(element));
    } else if (ref_range.size() == 0 && read_range.size() == 0) {
      right_to_left.push_back(element);
      shift(ref_range, -length_on_reference(element));
      shift(read_range, -length_on_read(element));
    } else {
      // an indel waits on the left: move it into this block if it is an alignment, not a clip
      const std::int64_t max_shift = is_alignment(op) ? length : 0;
      const auto [start_shift, end_shift] =
          normalize_alleles(ref, read, ref_range, read_range, max_shift, true);
      emit(CigarOp::kMatch, end_shift);  // matches now on the right of the indel
      const bool emit_indel = n == 0 || start_shift < max_shift || !is_alignment(op);
      // trimming may have moved the alleles right, leaving matches on their left
      const std::int64_t new_match_on_left = start_shift < 0 ? -start_shift : 0;
      const std::int64_t remaining_on_left = start_shift < 0 ? length : length - start_shift;
      if (emit_indel) {
        emit(CigarOp::kDeletion, ref_range.size());
        emit(CigarOp::kInsertion, read_range.size());
        shift_end(ref_range, -ref_range.size());
        shift_end(read_range, -read_range.size());
        shift(ref_range, -(new_match_on_left + (consumes_reference(op) ? remaining_on_left : 0)));
        shift(read_range, -(new_match_on_left + (consumes_query(op) ? remaining_on_left : 0)));
      }
      emit(CigarOp::kMatch, new_match_on_left);
      emit(op, remaining_on_left);
    }
  }
  // indels at the very start, with no block on their left
  emit(CigarOp::kDeletion, ref_range.size());
  emit(CigarOp::kInsertion, read_range.size());
  if (read_range.start != 0) throw Error("Given cigar does not account for all bases of the read");

  GatkCigarBuilder builder;
  for (auto it = right_to_left.rbegin(); it != right_to_left.rend(); ++it) builder.add(*it);
  return builder.make_and_record_deletions_removed();
}

}  // namespace gpp::stages::call
