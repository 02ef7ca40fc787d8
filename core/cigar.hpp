// The one CIGAR vocabulary: BAM-packed elements (length << 4 | operation, SAM specification
// section 4.2) and what each operation consumes, as htslib's bam_cigar_type tells it.
//
// @code
//   std::uint32_t e = cigar_element(CigarOp::kDeletion, 3);   // 3D
//   cigar_length(e) == 3; cigar_op(e) == CigarOp::kDeletion;
//   consumes_reference(CigarOp::kDeletion) && !consumes_query(CigarOp::kDeletion);
//   cigar_to_string(std::vector<std::uint32_t>{cigar_element(CigarOp::kMatch, 5)}) == "5M";
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace gpp {

/// BAM operation codes: M I D N S H P = X.
enum class CigarOp : std::uint32_t {
  kMatch = 0,
  kInsertion = 1,
  kDeletion = 2,
  kSkip = 3,
  kSoftClip = 4,
  kHardClip = 5,
  kPadding = 6,
  kSequenceMatch = 7,
  kSequenceMismatch = 8,
};

constexpr std::uint32_t cigar_element(CigarOp op, std::uint32_t length) {
  return length << 4 | static_cast<std::uint32_t>(op);
}
constexpr CigarOp cigar_op(std::uint32_t element) { return static_cast<CigarOp>(element & 0xF); }
constexpr std::uint32_t cigar_length(std::uint32_t element) { return element >> 4; }

/// htslib's BAM_CIGAR_TYPE: bit 0 consumes the query, bit 1 the reference (M = X: both; I S:
/// query; D N: reference; H P: neither).
constexpr std::uint32_t kCigarTypeBits = 0x3C1A7;
constexpr bool consumes_query(CigarOp op) {
  return (kCigarTypeBits >> (2 * static_cast<std::uint32_t>(op)) & 1) != 0;
}
constexpr bool consumes_reference(CigarOp op) {
  return (kCigarTypeBits >> (2 * static_cast<std::uint32_t>(op)) & 2) != 0;
}
constexpr bool is_clipping(CigarOp op) {
  return op == CigarOp::kSoftClip || op == CigarOp::kHardClip;
}

/// "MIDNSHP=X"[op].
constexpr char cigar_op_char(CigarOp op) {
  return "MIDNSHP=X???????"[static_cast<std::uint32_t>(op) & 0xF];
}

/// "3D5M"; "*" for an empty CIGAR.
inline std::string cigar_to_string(std::span<const std::uint32_t> cigar) {
  if (cigar.empty()) return "*";
  std::string text;
  for (std::uint32_t element : cigar) {
    text += std::to_string(cigar_length(element));
    text += cigar_op_char(cigar_op(element));
  }
  return text;
}

/// Sums of the lengths of the operations that consume the query / the reference.
inline std::uint64_t cigar_query_length(std::span<const std::uint32_t> cigar) {
  std::uint64_t length = 0;
  for (std::uint32_t e : cigar) length += consumes_query(cigar_op(e)) ? cigar_length(e) : 0;
  return length;
}
inline std::uint64_t cigar_reference_length(std::span<const std::uint32_t> cigar) {
  std::uint64_t length = 0;
  for (std::uint32_t e : cigar) length += consumes_reference(cigar_op(e)) ? cigar_length(e) : 0;
  return length;
}

}  // namespace gpp
