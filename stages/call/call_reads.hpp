// The reads of one contig as the caller sees them (CallRead), copied out of the read columns:
// bases upper-cased, BI/BD tags decoded (GATK ReadUtils.getBaseInsertionQualities /
// getBaseDeletionQualities: Phred+33 strings), in the order of the rows given (coordinate order).
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
 * @brief The records `rows` of `sources` (batches that keep their sequence columns), as CallReads
 *        written into `out` (one per row, converted in parallel; a caller appending to reads it
 *        holds converts in place instead of moving every read once more); `keep_aux` keeps each
 *        record's aux bytes in CallRead::aux (for a haplotype BAM).
 */
void call_reads_into(std::span<const io::ReadBatch* const> sources,
                     std::span<const io::ReadBatch::RowRef> rows, std::span<CallRead> out,
                     bool keep_aux = false);

}  // namespace gpp::stages::call
