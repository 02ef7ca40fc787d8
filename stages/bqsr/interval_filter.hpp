// BaseRecalibrator's -L read traversal: only reads that overlap one of the intervals are counted.
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

/**
 * @brief Keeps only the records that overlap one of the spans, as GATK's -L traversal does: a
 * record overlaps when it starts before a span's end and ends (at least one base after its start)
 * after the span's start. Records that do not are flagged unmapped, which counting skips; the
 * batch is not meant to be written back.
 */
void restrict_to_intervals(io::ReadBatch& reads, const ContigSpans& by_contig);

}  // namespace gpp::stages::bqsr
