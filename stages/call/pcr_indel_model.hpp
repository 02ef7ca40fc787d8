// HaplotypeCaller's PCR indel error model (--pcr-indel-model, default CONSERVATIVE):
// PairHMMLikelihoodCalculationEngine.applyPCRErrorModel / getErrorModelAdjustedQual, with the
// tandem-repeat scan of ReadLikelihoodCalculationEngine.findTandemRepeatUnits (counting with
// GATKVariantContextUtils.findNumberOfRepetitions, stages/call/tandem_repeat.hpp).
//
// For each read position i but the last, the length L of the tandem repeat around the boundary
// between bases i and i+1 (repeat unit of 1 to 8 bases, L capped at 20) caps the insertion and
// deletion gap-open qualities of base i at
//     max(10, round(40 - exp(L / (f * pi)) + 1)),   f = 3 (CONSERVATIVE), 2 (AGGRESSIVE),
//                                                     1 (HOSTILE); NONE leaves them alone.
//
// @code
//   PcrIndelModel model(PcrIndelModelKind::kConservative);
//   model.cap(L) == 40 for L <= 3, 39 for L = 5, 38 for L = 10, 33 for L = 20
//   tandem_repeat_length("AAAAA", 0) == 5
// @endcode
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpp::stages::call {

/// ReadLikelihoodCalculationEngine.MAX_STR_UNIT_LENGTH and MAX_REPEAT_LENGTH.
inline constexpr int kMaxStrUnitLength = 8;
inline constexpr int kMaxRepeatLength = 20;

enum class PcrIndelModelKind { kNone, kHostile, kAggressive, kConservative };

/// The rate factor GATK's PCRErrorModel carries: 0, 1, 2, 3.
double pcr_rate_factor(PcrIndelModelKind kind);

/// PairHMMLikelihoodCalculationEngine.getErrorModelAdjustedQual: max(10, fastRound(40 -
/// exp(repeat_length / (rate_factor * pi)) + 1)).
std::uint8_t pcr_adjusted_quality(int repeat_length, double rate_factor);

/// ReadLikelihoodCalculationEngine.findTandemRepeatUnits(bases, offset).getRight(): the repeat
/// length (in units, capped at kMaxRepeatLength) at the boundary after `offset`. Requires
/// 0 <= offset < bases.size().
int tandem_repeat_length(std::string_view bases, std::size_t offset);

/// The per-repeat-length caps of one model (GATK's pcrIndelErrorModelCache).
class PcrIndelModel {
 public:
  explicit PcrIndelModel(PcrIndelModelKind kind = PcrIndelModelKind::kConservative);

  PcrIndelModelKind kind() const { return kind_; }
  /// The cap for a repeat of `repeat_length` (0..kMaxRepeatLength) units.
  std::uint8_t cap(int repeat_length) const {
    return caps_[static_cast<std::size_t>(repeat_length)];
  }

  /// applyPCRErrorModel: caps insertion_quals[i] and deletion_quals[i], i < size - 1, at
  /// cap(tandem_repeat_length(bases, i)); does nothing for kNone. The spans must be as long as
  /// `bases`.
  void apply(std::string_view bases, std::span<std::uint8_t> insertion_quals,
             std::span<std::uint8_t> deletion_quals) const;

 private:
  PcrIndelModelKind kind_;
  std::array<std::uint8_t, kMaxRepeatLength + 1> caps_{};
};

}  // namespace gpp::stages::call
