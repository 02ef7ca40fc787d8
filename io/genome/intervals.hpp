// Intervals for -L: GATK-style region strings, BED, GATK .interval_list and .list/.intervals files.
//
//   "chr20"                 the whole contig
//   "chr20:10000"           one base (1-based)
//   "chr20:10,000-10,100"   1-based, inclusive (commas allowed)
//   regions.bed             0-based half-open BED lines (header/track/browser lines skipped)
//   x.interval_list         SAM-style header, then "contig start end strand name" (1-based,
//   inclusive) x.list / x.intervals    one region string per line
//
// The result is 0-based half-open, each interval widened by the padding on both sides within
// its contig (GATK's -ip/--interval-padding), sorted in dictionary order and merged where
// intervals overlap or abut (GATK's default interval merging rule, ALL).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/reads/header.hpp"

namespace gpp::io {

struct Interval {
  std::string contig;
  std::int64_t start = 0;  ///< 0-based, inclusive
  std::int64_t end = 0;    ///< 0-based, exclusive
  bool operator==(const Interval&) const = default;
};

/**
 * @brief Parses and merges -L values against a sequence dictionary.
 * @param specs       the -L values, each a region string or a file
 * @param dictionary  contigs (e.g. Header::contigs()); names and bounds are checked against it
 * @param padding     bases added on each side of every interval (GATK -ip), at least 0
 * @param option      the option the values came with, for the errors ("-L", "-XL")
 * @throws gpp::Error naming the value or file and line that is malformed or names an unknown
 *         contig; naming a missing interval file, or one without intervals (GATK refuses it: an
 *         empty list would mean the whole genome)
 */
std::vector<Interval> parse_intervals(const std::vector<std::string>& specs,
                                      const std::vector<Contig>& dictionary,
                                      std::int64_t padding = 0, const std::string& option = "-L");

/// Every contig of `dictionary` whole, in its order (what -XL alone is taken from).
std::vector<Interval> whole_contigs(const std::vector<Contig>& dictionary);

/// The parts of `included` outside every interval of `excluded` (GATK's -XL); both as
/// parse_intervals gives them (sorted in one dictionary's order, merged).
std::vector<Interval> subtract_intervals(const std::vector<Interval>& included,
                                         const std::vector<Interval>& excluded);

}  // namespace gpp::io
