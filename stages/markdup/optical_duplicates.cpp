#include "stages/markdup/optical_duplicates.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace gpp::stages::markdup {

namespace {

// Σ (cluster size - 1) over the clusters of `members` (indices into `set`).
std::int64_t count_in(std::span<const ReadEnd> set, const std::vector<std::size_t>& members,
                      int distance) {
  if (members.size() < 2 || members.size() > kMaxOpticalDuplicateSetSize) return 0;
  std::vector<std::size_t> located;
  for (const std::size_t m : members) {
    if (set[m].location.tile != -1) located.push_back(m);  // Picard's hasLocation()
  }
  // Group by (read group, tile), then link close pairs with union-find.
  std::sort(located.begin(), located.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(set[a].read_group, set[a].location.tile) <
           std::pair(set[b].read_group, set[b].location.tile);
  });
  std::vector<std::size_t> parent(located.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](std::size_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  std::int64_t merges = 0;
  for (std::size_t begin = 0; begin < located.size();) {
    std::size_t end = begin + 1;
    const ReadEnd& first = set[located[begin]];
    while (end < located.size() && set[located[end]].read_group == first.read_group &&
           set[located[end]].location.tile == first.location.tile) {
      ++end;
    }
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t j = i + 1; j < end; ++j) {
        const ClusterLocation& a = set[located[i]].location;
        const ClusterLocation& b = set[located[j]].location;
        if (std::abs(a.x - b.x) <= distance && std::abs(a.y - b.y) <= distance) {
          const std::size_t ri = root(i);
          const std::size_t rj = root(j);
          if (ri != rj) {
            parent[ri] = rj;
            ++merges;  // every merge adds one optical duplicate to the clusters' total
          }
        }
      }
    }
    begin = end;
  }
  return merges;
}

}  // namespace

std::int64_t count_optical_duplicates(std::span<const ReadEnd> set, int pixel_distance) {
  std::vector<std::size_t> fr;
  std::vector<std::size_t> rf;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set[i].optical_orientation == kFR) fr.push_back(i);
    if (set[i].optical_orientation == kRF) rf.push_back(i);
  }
  if (!fr.empty() && !rf.empty())
    return count_in(set, fr, pixel_distance) + count_in(set, rf, pixel_distance);
  std::vector<std::size_t> all(set.size());
  std::iota(all.begin(), all.end(), 0);
  return count_in(set, all, pixel_distance);
}

}  // namespace gpp::stages::markdup
