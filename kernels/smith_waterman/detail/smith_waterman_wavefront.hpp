// The per-lane work of the GPU fill kernel (kernels/smith_waterman_kernels.cuh), kept free of
// CUDA intrinsics so that the tests can run the same code on the host in a warp simulation:
// the kernel supplies what the shuffles deliver, these functions do the rest.
#pragma once

#include <cstdint>

#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"

namespace gpp::kernels::sw {

struct WavefrontParameters {
  std::int32_t match, mismatch, open, extend;
  OverhangStrategy strategy;
};

/// A lane's registers in one pass: R columns starting at (1-based) j0.
template <int R>
struct LaneColumns {
  static constexpr int kPairs = 1;
  std::int32_t h[R];              ///< H(i, j) of the last row done (row 0 before the first)
  std::int32_t best_deletion[R];  ///< running vertical gap of each column
  std::int32_t alt_base[R];       ///< alt byte of each column; 256 past the end (matches nothing)
  std::int32_t column_mask[R];    ///< all ones on the column GATK's last-column scan follows
  std::int32_t out_h;             ///< H of this lane's last column in its last row: sent right
  std::int32_t out_insertion;     ///< running horizontal gap after its last column: sent right
  std::int32_t out_base;          ///< the ref base of its last row: sent right
  std::int32_t previous_in_h;     ///< H(i-1, j0-1): what the left neighbour sent one step ago
};

/// Sets a lane up for a pass: row 0 of its columns, nothing received yet. `column_r` is the
/// lane's column (0..R-1) that the last-column scan follows, or -1.
template <int R>
GPP_HD_INLINE void lane_begin_pass(LaneColumns<R>& lane, const std::uint8_t* alt, std::int32_t m,
                                   std::int32_t j0, std::int32_t column_r,
                                   const WavefrontParameters& p) {
  const bool gap_border = gap_scored_border(p.strategy);
  GPP_SW_UNROLL
  for (int r = 0; r < R; ++r) {
    const std::int32_t j = j0 + r;
    lane.alt_base[r] = j <= m ? static_cast<std::int32_t>(alt[j - 1]) : 256;
    lane.h[r] = border_score(j, gap_border, p.open, p.extend);
    lane.best_deletion[r] = kLowInitValue;
    lane.column_mask[r] = r == column_r ? -1 : 0;
  }
  lane.out_h = lane.h[R - 1];
  lane.out_insertion = kLowInitValue;
  lane.out_base = 0;
  lane.previous_in_h = border_score(j0 - 1, gap_border, p.open, p.extend);
}

/// H of column 0 in row i: lane 0's input in the first pass.
GPP_HD_INLINE std::int32_t first_column_h(std::int32_t i, const WavefrontParameters& p) {
  return border_score(i, gap_scored_border(p.strategy), p.open, p.extend);
}

/// max(a + b, c); one DPX instruction on Hopper.
GPP_HD_INLINE std::int32_t add_max(std::int32_t a, std::int32_t b, std::int32_t c) {
#if defined(__CUDA_ARCH__)
  return __viaddmax_s32(a, b, c);
#else
  return a + b > c ? a + b : c;
#endif
}

/// (word << 1) | (sign bit of d): one funnel shift.
GPP_HD_INLINE std::uint32_t append_sign(std::uint32_t word, std::int32_t d) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_l(static_cast<std::uint32_t>(d), word, 1);
#else
  return word << 1 | static_cast<std::uint32_t>(d) >> 31;
#endif
}

/**
 * One step of one lane: row i of its R columns, given what its left neighbour sent (H and running
 * insertion of row i at column j0-1, and the ref base of row i). With kChecked the row may lie
 * outside 1..n, and the step is then skipped; without, the caller guarantees it is inside.
 * Returns the step's word of R 4-bit codes (0 when skipped; layout in smith_waterman_core.hpp).
 *
 * The cell is GATK's recurrence (sw::cell) for values inside gpu_values_bounded, where no sum
 * wraps and no cell reaches the cut-off: each choice is a maximum, and each tie rule the sign of
 * a difference — a gap is opened where opening beats extending strictly, the diagonal wins where
 * it equals the cell's value (it is then at least both gaps), an insertion where it is at least
 * the deletion.
 */
template <bool kChecked, int R>
GPP_HD_INLINE std::uint32_t lane_step(LaneColumns<R>& lane, std::int32_t i, std::int32_t n,
                                      std::int32_t in_h, std::int32_t in_insertion,
                                      std::int32_t in_base, const WavefrontParameters& p) {
  std::uint32_t word = 0;
  if (!kChecked || (i >= 1 && i <= n)) {
    std::int32_t diagonal_h = lane.previous_in_h, left = in_h, insertion = in_insertion;
    GPP_SW_UNROLL
    for (int r = 0; r < R; ++r) {
      const std::int32_t up = lane.h[r];
      const std::int32_t score = in_base == lane.alt_base[r] ? p.match : p.mismatch;
      const std::int32_t deletion_extended = lane.best_deletion[r] + p.extend;
      const std::int32_t deletion = add_max(up, p.open, deletion_extended);
      const std::int32_t insertion_extended = insertion + p.extend;
      insertion = add_max(left, p.open, insertion_extended);
      const std::int32_t either_gap = add_max(diagonal_h, score, deletion);
      const std::int32_t value = either_gap > insertion ? either_gap : insertion;
      word = append_sign(word, insertion_extended - left - p.open);  // insertion opened here
      word = append_sign(word, deletion_extended - up - p.open);     // deletion opened here
      word = append_sign(word, diagonal_h + score - value);          // not diagonal
      word = append_sign(word, insertion - deletion);                // deletion over insertion
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

/// GATK's last-column scan (>=, so the largest i wins) over the column of the lane's mask, after
/// row i; branch-free: lanes without the column fold a 0 into values nobody reads.
template <int R>
GPP_HD_INLINE void lane_track_column(const LaneColumns<R>& lane, std::int32_t i,
                                     std::int32_t& column_score, std::int32_t& column_i) {
  std::int32_t value = 0;
  GPP_SW_UNROLL
  for (int r = 0; r < R; ++r) value |= lane.h[r] & lane.column_mask[r];
  const bool better = value >= column_score;
  column_score = better ? value : column_score;
  column_i = better ? i : column_i;
}

/// Folds a lane's part of the bottom row (its h after row n) into its running best.
template <int R>
GPP_HD_INLINE void lane_bottom_row(const LaneColumns<R>& lane, std::int32_t j0, std::int32_t n,
                                   std::int32_t m, std::int32_t& bottom_score,
                                   std::int32_t& bottom_j, std::int32_t no_column) {
  GPP_SW_UNROLL
  for (int r = 0; r < R; ++r) {
    const std::int32_t j = j0 + r;
    if (j <= m &&
        (bottom_j == no_column || bottom_cell_wins(lane.h[r], j, bottom_score, bottom_j, n))) {
      bottom_score = lane.h[r];
      bottom_j = j;
    }
  }
}

/// The end cell from the last column's winner and the bottom row's winner.
GPP_HD_INLINE void choose_end_cell(OverhangStrategy strategy, std::int32_t n, std::int32_t m,
                                   std::int32_t column_score, std::int32_t column_i,
                                   std::int32_t bottom_score, std::int32_t bottom_j,
                                   std::int32_t& p1, std::int32_t& p2) {
  if (strategy == OverhangStrategy::kIndel) {
    p1 = n;
    p2 = m;
    return;
  }
  p1 = column_i;
  p2 = m;
  if (strategy != OverhangStrategy::kLeadingIndel &&
      bottom_replaces_column(bottom_score, bottom_j, column_score, column_i, n, m)) {
    p1 = n;
    p2 = bottom_j;
  }
}

}  // namespace gpp::kernels::sw
