// Templates of queryname-grouped input: Picard MarkDuplicates with ASSUME_SORT_ORDER=queryname
// treats each run of records sharing a read name as one template, indexed in the file by the
// position of its first record.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "io/reads/read_batch.hpp"

namespace gpp::stages::markdup {

/// A 64-bit hash of a read name: brings the records of one template together after a radix sort
/// (names are still compared: equal hashes only make neighbours).
std::uint64_t name_hash(std::string_view name);

/**
 * @brief For every record (input order), the index of the first record of its run of equal
 * read names.
 * @throws gpp::Error when a name appears in two separate runs (the input is not grouped by name)
 */
std::vector<std::uint32_t> template_indices(const io::ReadBatch& reads);

}  // namespace gpp::stages::markdup
