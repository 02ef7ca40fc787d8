// BAM record parsing from an uncompressed BAM stream into ReadBatch columns, in parallel
// (io/ internal). The inverse of bam_encoding: together they round-trip every record exactly,
// including the CG-tag form of CIGARs over 65535 operations (converted as HTSlib does on read).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "io/reads/record_visitor.hpp"

namespace gpp::io::detail {

/// Finds up to `max_records` (0 = no limit) complete records in data[0, size), appending their
/// start offsets to `starts`; returns the offset just past the last one. Throws gpp::Error naming
/// `path` on a record whose length field is impossible.
std::size_t find_bam_records(const std::uint8_t* data, std::size_t size, std::size_t max_records,
                             std::vector<std::uint64_t>& starts, const std::string& path);

/// Appends the records at `starts` to `batch` (oneTBB-parallel), resolving read groups through
/// `header`. With `keep_records`, the records are kept where they are (ReadBatch::bam_record:
/// `data` must outlive the batch) and the seq, qual and aux columns are not filled. Throws
/// gpp::Error naming `path` on a malformed record. A `visitor` visits the records as they are
/// decoded.
void decode_bam_records(const std::uint8_t* data, std::span<const std::uint64_t> starts,
                        const Header& header, ReadBatch& batch, const std::string& path,
                        bool keep_records = false, RecordVisitor* visitor = nullptr);

}  // namespace gpp::io::detail
