// GATK PairHMMLikelihoodCalculationEngine's PCR indel error model (see the header).
#include "stages/call/pcr_indel_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {
constexpr int kMinAdjustedQuality = 10;   // PairHMMLikelihoodCalculationEngine.MIN_ADJUSTED_QSCORE
constexpr double kInitialQuality = 40.0;  // PairHMMLikelihoodCalculationEngine.INITIAL_QSCORE

/// MathUtils.fastRound.
int fast_round(double d) { return d > 0.0 ? static_cast<int>(d + 0.5) : static_cast<int>(d - 0.5); }

/// The repetition counts findTandemRepeatUnits asks for at every offset of one read, from run
/// lengths: with match(u, j) = (bases[j] == bases[j + u]), k copies of a unit of u bases follow
/// one another exactly where match(u, .) holds on (k - 1) * u consecutive positions. So
/// GATKVariantContextUtils.findNumberOfRepetitions over the read's own bases is a table lookup.
class RepeatRuns {
 public:
  explicit RepeatRuns(std::string_view bases)
      : bases_(bases), n_(bases.size()), runs_(2 * kMaxStrUnitLength * bases.size()) {
    for (std::size_t u = 1; u <= kMaxStrUnitLength; ++u) {
      int* ending = ending_row(u);
      int* starting = starting_row(u);
      for (std::size_t j = 0; j < n_; ++j) {
        ending[j] = match(u, j) ? (j > 0 ? ending[j - 1] : 0) + 1 : 0;
      }
      for (std::size_t j = n_; j-- > 0;) {
        starting[j] = match(u, j) ? (j + 1 < n_ ? starting[j + 1] : 0) + 1 : 0;
      }
    }
  }

  /// findNumberOfRepetitions(bases[at-u+1..at], bases[0..at], false): the unit is its own first
  /// copy, more copies lie before it.
  int backward(std::size_t u, std::size_t at) const {
    return 1 + (at >= u ? ending_row(u)[at - u] / static_cast<int>(u) : 0);
  }
  /// findNumberOfRepetitions(bases[from..from+u), bases[from..], true).
  int forward(std::size_t u, std::size_t from) const {
    return 1 + starting_row(u)[from] / static_cast<int>(u);
  }
  /// findNumberOfRepetitions(bases[at+1..at+u], bases[0..at], false) (at + u < size).
  int before(std::size_t u, std::size_t at) const {
    return ending_row(u)[at] / static_cast<int>(u);
  }

  /// findTandemRepeatUnits(bases, at).getRight(), capped at kMaxRepeatLength.
  int tandem_repeat_length(std::size_t at) const {
    const auto length = static_cast<std::int64_t>(n_);
    const auto offset = static_cast<std::int64_t>(at);
    // Backward: the shortest unit ending at `at` that repeats (> 1 copy) before it.
    int backward_count = 0;
    std::size_t backward_unit = 1;  // the unit's length; it ends at `at`
    for (std::int64_t unit = 1; unit <= kMaxStrUnitLength; ++unit) {
      if (offset + 1 - unit < 0) break;
      backward_count = backward(static_cast<std::size_t>(unit), at);
      if (backward_count > 1) {
        backward_unit = static_cast<std::size_t>(unit);
        break;
      }
    }
    int repeat_length = backward_count;
    if (offset < length - 1) {
      // Forward: the shortest unit starting after `at` that repeats after it.
      int forward_count = 0;
      std::size_t forward_unit = 1;  // starts at at + 1
      for (std::int64_t unit = 1; unit <= kMaxStrUnitLength; ++unit) {
        if (offset + unit + 1 > length) break;
        forward_count = forward(static_cast<std::size_t>(unit), at + 1);
        if (forward_count > 1) {
          forward_unit = static_cast<std::size_t>(unit);
          break;
        }
      }
      const bool same_unit =
          forward_unit == backward_unit &&
          bases_.substr(at + 1, forward_unit) == bases_.substr(at + 1 - backward_unit, backward_unit);
      // in the middle of one repeat; else the backward part may still hold copies of the forward
      // unit (TTCTT(C)CCC: (C)4)
      repeat_length = same_unit ? backward_count + forward_count
                                : forward_count + before(forward_unit, at);
    }
    return std::min(repeat_length, kMaxRepeatLength);
  }

 private:
  bool match(std::size_t u, std::size_t j) const { return j + u < n_ && bases_[j] == bases_[j + u]; }
  int* ending_row(std::size_t u) { return runs_.data() + (2 * (u - 1)) * n_; }
  int* starting_row(std::size_t u) { return runs_.data() + (2 * (u - 1) + 1) * n_; }
  const int* ending_row(std::size_t u) const { return runs_.data() + (2 * (u - 1)) * n_; }
  const int* starting_row(std::size_t u) const { return runs_.data() + (2 * (u - 1) + 1) * n_; }

  std::string_view bases_;
  std::size_t n_;
  std::vector<int> runs_;  ///< per unit length: runs ending at j, then runs starting at j
};

}  // namespace

double pcr_rate_factor(PcrIndelModelKind kind) {
  switch (kind) {
    case PcrIndelModelKind::kNone:
      return 0.0;
    case PcrIndelModelKind::kHostile:
      return 1.0;
    case PcrIndelModelKind::kAggressive:
      return 2.0;
    case PcrIndelModelKind::kConservative:
      return 3.0;
  }
  return 0.0;
}

std::uint8_t pcr_adjusted_quality(int repeat_length, double rate_factor) {
  const double quality =
      kInitialQuality - std::exp(repeat_length / (rate_factor * std::numbers::pi)) + 1.0;
  return static_cast<std::uint8_t>(std::max(kMinAdjustedQuality, fast_round(quality)));
}

int tandem_repeat_length(std::string_view bases, std::size_t offset) {
  return RepeatRuns(bases).tandem_repeat_length(offset);
}

PcrIndelModel::PcrIndelModel(PcrIndelModelKind kind) : kind_(kind) {
  if (kind == PcrIndelModelKind::kNone) return;
  const double rate_factor = pcr_rate_factor(kind);
  for (int length = 0; length <= kMaxRepeatLength; ++length) {
    caps_[static_cast<std::size_t>(length)] = pcr_adjusted_quality(length, rate_factor);
  }
}

void PcrIndelModel::apply(std::string_view bases, std::span<std::uint8_t> insertion_quals,
                          std::span<std::uint8_t> deletion_quals) const {
  if (kind_ == PcrIndelModelKind::kNone) return;
  if (insertion_quals.size() < bases.size() || deletion_quals.size() < bases.size()) {
    throw Error("PCR indel model: fewer insertion/deletion qualities than bases");
  }
  const RepeatRuns runs(bases);
  for (std::size_t i = 1; i < bases.size(); ++i) {
    const std::uint8_t limit = cap(runs.tandem_repeat_length(i - 1));
    insertion_quals[i - 1] = std::min(insertion_quals[i - 1], limit);
    deletion_quals[i - 1] = std::min(deletion_quals[i - 1], limit);
  }
}

}  // namespace gpp::stages::call
