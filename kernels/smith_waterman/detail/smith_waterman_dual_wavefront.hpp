// The per-lane work of the GPU's 16-bit fill kernel: two pairs of one shape (same ref length,
// same columns per lane and passes) share a warp, pair 0 in the low 16 bits of every register and
// pair 1 in the high 16 bits, so that each DPX instruction computes one cell of each. Like
// smith_waterman_wavefront.hpp it is free of CUDA-only code, so that the tests run it on the host
// in a warp simulation.
//
// Values are held biased by kDualBias (smith_waterman_core.hpp), in 0..32767 for every pair that
// gpu_dual_values_fit admits. That makes plain 32-bit adds exact on both halves at once (a field
// never leaves 0..65535, so nothing carries across), and lets one 32-bit subtraction plus 2^15
// give the signs of both halves' differences: the low field, x - y + 2^15, stays in 1..65535 (no
// borrow from the high field), its bit 15 set for x >= y; the high field is x - y exactly, its bit
// 31 set for x < y.
#pragma once

#include <cstdint>

#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_wavefront.hpp"

namespace gpp::kernels::sw {

/// A word of two 16-bit fields.
GPP_HD_INLINE std::uint32_t pack_halves(std::int32_t low, std::int32_t high) {
  return static_cast<std::uint32_t>(high) << 16 | (static_cast<std::uint32_t>(low) & 0xFFFFu);
}
GPP_HD_INLINE std::uint32_t both_halves(std::int32_t value) { return pack_halves(value, value); }
/// The value held (biased) in half `half` (0 low, 1 high) of a word.
GPP_HD_INLINE std::int32_t unbiased_half(std::uint32_t word, std::int32_t half) {
  return static_cast<std::int32_t>((word >> (16 * half)) & 0xFFFFu) - kDualBias;
}

/// max(a + b, c) in each signed 16-bit half; one DPX instruction on Hopper.
GPP_HD_INLINE std::uint32_t add_max_halves(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(__CUDA_ARCH__)
  return __viaddmax_s16x2(a, b, c);
#else
  std::uint32_t out = 0;
  for (int half = 0; half < 2; ++half) {
    const int shift = 16 * half;
    const auto sum = static_cast<std::int16_t>(static_cast<std::int16_t>(a >> shift) +
                                               static_cast<std::int16_t>(b >> shift));
    const auto other = static_cast<std::int16_t>(c >> shift);
    out |= (static_cast<std::uint32_t>(static_cast<std::uint16_t>(sum > other ? sum : other)))
           << shift;
  }
  return out;
#endif
}

/// max(a, b, c) in each signed 16-bit half; one DPX instruction on Hopper.
GPP_HD_INLINE std::uint32_t max3_halves(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(__CUDA_ARCH__)
  return __vimax3_s16x2(a, b, c);
#else
  std::uint32_t out = 0;
  for (int half = 0; half < 2; ++half) {
    const int shift = 16 * half;
    const auto x = static_cast<std::int16_t>(a >> shift), y = static_cast<std::int16_t>(b >> shift),
               z = static_cast<std::int16_t>(c >> shift);
    const std::int16_t m = x > y ? (x > z ? x : z) : (y > z ? y : z);
    out |= static_cast<std::uint32_t>(static_cast<std::uint16_t>(m)) << shift;
  }
  return out;
#endif
}

/// min(a, b) in each unsigned 16-bit half.
GPP_HD_INLINE std::uint32_t min_halves_unsigned(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint32_t out;
  asm("min.u16x2 %0, %1, %2;" : "=r"(out) : "r"(a), "r"(b));
  return out;
#else
  const std::uint32_t low = (a & 0xFFFFu) < (b & 0xFFFFu) ? a & 0xFFFFu : b & 0xFFFFu;
  const std::uint32_t high = (a >> 16) < (b >> 16) ? a >> 16 : b >> 16;
  return high << 16 | low;
#endif
}

/// The bytes of x and y that hold the halves' sign bits (bits 15 and 31): x's in bytes 0 and 1,
/// y's in bytes 2 and 3. One PRMT.
GPP_HD_INLINE std::uint32_t sign_bytes(std::uint32_t x, std::uint32_t y) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, y, 0x7531);
#else
  return (x >> 8 & 0xFFu) | (x >> 24) << 8 | (y >> 8 & 0xFFu) << 16 | (y >> 24) << 24;
#endif
}

/// Shifts each byte of a traceback word right by one and puts the sign bytes' top bits in.
GPP_HD_INLINE std::uint32_t append_sign_bytes(std::uint32_t word, std::uint32_t signs) {
  return word >> 1 | (signs & 0x80808080u);
}

/// WavefrontParameters as the 16-bit lanes use them.
struct DualParameters {
  std::uint32_t open;         ///< gap open in both halves (for add_max_halves)
  std::uint32_t extend;       ///< gap extend * 65537: one 32-bit add extends both halves
  std::uint32_t match;        ///< match * 65537
  std::uint32_t score_drop;   ///< match - mismatch in both halves
  std::uint32_t opened_sign;  ///< 2^15 - open * 65537: x - y + this is x - (y + open), signed
  std::uint32_t low_init;     ///< GATK's lowInitValue as held here: extended, it is field 0
  std::int32_t gap_open, gap_extend;
  OverhangStrategy strategy;
};

inline DualParameters dual_parameters(const WavefrontParameters& p) {
  DualParameters d;
  d.open = both_halves(p.open);
  d.extend = static_cast<std::uint32_t>(p.extend) * 65537u;
  d.match = static_cast<std::uint32_t>(p.match) * 65537u;
  d.score_drop = both_halves(p.match - p.mismatch);
  d.opened_sign = 0x8000u - static_cast<std::uint32_t>(p.open) * 65537u;
  d.low_init = both_halves(-p.extend);
  d.gap_open = p.open;
  d.gap_extend = p.extend;
  d.strategy = p.strategy;
  return d;
}

/// Border cell k (row 0 column k, or column 0 row k) of both pairs, biased.
GPP_HD_INLINE std::uint32_t dual_border(std::int32_t k, const DualParameters& p) {
  return both_halves(border_score(k, gap_scored_border(p.strategy), p.gap_open, p.gap_extend) +
                     kDualBias);
}

/// A base of each pair as the lanes compare them: the XOR of two is 0 or at least 256.
GPP_HD_INLINE std::uint32_t dual_bases(std::uint32_t low, std::uint32_t high) {
  return low << 8 | high << 24;
}

/// A lane's registers in one pass of the 16-bit kernel: R columns of each of the two pairs.
template <int R>
struct DualLaneColumns {
  static constexpr int kPairs = 2;
  std::uint32_t h[R];              ///< H(i, j) of the last row done, both pairs
  std::uint32_t best_deletion[R];  ///< running vertical gap of each column
  std::uint32_t alt_base[R];       ///< dual_bases of each column's alt bytes (0 past the end)
  std::uint32_t column_mask[R];    ///< 0xFFFF in the half whose last column this is
  std::uint32_t out_h, out_insertion, out_base;  ///< sent right, as in LaneColumns
  std::uint32_t previous_in_h;                   ///< H(i-1, j0-1)
};

/// A step's traceback bits of a lane (layout in smith_waterman_core.hpp); stored as one 64-bit
/// word.
struct alignas(8) DualStepWord {
  std::uint32_t gaps_opened;  ///< insertion opened (bytes 0, 1), deletion opened (bytes 2, 3)
  std::uint32_t choices;      ///< not diagonal (bytes 0, 1), deletion over insertion (2, 3)
};

/// Sets a lane up for a pass, as lane_begin_pass. Columns past a pair's alt length hold base 0:
/// any base will do, since no column to their left and no end cell depends on them.
template <int R>
GPP_HD_INLINE void dual_lane_begin_pass(DualLaneColumns<R>& lane, const std::uint8_t* const alt[2],
                                        const std::int32_t m[2], std::int32_t j0,
                                        const std::int32_t column_r[2], const DualParameters& p) {
  GPP_SW_UNROLL
  for (int r = 0; r < R; ++r) {
    const std::int32_t j = j0 + r;
    lane.alt_base[r] = dual_bases(j <= m[0] ? alt[0][j - 1] : 0u, j <= m[1] ? alt[1][j - 1] : 0u);
    lane.h[r] = dual_border(j, p);
    lane.best_deletion[r] = p.low_init;
    lane.column_mask[r] = (r == column_r[0] ? 0xFFFFu : 0u) | (r == column_r[1] ? 0xFFFF0000u : 0u);
  }
  lane.out_h = lane.h[R - 1];
  lane.out_insertion = p.low_init;
  lane.out_base = 0;
  lane.previous_in_h = dual_border(j0 - 1, p);
}

/**
 * One step of one lane, as lane_step, for both pairs at once: the same maxima (on biased 16-bit
 * fields), the same tie rules as signs of the same differences. The score is match minus
 * min(ref ^ alt, match - mismatch) per half, 0 or match - mismatch; the diagonal sum is then one
 * 32-bit add.
 */
template <bool kChecked, int R>
GPP_HD_INLINE DualStepWord dual_lane_step(DualLaneColumns<R>& lane, std::int32_t i, std::int32_t n,
                                          std::uint32_t in_h, std::uint32_t in_insertion,
                                          std::uint32_t in_base, const DualParameters& p) {
  DualStepWord word{0, 0};
  if (!kChecked || (i >= 1 && i <= n)) {
    std::uint32_t diagonal_h = lane.previous_in_h, left = in_h, insertion = in_insertion;
    GPP_SW_UNROLL
    for (int r = 0; r < R; ++r) {
      const std::uint32_t up = lane.h[r];
      const std::uint32_t drop = min_halves_unsigned(in_base ^ lane.alt_base[r], p.score_drop);
      const std::uint32_t diagonal = diagonal_h + p.match - drop;
      const std::uint32_t deletion_extended = lane.best_deletion[r] + p.extend;
      const std::uint32_t deletion = add_max_halves(up, p.open, deletion_extended);
      const std::uint32_t insertion_extended = insertion + p.extend;
      insertion = add_max_halves(left, p.open, insertion_extended);
      const std::uint32_t value = max3_halves(diagonal, deletion, insertion);
      word.gaps_opened =
          append_sign_bytes(word.gaps_opened, sign_bytes(insertion_extended - left + p.opened_sign,
                                                         deletion_extended - up + p.opened_sign));
      word.choices = append_sign_bytes(
          word.choices, sign_bytes(diagonal - value + 0x8000u, insertion - deletion + 0x8000u));
      lane.best_deletion[r] = deletion;
      diagonal_h = up;
      lane.h[r] = value;
      left = value;
    }
    lane.out_h = left;
    lane.out_insertion = insertion;
    lane.out_base = in_base;
  }
  lane.previous_in_h = in_h;
  return word;
}

/// GATK's last-column scan for both pairs: the largest (value, row) per half, as a 32-bit key
/// (value biased >= 0 above the row), so that a later row wins a tie as GATK's >= gives it.
struct DualColumnTracker {
  std::uint32_t key[2] = {0, 0};
};

template <int R>
GPP_HD_INLINE void dual_lane_track_column(const DualLaneColumns<R>& lane, std::int32_t i,
                                          DualColumnTracker& tracker) {
  std::uint32_t value = 0;
  GPP_SW_UNROLL
  for (int r = 0; r < R; ++r) value |= lane.h[r] & lane.column_mask[r];
  const auto row = static_cast<std::uint32_t>(i);
  const std::uint32_t low = value << 16 | row, high = (value & 0xFFFF0000u) | row;
  tracker.key[0] = low > tracker.key[0] ? low : tracker.key[0];
  tracker.key[1] = high > tracker.key[1] ? high : tracker.key[1];
}

GPP_HD_INLINE std::int32_t tracked_score(std::uint32_t key) {
  return static_cast<std::int32_t>(key >> 16) - kDualBias;
}
GPP_HD_INLINE std::int32_t tracked_row(std::uint32_t key) {
  return static_cast<std::int32_t>(key & 0xFFFFu);
}

/// lane_bottom_row for each pair.
template <int R>
GPP_HD_INLINE void dual_lane_bottom_row(const DualLaneColumns<R>& lane, std::int32_t j0,
                                        std::int32_t n, const std::int32_t m[2],
                                        std::int32_t bottom_score[2], std::int32_t bottom_j[2],
                                        std::int32_t no_column) {
  GPP_SW_UNROLL
  for (int half = 0; half < 2; ++half) {
    GPP_SW_UNROLL
    for (int r = 0; r < R; ++r) {
      const std::int32_t j = j0 + r, score = unbiased_half(lane.h[r], half);
      if (j <= m[half] && (bottom_j[half] == no_column ||
                           bottom_cell_wins(score, j, bottom_score[half], bottom_j[half], n))) {
        bottom_score[half] = score;
        bottom_j[half] = j;
      }
    }
  }
}

}  // namespace gpp::kernels::sw
