// Query-name order exactly as `samtools sort -n` (samtools 1.16): names compared "naturally"
// (runs of digits as numbers, strnum_cmp), then by the first/second-of-pair flag bits (0xC0);
// records equal on both keep their input order.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "io/reads/read_batch.hpp"

namespace gpp::stages::sort {

/// samtools' strnum_cmp: < 0, 0 or > 0.
int natural_name_compare(std::string_view a, std::string_view b);

/// samtools' query-name comparison of record i of `a` with record j of `b`: names naturally,
/// then the first/second-of-pair bits; < 0, 0 or > 0.
int queryname_compare(const io::ReadBatch& a, std::size_t i, const io::ReadBatch& b, std::size_t j);

/// The stable permutation that puts `reads` in samtools query-name order (oneTBB).
std::vector<std::uint32_t> queryname_order(const io::ReadBatch& reads);

}  // namespace gpp::stages::sort
