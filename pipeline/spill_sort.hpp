// Sorting inputs larger than memory: sorted runs of at most --max-memory of columns are spilled
// as temporary BAMs beside the output, then merged. Ties between runs go to the earlier run, so
// the result is the same stable order as sorting everything at once (samtools sort's order).
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/common_options.hpp"

namespace gpp::pipeline {

struct SpillSortOptions {
  std::string input;
  std::string output;
  std::string reference;
  bool by_name = false;          ///< samtools sort -n order instead of coordinate order
  std::uint64_t max_memory = 0;  ///< bytes of columns per run
};

/// Sorts `options.input` into `options.output` (indexed when coordinate-sorted) holding at most
/// about max_memory bytes of records at a time.
void spill_sort(const SpillSortOptions& options, const CommonOptions& common);

/// Parses sizes like 768M, 2G, 500000K or plain bytes; throws gpp::Error otherwise.
std::uint64_t parse_memory_size(const std::string& text);

}  // namespace gpp::pipeline
