// -L/--intervals (with Parabricks' --interval-file and --interval), -ip/--interval-padding,
// -XL/--exclude-intervals and -ixp/--interval-exclusion-padding, declared once for every command
// that takes intervals (`bqsr`, `applybqsr`, `call`, `run`), with GATK's meaning: the -L
// intervals (every contig when there are none) less the -XL ones, each padded first.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "io/genome/intervals.hpp"
#include "io/reads/header.hpp"

namespace gpp::pipeline {

struct IntervalArguments {
  std::vector<std::string> specs;      ///< the -L values: region strings or files
  std::int64_t padding = 0;            ///< -ip: bases added on each side of every interval
  std::vector<std::string> excluded;   ///< the -XL values
  std::int64_t exclusion_padding = 0;  ///< -ixp: the same for every excluded interval

  /// No -L and no -XL: the whole input.
  bool empty() const { return specs.empty() && excluded.empty(); }
  /// The intervals to work on against `header`'s contigs, merged; none when empty().
  /// @throws gpp::Error as io::parse_intervals, and when -XL leaves nothing
  std::vector<io::Interval> parse(const io::Header& header) const;
  /// Every -L and -XL value, for the check that no output overwrites one.
  std::vector<std::string> files() const;
};

/// Declares -L/--intervals/--interval-file/--interval (repeatable; `what` says what they restrict)
/// and -ip/--interval-padding on `app`.
void add_interval_options(CLI::App& app, IntervalArguments& arguments, const std::string& what);

}  // namespace gpp::pipeline
