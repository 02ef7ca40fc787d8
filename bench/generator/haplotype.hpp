// One haplotype of a simulated contig: the reference with the variants of that haplotype applied,
// and, for any stretch of it, the alignment a perfect aligner would report against the reference
// (matches, with I and D where the stretch crosses an indel).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/generator/truth_set.hpp"

namespace gpp::bench {

/// Where a read lies on the reference: 0-based POS, its end (exclusive), BAM-packed CIGAR ops.
struct ReadAlignment {
  std::int64_t pos = 0;
  std::int64_t end = 0;
  std::vector<std::uint32_t> cigar;
};

class Haplotype {
 public:
  /// Applies to `reference` (upper case) the variants of `truth` that haplotype `index` (0 or 1:
  /// bit `index` of Variant::haplotypes) carries.
  Haplotype(std::string_view reference, const std::vector<Variant>& truth, int index);

  const std::string& bases() const { return bases_; }
  std::int64_t size() const { return static_cast<std::int64_t>(bases_.size()); }

  /// The haplotype position of reference position `ref_pos` (the next kept base when it is
  /// deleted on this haplotype), clamped to the haplotype.
  std::int64_t from_reference(std::int64_t ref_pos) const;

  /// Alignment of haplotype bases [start, start + length) to the reference. Bases of an
  /// insertion at either end of the stretch are soft-clipped, as an aligner would clip them.
  ReadAlignment align(std::int64_t start, int length) const;

 private:
  struct Indel {
    std::int64_t hap_pos;      ///< insertion: its first base; deletion: the base after the gap
    std::int32_t length;       ///< > 0: bases inserted; < 0: reference bases deleted
    std::int64_t ref_pos;      ///< insertion: reference base after it; deletion: first deleted base
    std::int64_t shift_after;  ///< reference minus haplotype position of bases after the indel
    std::int64_t hap_end() const { return length > 0 ? hap_pos + length : hap_pos; }
  };
  std::string bases_;
  std::vector<Indel> indels_;
};

/// Soft-clips the first (`at_start`) or last `count` read bases of `a`, as an aligner reports a
/// clipped read: POS moves to the first aligned base, and a D or I next to the clip is absorbed.
void soft_clip(ReadAlignment& a, int count, bool at_start);

}  // namespace gpp::bench
