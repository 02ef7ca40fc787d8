// The per-lane work of the GPU fill kernel (kernels/smith_waterman_kernels.cuh), kept free of
// CUDA intrinsics so that the tests can run the same code on the host in a warp simulation:
// the kernel supplies what the shuffles deliver, these functions do the rest.
#pragma once

#include <cstdint>

#include "kernels/smith_waterman_core.hpp"

namespace gpp::kernels::sw {

struct WavefrontParameters {
  std::int32_t match, mismatch, open, extend;
  OverhangStrategy strategy;
};

/// A lane's registers in one pass: R columns starting at (1-based) j0.
template <int R>
struct LaneColumns {
  std::int32_t h[R];              ///< H(i, j) of the last row done (row 0 before the first)
  std::int32_t best_deletion[R];  ///< running vertical gap of each column
  std::int32_t alt_base[R];       ///< alt byte of each column; 256 past the end (matches nothing)
  std::int32_t out_h;             ///< H of this lane's last column in its last row: sent right
  std::int32_t out_insertion;     ///< running horizontal gap after its last column: sent right
  std::int32_t out_base;          ///< the ref base of its last row: sent right
  std::int32_t previous_in_h;     ///< H(i-1, j0-1): what the left neighbour sent one step ago
};

/// Sets a lane up for a pass: row 0 of its columns, nothing received yet.
template <int R>
GPP_SW_HD void lane_begin_pass(LaneColumns<R>& lane, const std::uint8_t* alt, std::int32_t m,
                               std::int32_t j0, const WavefrontParameters& p) {
  const bool gap_border = gap_scored_border(p.strategy);
  GPP_SW_UNROLL
  for (int r = 0; r < R; ++r) {
    const std::int32_t j = j0 + r;
    lane.alt_base[r] = j <= m ? static_cast<std::int32_t>(alt[j - 1]) : 256;
    lane.h[r] = border_score(j, gap_border, p.open, p.extend);
    lane.best_deletion[r] = kLowInitValue;
  }
  lane.out_h = lane.h[R - 1];
  lane.out_insertion = kLowInitValue;
  lane.out_base = 0;
  lane.previous_in_h = border_score(j0 - 1, gap_border, p.open, p.extend);
}

/// Column 0 of row i for lane 0 in the first pass: H and the running insertion.
GPP_SW_HD std::int32_t first_column_h(std::int32_t i, const WavefrontParameters& p) {
  return border_score(i, gap_scored_border(p.strategy), p.open, p.extend);
}

/**
 * One step of one lane: row i (skipped unless 1 <= i <= n) of its R columns, given what its left
 * neighbour sent (H and running insertion of row i at column j0-1, and the ref base of row i).
 * Returns the step's word of R 4-bit codes (0 when skipped). With `track_column`, also folds
 * H(i, j0 + column_r) into GATK's last-column scan.
 */
template <int R>
GPP_SW_HD std::uint32_t lane_step(LaneColumns<R>& lane, std::int32_t i, std::int32_t n,
                                  std::int32_t in_h, std::int32_t in_insertion,
                                  std::int32_t in_base, const WavefrontParameters& p,
                                  bool track_column, std::int32_t column_r,
                                  std::int32_t& column_score, std::int32_t& column_i) {
  std::uint32_t word = 0;
  if (i >= 1 && i <= n) {
    std::int32_t diagonal_h = lane.previous_in_h, left = in_h, insertion = in_insertion;
    GPP_SW_UNROLL
    for (int r = 0; r < R; ++r) {
      const std::int32_t up = lane.h[r];
      const std::int32_t diagonal =
          wrap_add(diagonal_h, in_base == lane.alt_base[r] ? p.match : p.mismatch);
      std::uint32_t code;
      const std::int32_t value =
          cell(diagonal, up, left, lane.best_deletion[r], insertion, p.open, p.extend, code);
      word |= code << (4 * r);
      diagonal_h = up;
      lane.h[r] = value;
      left = value;
    }
    lane.out_h = left;
    lane.out_insertion = insertion;
    lane.out_base = in_base;
    if (track_column) {  // GATK's last-column scan: >=, so the largest i wins
      std::int32_t value = lane.h[0];
      GPP_SW_UNROLL
      for (int r = 1; r < R; ++r) value = r == column_r ? lane.h[r] : value;
      if (value >= column_score) {
        column_score = value;
        column_i = i;
      }
    }
  }
  lane.previous_in_h = in_h;
  return word;
}

/// Folds a lane's part of the bottom row (its h after row n) into its running best.
template <int R>
GPP_SW_HD void lane_bottom_row(const LaneColumns<R>& lane, std::int32_t j0, std::int32_t n,
                               std::int32_t m, std::int32_t& bottom_score, std::int32_t& bottom_j,
                               std::int32_t no_column) {
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
GPP_SW_HD void choose_end_cell(OverhangStrategy strategy, std::int32_t n, std::int32_t m,
                               std::int32_t column_score, std::int32_t column_i,
                               std::int32_t bottom_score, std::int32_t bottom_j, std::int32_t& p1,
                               std::int32_t& p2) {
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
