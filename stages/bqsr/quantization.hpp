// Quality quantization: GATK QualQuantizer (dynamic bins from a histogram) and ApplyBQSR's
// static quantization (--static-quantized-quals, --round-down-quantized).
#pragma once

#include <cstdint>
#include <vector>

namespace gpp::stages::bqsr {

/**
 * @brief GATK QualQuantizer: starting from one interval per quality (errors = floor(count *
 * 10^(-q/10))), repeatedly merges the adjacent pair whose merged interval has the lowest penalty
 * (first pair on ties) until `levels` intervals remain. A merged interval's error rate is
 * (errors + 1) / (observations + 1); its penalty sums |log10(leaf rate) - log10(rate)| * count
 * over its leaves above `min_interesting_qual`. Every quality maps to its interval's quality
 * (a leaf keeps its own; a merged interval rounds -10 log10(rate), bounded to 1..93).
 * @param histogram  observation count per quality 0..93
 * @return quantized quality per quality 0..93
 */
std::vector<int> quantize_qualities(const std::vector<std::int64_t>& histogram, int levels,
                                    int min_interesting_qual = 6);

/**
 * @brief BQSRReadTransformer.constructStaticQuantizedMapping: qualities below 6 map to
 * themselves; the others to the nearest listed quality in probability space (ties and
 * round_down: the lower one), and above the largest to the largest. Identity when `quals` is empty.
 * @return mapping for qualities 0..253
 */
std::vector<int> static_quantization_map(std::vector<int> quals, bool round_down);

}  // namespace gpp::stages::bqsr
