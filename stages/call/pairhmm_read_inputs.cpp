// GATK PairHMMLikelihoodCalculationEngine.modifyReadQualities / capMinimumReadQualities (see the
// header).
#include "stages/call/pairhmm_read_inputs.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "core/error.hpp"
#include "stages/call/read_clipping.hpp"

namespace gpp::stages::call {

namespace {

/// setToFixedValueIfTooLow, with Java's signed byte comparison.
std::uint8_t raise_if_below(std::uint8_t value, std::uint8_t minimum, std::uint8_t fixed) {
  return static_cast<std::int8_t>(value) < static_cast<std::int8_t>(minimum) ? fixed : value;
}

std::vector<std::uint8_t> indel_quals_or_default(const std::vector<std::uint8_t>& quals,
                                                 std::size_t length, const CallRead& read) {
  if (quals.empty()) return std::vector<std::uint8_t>(length, kDefaultIndelQuality);
  if (quals.size() != length) {
    throw ReadError("read " + read.name + ": BI/BD length differs from the base qualities");
  }
  return quals;
}

}  // namespace

PairHmmReadInputs prepare_pairhmm_read(const CallRead& read, const PcrIndelModel& pcr_model,
                                       const PairHmmInputOptions& options) {
  if (options.base_quality_score_threshold < kMinUsableQuality) {
    throw Error("base quality score threshold must be at least " +
                std::to_string(kMinUsableQuality));
  }
  const CallRead clipped =
      options.hard_clip_soft_clipped_bases ? hard_clip_soft_clipped_bases(read) : read;
  if (clipped.quals.size() != clipped.bases.size()) {
    throw ReadError("read " + clipped.name + ": base qualities and bases differ in length");
  }
  const std::size_t length = clipped.bases.size();

  PairHmmReadInputs inputs;
  inputs.bases = clipped.bases;
  inputs.base_quals = clipped.quals;
  inputs.insertion_quals = indel_quals_or_default(clipped.insertion_quals, length, clipped);
  inputs.deletion_quals = indel_quals_or_default(clipped.deletion_quals, length, clipped);

  pcr_model.apply(inputs.bases, inputs.insertion_quals, inputs.deletion_quals);

  const int mapping_quality = clipped.mapping_quality;
  for (std::size_t i = 0; i < length; ++i) {
    std::uint8_t& base_qual = inputs.base_quals[i];
    if (options.cap_base_qualities_to_map_quality) {
      base_qual = static_cast<std::uint8_t>(std::min<int>(base_qual, mapping_quality));
    }
    base_qual = raise_if_below(base_qual, options.base_quality_score_threshold, kMinUsableQuality);
    inputs.insertion_quals[i] =
        raise_if_below(inputs.insertion_quals[i], kMinUsableQuality, kMinUsableQuality);
    inputs.deletion_quals[i] =
        raise_if_below(inputs.deletion_quals[i], kMinUsableQuality, kMinUsableQuality);
  }
  inputs.gap_continuation_quals.assign(length, options.gap_continuation_penalty);
  return inputs;
}

}  // namespace gpp::stages::call
