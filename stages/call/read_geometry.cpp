// GATK GATKRead / ReadUtils position rules (see the header).
#include "stages/call/read_geometry.hpp"

#include <cstdlib>

namespace gpp::stages::call {

namespace {
constexpr std::uint16_t kPaired = 0x1, kProperPair = 0x2, kUnmapped = 0x4, kMateUnmapped = 0x8,
                        kReverse = 0x10, kMateReverse = 0x20, kFirst = 0x40, kSecond = 0x80,
                        kSecondary = 0x100, kQcFail = 0x200, kDuplicate = 0x400,
                        kSupplementary = 0x800;
}  // namespace

bool is_unmapped(const CallRead& read) {
  return (read.flag & kUnmapped) != 0 || read.contig < 0 || read.start < 0;
}

bool gatk_mate_is_unmapped(const CallRead& read) {
  return (read.flag & kMateUnmapped) != 0 || read.mate_contig < 0 || read.mate_start < 0;
}

bool has_well_defined_fragment_size(const CallRead& read) {
  if (read.insert_size == 0) return false;  // mate on another contig, or unmapped pair
  if (!read.is_paired()) return false;
  if (is_unmapped(read) || gatk_mate_is_unmapped(read)) return false;
  if (read.is_reverse_strand() == read.mate_is_reverse_strand()) return false;
  if (read.is_reverse_strand()) return alignment_stop(read) > read.mate_start;
  return read.start <= read.mate_start + read.insert_size;
}

std::optional<std::int64_t> adaptor_boundary(const CallRead& read) {
  if (!has_well_defined_fragment_size(read)) return std::nullopt;
  if (read.is_reverse_strand()) return read.mate_start - 1;
  return read.start + std::llabs(read.insert_size);
}

std::int64_t unclipped_read_length(const CallRead& read) {
  std::int64_t soft_clipped = 0;
  for (std::uint32_t e : read.cigar) {
    if (cigar_op(e) == CigarOp::kSoftClip) soft_clipped += cigar_length(e);
  }
  return static_cast<std::int64_t>(read.bases.size()) - soft_clipped;
}

bool overlaps(const CallRead& read, std::int32_t contig, std::int64_t span_start,
              std::int64_t span_end) {
  return read.contig == contig && read.start <= span_end - 1 && span_start <= alignment_stop(read);
}

std::uint16_t gatk_sam_flags(const CallRead& read) {
  const bool paired = read.is_paired();
  const bool unmapped = is_unmapped(read);
  const bool mate_unmapped = paired && gatk_mate_is_unmapped(read);
  std::uint16_t flags = 0;
  if (paired) flags |= kPaired;
  if (paired && (read.flag & kProperPair) != 0) flags |= kProperPair;
  if (unmapped) flags |= kUnmapped;
  if (mate_unmapped) flags |= kMateUnmapped;
  if (!unmapped && read.is_reverse_strand()) flags |= kReverse;
  if (paired && !mate_unmapped && read.mate_is_reverse_strand()) flags |= kMateReverse;
  if (paired && read.is_first_of_pair()) flags |= kFirst;
  if (paired && read.is_second_of_pair()) flags |= kSecond;
  flags |= read.flag & (kSecondary | kQcFail | kDuplicate | kSupplementary);
  return flags;
}

}  // namespace gpp::stages::call
