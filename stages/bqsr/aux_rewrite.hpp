// ApplyBQSR's aux-field rewrite (BQSRReadTransformer): BI and BD tags removed, OQ added with the
// original qualities when asked (an existing OQ is never replaced). Parallel over records.
#pragma once

#include <cstdint>

#include "io/reads/read_batch.hpp"

namespace gpp::stages::bqsr {

/**
 * @brief The aux columns of `reads` after ApplyBQSR: every record's fields in order without BI
 * and BD; with `emit_original_quals`, an OQ:Z field of the record's qualities (Phred + 33)
 * appended to records that have qualities and no OQ. A malformed tail is kept as it is.
 */
void rewrite_aux_fields(const io::ReadBatch& reads, bool emit_original_quals,
                        io::Column<std::uint8_t>& aux, io::Column<std::uint64_t>& aux_offset);

}  // namespace gpp::stages::bqsr
