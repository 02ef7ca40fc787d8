// Marking columns: what mark_duplicates reads of each record once the records' EndFeatures are
// made — position, flags, mate's reference, read group, library and name — about 60 bytes a
// record instead of hundreds. An input larger than memory is marked from these (and its
// EndFeatures) alone while its records wait in spilled runs; the result is the one marking every
// record would give, since nothing else of a record decides anything.
#pragma once

#include <cstddef>

#include "io/reads/read_batch.hpp"
#include "stages/markdup/end_features.hpp"

namespace gpp::stages::markdup {

/// Appends the marking columns of every record of `reads` to `columns` (tid, pos, flag,
/// mate_tid, read_group, library and the name; the other columns of `columns` stay empty).
void append_marking_columns(const io::ReadBatch& reads, io::ReadBatch& columns);

/// Gives back the room `columns` and `features` grew into beyond their size (up to half of what
/// they hold, after growing by appends).
void shrink_to_fit(io::ReadBatch& columns, EndFeatures& features);

/// Bytes the marking columns of `columns` and the features `features` hold.
std::size_t marking_bytes(const io::ReadBatch& columns, const EndFeatures& features);

}  // namespace gpp::stages::markdup
