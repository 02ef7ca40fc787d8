// GATK PairHMMLikelihoodCalculationEngine's PCR indel error model (see the header).
#include "stages/call/pcr_indel_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string_view>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {
constexpr int kMinAdjustedQuality = 10;   // PairHMMLikelihoodCalculationEngine.MIN_ADJUSTED_QSCORE
constexpr double kInitialQuality = 40.0;  // PairHMMLikelihoodCalculationEngine.INITIAL_QSCORE

/// MathUtils.fastRound.
int fast_round(double d) { return d > 0.0 ? static_cast<int>(d + 0.5) : static_cast<int>(d - 0.5); }

bool same_bases(const char* a, const char* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// GATKVariantContextUtils.findNumberOfRepetitions (tandem_repeat.hpp) for units of at most
// kMaxStrUnitLength bases, comparing in place: these run for every base of every read.

/// findNumberOfRepetitions(unit, test, false) for a non-empty unit.
int repetitions_before(std::string_view unit, std::string_view test) {
  const std::size_t n = unit.size();
  if (test.size() < n) return 0;
  int repeats = 0;
  for (std::size_t start = test.size() - n;; start -= n) {
    if (!same_bases(test.data() + start, unit.data(), n)) return repeats;
    ++repeats;
    if (start < n) return repeats;
  }
}

/// findNumberOfRepetitions(test's last n bases, test, false): the unit is its own first copy.
int suffix_repetitions(std::string_view test, std::size_t n) {
  const char* unit = test.data() + test.size() - n;
  int repeats = 1;
  for (std::size_t start = test.size() - n; start >= n;) {
    start -= n;
    if (!same_bases(test.data() + start, unit, n)) break;
    ++repeats;
  }
  return repeats;
}

/// findNumberOfRepetitions(test's first n bases, test, true).
int prefix_repetitions(std::string_view test, std::size_t n) {
  int repeats = 1;
  for (std::size_t start = n; start + n <= test.size(); start += n) {
    if (!same_bases(test.data() + start, test.data(), n)) break;
    ++repeats;
  }
  return repeats;
}

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
  const std::int64_t length = static_cast<std::int64_t>(bases.size());
  const std::int64_t at = static_cast<std::int64_t>(offset);
  // Backward: the shortest unit ending at `offset` that repeats (> 1 copy) before it.
  int backward = 0;
  std::string_view backward_unit = bases.substr(offset, 1);
  for (std::int64_t unit = 1; unit <= kMaxStrUnitLength; ++unit) {
    if (at + 1 - unit < 0) break;
    backward = suffix_repetitions(bases.substr(0, offset + 1), static_cast<std::size_t>(unit));
    if (backward > 1) {
      backward_unit = bases.substr(static_cast<std::size_t>(at - unit + 1), unit);
      break;
    }
  }
  int repeat_length = backward;
  if (at < length - 1) {
    // Forward: the shortest unit starting after `offset` that repeats after it.
    const std::string_view after = bases.substr(offset + 1);
    std::string_view forward_unit = after.substr(0, 1);
    int forward = 0;
    for (std::int64_t unit = 1; unit <= kMaxStrUnitLength; ++unit) {
      if (at + unit + 1 > length) break;
      forward = prefix_repetitions(after, static_cast<std::size_t>(unit));
      if (forward > 1) {
        forward_unit = after.substr(0, unit);
        break;
      }
    }
    if (forward_unit == backward_unit) {
      repeat_length = backward + forward;  // in the middle of one repeat
    } else {
      // the backward part may still hold copies of the forward unit (TTCTT(C)CCC: (C)4)
      repeat_length = forward + repetitions_before(forward_unit, bases.substr(0, offset + 1));
    }
  }
  return std::min(repeat_length, kMaxRepeatLength);
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
  for (std::size_t i = 1; i < bases.size(); ++i) {
    const std::uint8_t limit = cap(tandem_repeat_length(bases, i - 1));
    insertion_quals[i - 1] = std::min(insertion_quals[i - 1], limit);
    deletion_quals[i - 1] = std::min(deletion_quals[i - 1], limit);
  }
}

}  // namespace gpp::stages::call
