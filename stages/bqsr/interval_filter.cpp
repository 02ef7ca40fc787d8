#include "stages/bqsr/interval_filter.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace gpp::stages::bqsr {

ContigSpans spans_by_contig(const io::Header& header, const std::vector<io::Interval>& intervals) {
  ContigSpans by_contig(header.contigs().size());
  for (const io::Interval& interval : intervals) {
    by_contig[static_cast<std::size_t>(header.contig_index(interval.contig))].emplace_back(
        interval.start, interval.end);
  }
  return by_contig;
}

bool overlaps_intervals(const io::ReadBatch& reads, std::size_t i, const ContigSpans& by_contig) {
  if (reads.tid[i] < 0) return false;
  for (const auto& [start, end] : by_contig[static_cast<std::size_t>(reads.tid[i])]) {
    if (reads.pos[i] < end && std::max(reads.end[i], reads.pos[i] + 1) > start) return true;
  }
  return false;
}

void restrict_to_intervals(io::ReadBatch& reads, const ContigSpans& by_contig) {
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (!overlaps_intervals(reads, i, by_contig)) reads.flag[i] |= io::flag::kUnmapped;
  }
}

void keep_overlapping(io::ReadBatch& reads, const ContigSpans& by_contig) {
  std::vector<io::ReadBatch::RowRef> kept;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (overlaps_intervals(reads, i, by_contig)) kept.push_back({0, static_cast<std::uint32_t>(i)});
  }
  if (kept.size() == reads.size()) return;
  io::ReadBatch overlapping;
  const io::ReadBatch* source = &reads;
  overlapping.append_rows(std::span(&source, 1), kept);
  reads = std::move(overlapping);
}

}  // namespace gpp::stages::bqsr
