// The reads of one contig as the caller sees them (CallRead), copied out of the read columns:
// bases upper-cased, BI/BD tags decoded (GATK ReadUtils.getBaseInsertionQualities /
// getBaseDeletionQualities: Phred+33 strings), in the columns' order (coordinate order).
#pragma once

#include <cstdint>
#include <span>

#include "io/reads/read_batch.hpp"
#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

/// Read-group index given to reads without an RG tag (they fail WellformedReadFilter's
/// HAS_READ_GROUP check, as in GATK).
inline constexpr std::uint32_t kNoReadGroup = 0xFFFFFFFFu;

/**
 * @brief The records of `reads` (a batch that keeps its sequence columns) at `rows`, as CallReads
 *        written into `out` (one per row, converted in parallel; a caller appending to reads it
 *        holds converts in place instead of moving every read once more).
 * @param recalibrated_quals optional: qualities to use instead of the batch's (ApplyBQSR's output,
 *                           same layout as the qual column)
 */
void call_reads_into(const io::ReadBatch& reads, std::span<const std::size_t> rows,
                     std::span<CallRead> out,
                     std::span<const std::uint8_t> recalibrated_quals = {});

}  // namespace gpp::stages::call
