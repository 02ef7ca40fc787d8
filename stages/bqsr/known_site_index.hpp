// The known sites of one contig, ready for the question BaseRecalibrator asks of every read:
// which sites overlap these reference bases (GATK asks its feature index the same).
//
// The sites are kept sorted by start; beside them, for each block of 16 sites, the furthest end
// among that block's sites and every site before it. That running maximum never decreases, so one
// binary search finds the first block that can reach a position, however long the sites before it
// are (a 5 kb deletion of dbSNP costs only the reads it overlaps); the scan then stops at the first
// site that starts after the read.
//
// @code
//   const KnownSiteIndex sites(spans_of_contig);
//   sites.overlapping(first, last, [&](const io::VariantSpan& site) { ... });
// @endcode
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "io/genome/known_sites.hpp"

namespace gpp::stages::bqsr {

class KnownSiteIndex {
 public:
  KnownSiteIndex() = default;
  /// The sites of `spans` (0-based, half-open), in any order: sorted here by start, stably.
  explicit KnownSiteIndex(std::vector<io::VariantSpan> spans);

  bool empty() const { return spans_.empty(); }
  std::size_t size() const { return spans_.size(); }
  /// The sites in order of start (equal starts in the order given).
  std::span<const io::VariantSpan> spans() const { return spans_; }

  /// Calls `visit(site)` for every site that shares a base with the 1-based inclusive reference
  /// range [first, last], in order of start.
  template <class Visit>
  void overlapping(std::int64_t first, std::int64_t last, Visit&& visit) const {
    // Every site of the blocks before this one ends before `first` (a site's 1-based last base
    // is its half-open end).
    const auto block = std::partition_point(reach_.begin(), reach_.end(),
                                            [first](std::int64_t end) { return end < first; });
    for (std::size_t s = static_cast<std::size_t>(block - reach_.begin()) * kBlockSites;
         s < spans_.size() && spans_[s].start + 1 <= last; ++s) {
      if (spans_[s].end >= first) visit(spans_[s]);
    }
  }

 private:
  static constexpr std::size_t kBlockSites = 16;
  std::vector<io::VariantSpan> spans_;
  std::vector<std::int64_t> reach_;  ///< [b]: the largest end among spans_[0, 16 (b + 1))
};

}  // namespace gpp::stages::bqsr
