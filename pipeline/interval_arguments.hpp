// -L/--intervals (with Parabricks' --interval-file and --interval) and -ip/--interval-padding,
// declared once for every command that takes intervals (`bqsr`, `applybqsr`, `call`, `run`).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "io/genome/intervals.hpp"
#include "io/reads/header.hpp"

namespace gpp::pipeline {

struct IntervalArguments {
  std::vector<std::string> specs;  ///< the -L values: region strings or files
  std::int64_t padding = 0;        ///< -ip: bases added on each side of every interval

  bool empty() const { return specs.empty(); }
  /// The intervals against `header`'s contigs, padded and merged (io::parse_intervals).
  std::vector<io::Interval> parse(const io::Header& header) const {
    return io::parse_intervals(specs, header.contigs(), padding);
  }
};

/// Declares -L/--intervals/--interval-file/--interval (repeatable; `what` says what they restrict)
/// and -ip/--interval-padding on `app`.
void add_interval_options(CLI::App& app, IntervalArguments& arguments, const std::string& what);

}  // namespace gpp::pipeline
