// A direct transcription of GATK's SmithWatermanJavaAligner (full int score and backtrack
// matrices, GATK's loops as written), used only by the tests as the oracle the optimised backends
// must match on random pairs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::test {

struct ReferenceAlignment {
  std::int32_t offset = 0;
  std::string cigar;  ///< text, consolidated
};

/// GATK's align() for non-empty sequences, including the substring shortcut.
ReferenceAlignment reference_smith_waterman(std::string_view ref, std::string_view alt,
                                            const kernels::SwParameters& parameters,
                                            kernels::OverhangStrategy strategy);

}  // namespace gpp::test
