// Picard MarkDuplicates' duplicate score: which read of a duplicate set is kept.
#pragma once

#include <cstdint>
#include <span>

namespace gpp::stages::markdup {

/// htsjdk's DuplicateScoringStrategy SUM_OF_BASE_QUALITIES as Picard uses it: the qualities of at
/// least 15 added up (Java bytes: values of 128 and more are negative and left out), capped at
/// 16383, less 16384 for a QC-failed read; 0 for QUAL '*' (0xFF first).
std::int16_t duplicate_score(std::span<const std::uint8_t> qual, bool qc_fail);

}  // namespace gpp::stages::markdup
