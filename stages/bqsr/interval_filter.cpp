#include "stages/bqsr/interval_filter.hpp"

#include <algorithm>

namespace gpp::stages::bqsr {

ContigSpans spans_by_contig(const io::Header& header, const std::vector<io::Interval>& intervals) {
  ContigSpans by_contig(header.contigs().size());
  for (const io::Interval& interval : intervals) {
    by_contig[static_cast<std::size_t>(header.contig_index(interval.contig))].emplace_back(
        interval.start, interval.end);
  }
  return by_contig;
}

void restrict_to_intervals(io::ReadBatch& reads, const ContigSpans& by_contig) {
  for (std::size_t i = 0; i < reads.size(); ++i) {
    bool keep = false;
    if (reads.tid[i] >= 0) {
      for (const auto& [start, end] : by_contig[static_cast<std::size_t>(reads.tid[i])]) {
        if (reads.pos[i] < end && std::max(reads.end[i], reads.pos[i] + 1) > start) keep = true;
      }
    }
    if (!keep) reads.flag[i] |= io::flag::kUnmapped;
  }
}

}  // namespace gpp::stages::bqsr
