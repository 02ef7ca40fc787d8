// BAM record serialisation of ReadBatch rows (SAM spec section 4.2), in parallel (io/ internal).
//
// Records are laid out exactly as in the uncompressed BAM stream (block_size, fixed fields, read
// name, CIGAR, packed SEQ, QUAL, aux), so the BGZF writer can compress them without HTSlib's
// per-record calls.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/reads/batch_rows.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"

namespace gpp::io::detail {

/// End offset of each record of `rows` (io::RowsOf or io::RowsAcross) in the serialised stream
/// (oneTBB-parallel).
template <class Rows>
void bam_record_ends(const Rows& rows, std::vector<std::uint64_t>& ends);

/// Serialises row `i` of `batch` at `dst` (exactly its size in the stream).
void encode_bam_record(const ReadBatch& batch, std::size_t i, std::uint8_t* dst);

/// Rows in an order other than the columns' are scattered: a row is about 17 cache misses, one
/// after another. Serialising `rows` at k, prefetch_rows(rows, k) asks for what rows a few places
/// ahead will read (the fixed fields and offsets of the farther ones, the bytes of the nearer
/// ones, whose offsets are then in cache).
template <class Rows>
void prefetch_rows(const Rows& rows, std::size_t k);

/// The BAM header bytes: magic, text, and the reference dictionary.
std::vector<std::uint8_t> encode_bam_header(const Header& header);

}  // namespace gpp::io::detail
