// Conversion between one HTSlib record (bam1_t) and one row of a ReadBatch (io/ internal).
//
// decode + encode is the identity on everything BAM stores: core fields, bin, QNAME, CIGAR,
// SEQ (including IUPAC codes and '*'), QUAL (including '*'), and the raw aux bytes.
#pragma once

#include <htslib/sam.h>

#include <cstddef>

#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"

namespace gpp::io::detail {

/// Appends `record` to `batch`; read_group/library are resolved through `header`.
void append_record(const bam1_t& record, const Header& header, ReadBatch& batch);

/// Fills `record` (reusing its buffer) from row `i` of `batch`.
void encode_record(const ReadBatch& batch, std::size_t i, bam1_t& record);

}  // namespace gpp::io::detail
