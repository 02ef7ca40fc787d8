// Closed intervals on one contig and reference windows, the two coordinate types of the
// haplotype -> allele step. They are GATK's SimpleInterval (1-based, both ends included) shifted to
// 0-based: `first` and `last` are both included, so GATK's `getEnd() + padding` arithmetic carries
// over unchanged, and an empty interval has last == first - 1.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpp::stages::call {

/// [first, last] on one contig, 0-based, both ends included (GATK SimpleInterval).
struct ContigInterval {
  std::int64_t first = 0;
  std::int64_t last = -1;

  std::int64_t size() const { return last - first + 1; }
  /// SimpleInterval.contains: `other` lies entirely inside this interval.
  bool contains(const ContigInterval& other) const {
    return first <= other.first && other.last <= last;
  }
  /// SimpleInterval.overlaps / Locatable.overlaps: at least one position in common.
  bool overlaps(const ContigInterval& other) const {
    return first <= other.last && other.first <= last;
  }
  friend bool operator==(const ContigInterval&, const ContigInterval&) = default;
};

/// Reference bases of a window of one contig (GATK's `byte[] ref` with its `refLoc`): bases[i] is
/// the base at contig position start + i. Bases are upper case, as GATK's reference reader
/// returns them.
struct ReferenceWindow {
  std::string_view bases;
  std::int64_t start = 0;  ///< 0-based contig position of bases[0]

  ContigInterval interval() const {
    return {start, start + static_cast<std::int64_t>(bases.size()) - 1};
  }
};

}  // namespace gpp::stages::call
