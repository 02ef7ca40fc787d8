// An assembly region as HaplotypeCaller cuts the genome into them (GATK engine/AssemblyRegion): an
// active span where variants are called, padded on both sides (--assembly-region-padding 100) for
// assembly, the padding clipped to the contig (IntervalUtils.trimIntervalToContig). Also the
// region-shaping arguments of AssemblyRegionArgumentCollection with HaplotypeCaller's defaults.
//
// Coordinates are 0-based and half-open ([start, end)), like CallRead; GATK's 1-based closed
// span [S, E] is start = S - 1, end = E.
//
// @code
//   AssemblyRegion r = make_assembly_region(0, 150, 250, true, 100, 200);
//   // r.padded_start == 50, r.padded_end == 200 (clipped to the contig)
// @endcode
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

/// Region arguments (GATK AssemblyRegionArgumentCollection defaults).
struct AssemblyRegionOptions {
  int min_region_size = 50;                ///< --min-assembly-region-size
  int max_region_size = 300;               ///< --max-assembly-region-size
  int padding = 100;                       ///< --assembly-region-padding
  double active_prob_threshold = 0.002;    ///< --active-probability-threshold
  int max_prob_propagation_distance = 50;  ///< --max-prob-propagation-distance

  /// GATK AssemblyRegionArgumentCollection.validate. @throws gpp::Error on a bad value
  void validate() const {
    if (min_region_size <= 0 || max_region_size <= 0) {
      throw Error("min/max assembly region size must be > 0");
    }
    if (min_region_size > max_region_size) {
      throw Error("min assembly region size must be <= max assembly region size");
    }
    if (padding < 0) throw Error("assembly region padding must be >= 0");
    if (max_prob_propagation_distance < 0) {
      throw Error("max probability propagation distance must be >= 0");
    }
  }
};

struct AssemblyRegion {
  std::int32_t contig = -1;       ///< reference index
  std::int64_t start = 0;         ///< active span, 0-based, inclusive
  std::int64_t end = 0;           ///< active span, exclusive
  std::int64_t padded_start = 0;  ///< max(0, start - padding)
  std::int64_t padded_end = 0;    ///< min(contig length, end + padding)
  bool is_active = false;         ///< every state of the span above the threshold (else none is)

  std::int64_t size() const { return end - start; }
  bool operator==(const AssemblyRegion&) const = default;
};

/**
 * @brief GATK new AssemblyRegion(activeSpan, isActive, padding, header).
 * @throws gpp::Error if the span is empty or outside the contig, or padding < 0
 */
inline AssemblyRegion make_assembly_region(std::int32_t contig, std::int64_t start,
                                           std::int64_t end, bool is_active, int padding,
                                           std::int64_t contig_length) {
  if (end <= start) {
    throw Error("assembly region [" + std::to_string(start) + ", " + std::to_string(end) +
                ") is empty");
  }
  if (start < 0 || end > contig_length) {
    throw Error("assembly region [" + std::to_string(start) + ", " + std::to_string(end) +
                ") lies outside the contig of length " + std::to_string(contig_length));
  }
  if (padding < 0) throw Error("assembly region padding must be >= 0");
  AssemblyRegion region;
  region.contig = contig;
  region.start = start;
  region.end = end;
  region.padded_start = std::max<std::int64_t>(0, start - padding);
  region.padded_end = std::min<std::int64_t>(contig_length, end + padding);
  region.is_active = is_active;
  return region;
}

}  // namespace gpp::stages::call
