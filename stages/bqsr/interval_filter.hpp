// GATK's -L read traversal for BaseRecalibrator and ApplyBQSR: only reads that overlap one of the
// intervals are counted, or written.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "io/genome/intervals.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"

namespace gpp::stages::bqsr {

/// [start, end) spans (0-based) per contig index of a header.
using ContigSpans = std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>;

/// The intervals' spans, per contig index of `header` (every interval's contig is in it).
ContigSpans spans_by_contig(const io::Header& header, const std::vector<io::Interval>& intervals);

/// Whether record `i` overlaps one of the spans, as GATK's -L traversal takes reads: it starts
/// before a span's end and ends (at least one base after its start: an unmapped read placed at a
/// position counts as one base there) after the span's start.
bool overlaps_intervals(const io::ReadBatch& reads, std::size_t i, const ContigSpans& by_contig);

/**
 * @brief BaseRecalibrator's -L: the records that overlap no span are flagged unmapped, which
 * counting skips; the batch is not meant to be written back.
 */
void restrict_to_intervals(io::ReadBatch& reads, const ContigSpans& by_contig);

/// ApplyBQSR's -L: the records that overlap no span are removed (the others keep their order).
void keep_overlapping(io::ReadBatch& reads, const ContigSpans& by_contig);

}  // namespace gpp::stages::bqsr
