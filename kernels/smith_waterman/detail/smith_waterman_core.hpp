// The parts of GATK's Smith-Waterman that both backends share, written once so that they cannot
// drift apart: the cell recurrence with its tie rules, the per-cell traceback code, the end-cell
// rules, the traceback walk, and the layout of the GPU's traceback matrix. Compiles as host code
// and, under nvcc, as host+device code.
//
// Traceback codes (4 bits per cell) replace GATK's int btrack matrix, which stores a gap length
// per cell: bits 0-1 are the direction chosen in the cell (0 diagonal, 1 insertion = step right,
// 2 deletion = step down), bit 2 says that the best deletion ending here was opened here (rather
// than extended from the cell above), bit 3 the same for the best insertion (from the cell to the
// left). GATK's gap length at a cell is then the distance to the nearest cell above (or to the
// left) whose "opened" bit is set, counting that cell; a gap that reaches row (column) 1 stops
// there, as GATK's gap-size counters start at 0.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/host_device.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"

#if defined(__CUDA_ARCH__)
#define GPP_SW_UNROLL _Pragma("unroll")
#else
#define GPP_SW_UNROLL
#endif

namespace gpp::kernels::sw {

/// GATK MATRIX_MIN_CUTOFF: cell scores never drop below this.
inline constexpr std::int32_t kMatrixMinCutoff = -100000000;
/// GATK lowInitValue: the running best gaps before any gap exists.
inline constexpr std::int32_t kLowInitValue = std::numeric_limits<std::int32_t>::min() / 2;

inline constexpr std::uint32_t kDirDiagonal = 0;
inline constexpr std::uint32_t kDirInsertion = 1;
inline constexpr std::uint32_t kDirDeletion = 2;
inline constexpr std::uint32_t kDeletionOpened = 4;
inline constexpr std::uint32_t kInsertionOpened = 8;

/// Java int arithmetic (two's complement wrap-around), without C++ signed-overflow UB.
GPP_HD_INLINE std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
GPP_HD_INLINE std::int32_t wrap_mul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

/// INDEL and LEADING_INDEL start row 0 and column 0 with gap scores; the others with 0.
GPP_HD_INLINE bool gap_scored_border(OverhangStrategy s) {
  return s == OverhangStrategy::kIndel || s == OverhangStrategy::kLeadingIndel;
}

/// Score of border cell k (row 0 column k, or column 0 row k): 0, or open + (k-1) * extend.
GPP_HD_INLINE std::int32_t border_score(std::int32_t k, bool gap_scored, std::int32_t open,
                                        std::int32_t extend) {
  if (!gap_scored || k <= 0) return 0;
  return wrap_add(open, wrap_mul(k - 1, extend));
}

/**
 * One cell of GATK's recurrence. `diagonal` is H(i-1,j-1) plus the match or mismatch score; `up`
 * is H(i-1,j); `left` is H(i,j-1). `best_deletion` (running per column) and `best_insertion`
 * (running per row) are updated in place. Returns H(i,j); `code` receives the 4-bit code.
 */
GPP_HD_INLINE std::int32_t cell(std::int32_t diagonal, std::int32_t up, std::int32_t left,
                                std::int32_t& best_deletion, std::int32_t& best_insertion,
                                std::int32_t open, std::int32_t extend, std::uint32_t& code) {
  const std::int32_t deletion_extended = wrap_add(best_deletion, extend);
  const std::int32_t deletion_opened = wrap_add(up, open);
  const bool deletion_is_new = deletion_opened > deletion_extended;  // strictly: ties keep the gap
  best_deletion = deletion_is_new ? deletion_opened : deletion_extended;
  const std::int32_t insertion_extended = wrap_add(best_insertion, extend);
  const std::int32_t insertion_opened = wrap_add(left, open);
  const bool insertion_is_new = insertion_opened > insertion_extended;
  best_insertion = insertion_is_new ? insertion_opened : insertion_extended;

  // The cell's choice is always a maximum, so its value is computed as one (a short dependency
  // chain from column to column); the priority diagonal > right > down only decides the code.
  std::int32_t h = diagonal > best_deletion ? diagonal : best_deletion;
  h = h > kMatrixMinCutoff ? h : kMatrixMinCutoff;
  h = best_insertion > h ? best_insertion : h;
  const std::uint32_t direction =
      diagonal >= best_deletion && diagonal >= best_insertion
          ? kDirDiagonal
          : (best_insertion >= best_deletion ? kDirInsertion : kDirDeletion);
  code = direction | (deletion_is_new ? kDeletionOpened : 0u) |
         (insertion_is_new ? kInsertionOpened : 0u);
  return h;
}

/// |a - b| for the end-cell rule (sequence lengths are below 2^31, so no overflow).
GPP_HD_INLINE std::int32_t distance(std::int32_t a, std::int32_t b) {
  return a > b ? a - b : b - a;
}

/**
 * GATK's bottom-row scan as an order: scanning j = 1..m, cell (n, j) replaces the current end
 * cell when strictly better, or equal and strictly closer to the diagonal (|n - j| smaller). Over
 * the bottom row alone the winner is therefore the best score, then the smallest |n - j|, then
 * the smallest j. Returns true when bottom cell a wins over bottom cell b.
 */
GPP_HD_INLINE bool bottom_cell_wins(std::int32_t score_a, std::int32_t j_a, std::int32_t score_b,
                                    std::int32_t j_b, std::int32_t n) {
  if (score_a != score_b) return score_a > score_b;
  const std::int32_t da = distance(n, j_a), db = distance(n, j_b);
  if (da != db) return da < db;
  return j_a < j_b;
}

/// Whether the bottom row's winner (n, j_bottom) replaces the last column's winner (i_col, m).
GPP_HD_INLINE bool bottom_replaces_column(std::int32_t bottom_score, std::int32_t j_bottom,
                                          std::int32_t column_score, std::int32_t i_col,
                                          std::int32_t n, std::int32_t m) {
  return bottom_score > column_score ||
         (bottom_score == column_score && distance(n, j_bottom) < distance(i_col, m));
}

/**
 * GATK's backtrack from (p1, p2) until p1 == 0 or p2 == 0 (at least one step). `code_at(i, j)`
 * returns the 4-bit code of cell (i, j); `emit(op, length)` receives each step in traversal order
 * (end to start): a diagonal step as (kMatch, 1), a gap as its whole length.
 */
template <typename CodeAt, typename Emit>
GPP_HD_INLINE void trace_back(const CodeAt& code_at, std::int32_t& p1, std::int32_t& p2,
                              Emit&& emit) {
  do {
    const std::uint32_t direction = code_at(p1, p2) & 3u;
    if (direction == kDirDiagonal) {
      emit(CigarOp::kMatch, 1);
      --p1;
      --p2;
    } else if (direction == kDirInsertion) {
      std::int32_t j = p2;
      while (j > 1 && (code_at(p1, j) & kInsertionOpened) == 0) --j;
      emit(CigarOp::kInsertion, static_cast<std::uint32_t>(p2 - j + 1));
      p2 = j - 1;
    } else {
      std::int32_t i = p1;
      while (i > 1 && (code_at(i, p2) & kDeletionOpened) == 0) --i;
      emit(CigarOp::kDeletion, static_cast<std::uint32_t>(p1 - i + 1));
      p1 = i - 1;
    }
  } while (p1 > 0 && p2 > 0);
}

/// Where a traceback started and ended; with the runs, all that finish_alignment needs.
struct PathEnds {
  std::int32_t end_p1 = 0, end_p2 = 0;    ///< the end cell chosen
  std::int32_t last_p1 = 0, last_p2 = 0;  ///< where the traceback stopped (p1 or p2 is 0)
};

/**
 * Turns a traceback into GATK's result (SmithWatermanJavaAligner.calculateCigar after the loop):
 * trailing alt overhang, the runs, the leading overhang per strategy, reversed and consolidated.
 * `runs_end_to_start` are CIGAR elements in traversal order. Appends the CIGAR to `cigar`;
 * returns the alignment offset.
 */
std::int32_t finish_alignment(OverhangStrategy strategy, std::int32_t m, const PathEnds& ends,
                              std::span<const std::uint32_t> runs_end_to_start,
                              CigarBuilder& cigar);

// ---- GPU traceback layout
// One warp aligns one pair. Its 32 lanes split the alt columns into passes of 32 * R columns (R
// columns per lane, R <= 8) and sweep the ref rows as a wavefront: lane l handles row i at step
// t = i - 1 + l. Each lane writes one 32-bit word per step (R codes of 4 bits), so a pass stores
// (n + 31) steps x 32 lanes words, step-major: the warp's stores are coalesced.
//
// The GPU writes its codes in the order its arithmetic yields them (each bit is the sign of a
// difference, appended to the word): column r of a lane at bits 4 * (R - 1 - r), and in each code
// bit 3 = insertion opened, bit 2 = deletion opened, bit 1 = not diagonal, bit 0 = deletion
// preferred to insertion. gpu_code_at turns that into the codes above.

inline constexpr std::int32_t kWarpLanes = 32;
inline constexpr std::int32_t kMaxColumnsPerLane = 8;

struct GpuShape {
  std::int32_t columns_per_lane = 1;  ///< R
  std::int32_t passes = 1;
};

/// R and the pass count for an alt of length m >= 1: the fewest passes, then the smallest R.
GPP_HD_INLINE GpuShape gpu_shape(std::int32_t m) {
  constexpr std::int32_t kPassWidth = kWarpLanes * kMaxColumnsPerLane;
  GpuShape shape;
  shape.passes = (m + kPassWidth - 1) / kPassWidth;
  const std::int32_t per_pass = (m + shape.passes - 1) / shape.passes;
  shape.columns_per_lane = (per_pass + kWarpLanes - 1) / kWarpLanes;
  return shape;
}

/**
 * Whether the GPU's arithmetic is exact for an n x m pair: it takes the signs of differences of
 * cell values and leaves out the cut-off, which is only right while no sum or difference leaves
 * the int range and no cell falls to kMatrixMinCutoff. Every cell value is the score of a path
 * (at most n + m steps of at most S = the largest |parameter|, from a border cell of at most
 * (n + m) * S), and the running gaps are such scores plus at most 2 S, or kLowInitValue plus S in
 * the first row and column; so 2 * (n + m + 2) * S below |kMatrixMinCutoff| is enough. GATK's
 * parameter sets are far inside; pairs outside go to the CPU backend, which wraps like Java.
 */
inline bool gpu_values_bounded(std::int32_t n, std::int32_t m, const SwParameters& p) {
  const auto magnitude = [](std::int32_t v) { return v < 0 ? -static_cast<std::int64_t>(v) : v; };
  const std::int64_t s = std::max(std::max(magnitude(p.match), magnitude(p.mismatch)),
                                  std::max(magnitude(p.gap_open), magnitude(p.gap_extend)));
  return 2 * (static_cast<std::int64_t>(n) + m + 2) * s <
         -static_cast<std::int64_t>(kMatrixMinCutoff);
}

/// The GPU's 16-bit kernel holds a value v as v + kDualBias in a 16-bit field (0..32767).
inline constexpr std::int32_t kDualBias = 16384;

/**
 * Whether an n x m pair may be aligned by the 16-bit kernel, two pairs per warp in the halves of
 * each register (sw_dual_fill_kernel). That kernel adds, takes maxima and the signs of differences
 * on values held with kDualBias, which is exact while every value it forms, biased, lies in
 * 0..32767: then no field carries into the other and every difference of two fields is in range.
 * With gap scores <= 0 and match >= mismatch every cell value is a path score: at most
 * match * min(i, j) (diagonal steps score at most `match`, gaps and borders at most 0), and at
 * least its row's border plus an insertion from column 0 (H >= best insertion); the running gaps
 * lie between H + open + extend and the largest H + open, the diagonal sums between the lowest H
 * plus mismatch and the largest H plus match. The padding columns of the last pass are computed
 * too, so the bound takes the padded width. The low init (first row and column of the running
 * gaps) is held as the lowest field minus `extend`, so that extended it is 0 and loses strictly to
 * any opening, as GATK's does. Bases are compared as (byte << 8) fields whose XOR is 0 or at least
 * 256, so match - mismatch <= 256; the row number must fit 16 bits (last-column tracking).
 */
inline bool gpu_dual_values_fit(std::int32_t n, std::int32_t m, const SwParameters& p,
                                OverhangStrategy strategy) {
  const std::int64_t match = p.match, mismatch = p.mismatch, open = p.gap_open,
                     extend = p.gap_extend;
  if (open > 0 || extend > 0 || match < mismatch || match - mismatch > 256 || n > 65535)
    return false;
  const GpuShape shape = gpu_shape(m);
  const std::int64_t columns =
      static_cast<std::int64_t>(shape.passes) * kWarpLanes * shape.columns_per_lane;
  const std::int64_t highest_h =
      std::max<std::int64_t>(match, 0) * std::min<std::int64_t>(n, columns);
  const std::int64_t lowest_border = gap_scored_border(strategy) ? open + (n - 1) * extend : 0;
  const std::int64_t lowest_h = lowest_border + open + (columns - 1) * extend;
  const std::int64_t highest = highest_h + std::max<std::int64_t>(match, 0);
  const std::int64_t lowest = lowest_h + std::min<std::int64_t>({open + extend, mismatch, 0});
  return lowest >= 1 - kDualBias && highest <= 32767 - kDualBias;
}

/// 32-bit words of a pair's traceback matrix on the GPU.
GPP_HD_INLINE std::uint64_t gpu_traceback_words(std::int32_t n, std::int32_t m) {
  const GpuShape shape = gpu_shape(m);
  return static_cast<std::uint64_t>(shape.passes) * static_cast<std::uint64_t>(n + kWarpLanes - 1) *
         kWarpLanes;
}

/// The code (layout above) of a GPU code nibble.
GPP_HD_INLINE std::uint32_t code_of_gpu_nibble(std::uint32_t nibble) {
  const std::uint32_t direction =
      (nibble & 2u) == 0 ? kDirDiagonal : ((nibble & 1u) != 0 ? kDirDeletion : kDirInsertion);
  return direction | (nibble & (kDeletionOpened | kInsertionOpened));
}

/// Where cell (i, j) (1-based) of a pair lies in its GPU traceback: the index of its (pass, step,
/// lane) slot, and its column r within the lane.
struct GpuCellPlace {
  std::uint64_t slot;
  std::int32_t r;
};
GPP_HD_INLINE GpuCellPlace gpu_cell_place(std::int32_t n, std::int32_t columns_per_lane,
                                          std::int32_t i, std::int32_t j) {
  const std::int32_t pass_width = kWarpLanes * columns_per_lane;
  const std::int32_t pass = (j - 1) / pass_width;
  const std::int32_t column = (j - 1) - pass * pass_width;
  const std::int32_t lane = column / columns_per_lane;
  const std::int32_t step = i - 1 + lane;
  return {(static_cast<std::uint64_t>(pass) * (n + kWarpLanes - 1) + step) * kWarpLanes + lane,
          column - lane * columns_per_lane};
}

/// Code of cell (i, j) (1-based) in a pair's GPU traceback words (one word per slot).
GPP_HD_INLINE std::uint32_t gpu_code_at(const std::uint32_t* words, std::int32_t n,
                                        std::int32_t columns_per_lane, std::int32_t i,
                                        std::int32_t j) {
  const GpuCellPlace place = gpu_cell_place(n, columns_per_lane, i, j);
  return code_of_gpu_nibble((words[place.slot] >> (4 * (columns_per_lane - 1 - place.r))) & 0xFu);
}

// ---- GPU traceback layout of the 16-bit kernel
// Two pairs of one shape share a warp, one in the low 16 bits of each register (half 0), one in
// the high (half 1); their traceback is one pair of 32-bit words per lane and step (the same step
// and lane order as above), built from the bytes that hold each difference's sign bits (bits 15
// and 31): word 0 holds "insertion opened" in byte `half` and "deletion opened" in byte 2 + half,
// word 1 "not diagonal" in byte half and "deletion over insertion" in byte 2 + half; column r of
// a lane at bit 7 - (R - 1 - r) of each byte. The low half's bits are inverted (its difference is
// biased by 2^15 so that no borrow reaches the high half: bit 15 is then set for d >= 0).

/// Code of cell (i, j) of the pair in half `half` of a 16-bit kernel's traceback words.
GPP_HD_INLINE std::uint32_t gpu_dual_code_at(const std::uint32_t* words, std::int32_t n,
                                             std::int32_t columns_per_lane, std::int32_t half,
                                             std::int32_t i, std::int32_t j) {
  const GpuCellPlace place = gpu_cell_place(n, columns_per_lane, i, j);
  const std::uint64_t word = 2 * place.slot;  // two words per slot
  const std::int32_t bit = 8 * half + 7 - (columns_per_lane - 1 - place.r);
  const std::uint32_t gaps = words[word], choices = words[word + 1];
  std::uint32_t nibble = ((gaps >> bit) & 1u) << 3 | ((gaps >> (bit + 16)) & 1u) << 2 |
                         ((choices >> bit) & 1u) << 1 | ((choices >> (bit + 16)) & 1u);
  if (half == 0) nibble ^= 0xFu;
  return code_of_gpu_nibble(nibble);
}

}  // namespace gpp::kernels::sw
