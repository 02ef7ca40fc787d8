// What the PairHMM sees of a read in HaplotypeCaller: PairHMMLikelihoodCalculationEngine.
// modifyReadQualities, capMinimumReadQualities and StandardPairHMMInputScoreImputator.
//
// For each read (the finalised read; with --soft-clip-low-quality-ends its soft clips are first
// hard-clipped):
//   insertion / deletion gap-open = BI / BD, or 45 where the read has none;
//   PCR indel model caps them (stages/call/pcr_indel_model.hpp);
//   base quality capped at the mapping quality (unless --disable-cap-base-qualities-to-map-
//   quality), then < --base-quality-score-threshold (18) becomes 6;
//   insertion / deletion quality < 6 becomes 6;
//   gap continuation = --pair-hmm-gap-continuation-penalty (10) for every base.
//
// @code
//   PcrIndelModel model;                                   // CONSERVATIVE
//   PairHmmReadInputs in = prepare_pairhmm_read(read, model);
//   // in.bases.size() is also the "qualified length" of the poorly-modelled-read rule
// @endcode
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stages/call/call_read.hpp"
#include "stages/call/pcr_indel_model.hpp"

namespace gpp::stages::call {

/// QualityUtils.MIN_USABLE_Q_SCORE.
inline constexpr std::uint8_t kMinUsableQuality = 6;
/// PairHMM.BASE_QUALITY_SCORE_THRESHOLD.
inline constexpr std::uint8_t kDefaultBaseQualityScoreThreshold = 18;
/// LikelihoodEngineArgumentCollection.gcpHMM.
inline constexpr std::uint8_t kDefaultGapContinuationPenalty = 10;

struct PairHmmInputOptions {
  std::uint8_t base_quality_score_threshold = kDefaultBaseQualityScoreThreshold;
  bool cap_base_qualities_to_map_quality = true;  ///< !--disable-cap-base-qualities-to-map-quality
  std::uint8_t gap_continuation_penalty = kDefaultGapContinuationPenalty;
  /// !modifySoftclippedBases: HaplotypeCaller sets it with --soft-clip-low-quality-ends.
  bool hard_clip_soft_clipped_bases = false;
};

/// The five PairHMM columns of one read (kernels::PairHmmReadsView's per-read layout).
struct PairHmmReadInputs {
  std::string bases;
  std::vector<std::uint8_t> base_quals;
  std::vector<std::uint8_t> insertion_quals;
  std::vector<std::uint8_t> deletion_quals;
  std::vector<std::uint8_t> gap_continuation_quals;
};

/**
 * @brief PairHMMLikelihoodCalculationEngine.modifyReadQualities for one read.
 *
 * @param read     the finalised read (not modified)
 * @param pcr_model the PCR indel model (kNone: no capping)
 * @param options  HaplotypeCaller's switches (defaults: HaplotypeCaller's)
 * @return the read's PairHMM inputs; bases are the read's (after the optional soft-clip removal)
 * @throws gpp::Error if base_quality_score_threshold < 6 (GATK's constructor check) or the read's
 *         quality arrays differ in length from its bases
 */
PairHmmReadInputs prepare_pairhmm_read(const CallRead& read, const PcrIndelModel& pcr_model,
                                       const PairHmmInputOptions& options = {});

}  // namespace gpp::stages::call
