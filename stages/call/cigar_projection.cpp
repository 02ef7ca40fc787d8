// GATK AlignmentUtils.applyCigarToCigar, readStartOnReferenceHaplotype and
// appendClippedElementsFromCigarToCigar.
#include "stages/call/cigar_projection.hpp"

#include <algorithm>
#include <string>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/cigar_edit.hpp"

namespace gpp::stages::call {

namespace {

/// The operator classes of GATK's CigarPairTransform: M (M = X), I (I S) and D.
enum class OpClass { kMatch, kInsertion, kDeletion };

OpClass op_class(CigarOp op) {
  switch (op) {
    case CigarOp::kMatch:
    case CigarOp::kSequenceMatch:
    case CigarOp::kSequenceMismatch:
      return OpClass::kMatch;
    case CigarOp::kInsertion:
    case CigarOp::kSoftClip:
      return OpClass::kInsertion;
    case CigarOp::kDeletion:
      return OpClass::kDeletion;
    default:
      throw Error(std::string("No transformer for operator ") + cigar_op_char(op) +
                  " when composing CIGARs");
  }
}

/// One step of the three-way walk: the 1->3 operator (if any) and how far each CIGAR advances.
struct PairTransform {
  bool emits;
  CigarOp op13;
  int advance12;
  int advance23;
};

PairTransform transform(OpClass op12, OpClass op23) {
  switch (op12) {
    case OpClass::kMatch:
      if (op23 == OpClass::kMatch) return {true, CigarOp::kMatch, 1, 1};
      if (op23 == OpClass::kInsertion) return {true, CigarOp::kInsertion, 1, 1};
      return {true, CigarOp::kDeletion, 0, 1};
    case OpClass::kDeletion:
      if (op23 == OpClass::kMatch) return {true, CigarOp::kDeletion, 1, 1};
      if (op23 == OpClass::kDeletion) return {true, CigarOp::kDeletion, 0, 1};
      return {false, CigarOp::kMatch, 1, 1};  // a deleted base that 2 inserted: nothing in 1->3
    case OpClass::kInsertion:
      break;
  }
  return {true, CigarOp::kInsertion, 1, 0};  // a base only 1 has
}

}  // namespace

std::vector<std::uint32_t> apply_cigar_to_cigar(std::span<const std::uint32_t> first_to_second,
                                                std::span<const std::uint32_t> second_to_third) {
  GatkCigarBuilder builder;
  std::size_t element12 = 0;
  std::size_t element23 = 0;
  std::uint32_t offset12 = 0;  // bases of the current element already walked
  std::uint32_t offset23 = 0;
  const auto skip_empty = [](std::span<const std::uint32_t> cigar, std::size_t& i) {
    while (i < cigar.size() && cigar_length(cigar[i]) == 0) ++i;
  };
  skip_empty(first_to_second, element12);
  skip_empty(second_to_third, element23);
  while (element12 < first_to_second.size() && element23 < second_to_third.size()) {
    const std::uint32_t e12 = first_to_second[element12];
    const std::uint32_t e23 = second_to_third[element23];
    const PairTransform t = transform(op_class(cigar_op(e12)), op_class(cigar_op(e23)));
    if (t.emits) builder.add(cigar_element(t.op13, 1));
    offset12 += t.advance12;
    offset23 += t.advance23;
    if (offset12 == cigar_length(e12)) {
      ++element12;
      offset12 = 0;
      skip_empty(first_to_second, element12);
    }
    if (offset23 == cigar_length(e23)) {
      ++element23;
      offset23 = 0;
      skip_empty(second_to_third, element23);
    }
  }
  return builder.make();
}

std::int64_t read_start_on_reference_haplotype(
    std::span<const std::uint32_t> haplotype_vs_ref_cigar, std::int64_t read_start_on_haplotype) {
  if (read_start_on_haplotype == 0) return 0;
  std::int64_t reference_consumed = 0;
  std::int64_t haplotype_consumed = 0;
  for (std::uint32_t e : haplotype_vs_ref_cigar) {
    const CigarOp op = cigar_op(e);
    if (consumes_reference(op)) reference_consumed += cigar_length(e);
    if (consumes_query(op)) haplotype_consumed += cigar_length(e);
    if (haplotype_consumed >= read_start_on_haplotype) {
      const std::int64_t excess =
          consumes_reference(op) ? haplotype_consumed - read_start_on_haplotype : 0;
      return reference_consumed - excess;
    }
  }
  throw Error("Cigar " + cigar_to_string(haplotype_vs_ref_cigar) +
              " doesn't reach the read start " + std::to_string(read_start_on_haplotype));
}

std::vector<std::uint32_t> append_clipped_elements(std::span<const std::uint32_t> cigar,
                                                   std::span<const std::uint32_t> original_cigar) {
  std::vector<std::uint32_t> result;
  if (original_cigar.empty()) {
    result.assign(cigar.begin(), cigar.end());
    return result;
  }
  std::size_t first = 0;
  std::size_t last = original_cigar.size() - 1;
  while (is_clipping(cigar_op(original_cigar[first])) && first != last) {
    result.push_back(original_cigar[first]);
    ++first;
  }
  result.insert(result.end(), cigar.begin(), cigar.end());
  const std::size_t body_end = result.size();
  while (is_clipping(cigar_op(original_cigar[last])) && first != last) {
    result.push_back(original_cigar[last]);
    --last;
  }
  // the trailing clips were gathered right to left: restore their order (e.g. "5S5H")
  std::reverse(result.begin() + static_cast<std::ptrdiff_t>(body_end), result.end());
  return result;
}

}  // namespace gpp::stages::call
