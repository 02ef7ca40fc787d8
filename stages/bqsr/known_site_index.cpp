#include "stages/bqsr/known_site_index.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace gpp::stages::bqsr {

KnownSiteIndex::KnownSiteIndex(std::vector<io::VariantSpan> spans) : spans_(std::move(spans)) {
  std::stable_sort(
      spans_.begin(), spans_.end(),
      [](const io::VariantSpan& a, const io::VariantSpan& b) { return a.start < b.start; });
  reach_.resize((spans_.size() + kBlockSites - 1) / kBlockSites);
  std::int64_t reach = std::numeric_limits<std::int64_t>::min();
  for (std::size_t s = 0; s < spans_.size(); ++s) {
    reach = std::max(reach, spans_[s].end);
    reach_[s / kBlockSites] = reach;
  }
}

}  // namespace gpp::stages::bqsr
