// Optical duplicates within one duplicate set, as Picard's OpticalDuplicateFinder counts them:
// reads are linked when they share read group and tile and lie within the pixel distance in
// both x and y (inclusive); each cluster of linked reads holds one original and (size - 1)
// optical duplicates. Which member Picard calls the original varies with its hash-map order, but
// the count does not, and the count is all the metrics use.
#pragma once

#include <cstdint>
#include <span>

#include "stages/markdup/read_ends.hpp"

namespace gpp::stages::markdup {

/// Picard skips sets larger than this (MAX_OPTICAL_DUPLICATE_SET_SIZE).
inline constexpr std::size_t kMaxOpticalDuplicateSetSize = 300'000;

/**
 * @brief Number of optical duplicates among the pair ends `set` (one duplicate set).
 * As Picard: when the set mixes FR and RF first-of-pair orientations, each is counted alone.
 */
std::int64_t count_optical_duplicates(std::span<const ReadEnd> set, int pixel_distance);

}  // namespace gpp::stages::markdup
