// Sorting inputs larger than --max-memory: sorted runs of about half the budget are spilled to
// --tmp-dir (pipeline/spilled_runs.hpp), then merged into the output. The result is the same
// stable order as sorting everything at once (samtools sort's order).
#pragma once

#include <string>

#include "pipeline/common_options.hpp"

namespace gpp::pipeline {

struct SpillSortOptions {
  std::string input;
  std::string output;
  std::string reference;
  bool by_name = false;  ///< samtools sort -n order instead of coordinate order
};

/// Sorts `options.input` into `options.output` (indexed when coordinate-sorted) holding about
/// memory_budget(common) at most; when the input fits, it is written without spilling.
void spill_sort(const SpillSortOptions& options, const CommonOptions& common);

}  // namespace gpp::pipeline
