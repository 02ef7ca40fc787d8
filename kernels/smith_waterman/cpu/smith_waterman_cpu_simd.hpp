// The CPU backend's vector kernel: L pairs aligned at once, one pair per SIMD lane (GCC vector
// extensions, lowered to AVX-512, AVX2 or SSE2 by the caller's target). Every lane runs GATK's
// row-by-row recurrence on its own pair; the group is padded to its longest ref and alt, and
// cells beyond a lane's own matrix are computed but never read (cells depend only on cells above
// and to the left). Codes are stored one byte per cell and lane; the traceback then runs per
// lane with the shared walker.
//
// Included by smith_waterman_cpu.cpp only, once per instruction set: the includer defines
// GPP_SW_SIMD_NAMESPACE and wraps the include in `#pragma GCC target(...)`. The vector code must
// be *defined* under the target, not just inlined into a function that has it: GCC lowers vector
// operations its function's target lacks (into scalar code) before inlining. The includer also
// silences -Wpsabi: the helpers take and return vectors by value but are always inlined.
#ifndef GPP_KERNELS_SMITH_WATERMAN_CPU_SIMD_SHARED
#define GPP_KERNELS_SMITH_WATERMAN_CPU_SIMD_SHARED

#include <algorithm>
#include <climits>
#include <cstring>
#include <string_view>
#include <vector>

#include "kernels/smith_waterman/detail/backends.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::kernels::detail::simd {

/// Buffers a thread reuses from group to group.
struct GroupWorkspace {
  std::vector<std::uint8_t> codes;         ///< [i][j][lane]
  std::vector<std::int32_t> ref_t, alt_t;  ///< bases transposed: [i][lane], [j][lane]
  std::vector<std::int32_t> h, deletion;   ///< one vector per column 0..M
  std::vector<std::int32_t> bottom;        ///< [lane][j]: row n of each lane
  std::vector<std::uint32_t> runs;
};

struct GroupPair {
  std::string_view ref, alt;
  PairResult* result;
};

}  // namespace gpp::kernels::detail::simd

#endif

// Without GPP_SW_SIMD_NAMESPACE only the shared part above: include it so first, outside any
// target pragma, so that the standard headers are not compiled for one instruction set.
#ifdef GPP_SW_SIMD_NAMESPACE
namespace gpp::kernels::detail::simd::GPP_SW_SIMD_NAMESPACE {

template <int L>
struct Vec {
  typedef std::int32_t i32 __attribute__((vector_size(4 * L)));
  typedef std::uint32_t u32 __attribute__((vector_size(4 * L)));
  typedef std::int8_t i8 __attribute__((vector_size(L)));
  typedef std::int8_t bytes __attribute__((vector_size(4 * L)));
};

/// The low byte of each lane (codes are 0..15). A byte shuffle: GCC scalarises a plain
/// int32 -> int8 conversion without AVX-512's vpmovdb.
template <int L>
[[gnu::always_inline]] inline typename Vec<L>::i8 low_bytes(typename Vec<L>::i32 v) {
  if constexpr (L == 16) {
    return __builtin_convertvector(v, typename Vec<L>::i8);
  } else {
    const auto b = reinterpret_cast<typename Vec<L>::bytes>(v);
    if constexpr (L == 8) {
      return __builtin_shufflevector(b, b, 0, 4, 8, 12, 16, 20, 24, 28);
    } else {
      static_assert(L == 4, "lanes: 4, 8 or 16");
      return __builtin_shufflevector(b, b, 0, 4, 8, 12);
    }
  }
}

template <int L>
[[gnu::always_inline]] inline typename Vec<L>::i32 wrap_add(typename Vec<L>::i32 a,
                                                            typename Vec<L>::i32 b) {
  using u32 = typename Vec<L>::u32;
  return reinterpret_cast<typename Vec<L>::i32>(reinterpret_cast<u32>(a) +
                                                reinterpret_cast<u32>(b));
}

template <typename V>
[[gnu::always_inline]] inline V load(const std::int32_t* from) {
  V v;
  std::memcpy(&v, from, sizeof(V));  // unaligned vector load
  return v;
}
template <typename V>
[[gnu::always_inline]] inline void store(std::int32_t* to, V v) {
  std::memcpy(to, &v, sizeof(V));
}

/// Aligns up to L pairs (count <= L) and writes their results.
template <int L>
[[gnu::always_inline]] inline void align_group(const GroupPair* pairs, int count,
                                               const SwParameters& p, OverhangStrategy strategy,
                                               GroupWorkspace& ws) {
  using V = typename Vec<L>::i32;
  using V8 = typename Vec<L>::i8;
  std::int32_t n[L], m[L];
  int rows = 0, columns = 0;
  for (int k = 0; k < L; ++k) {
    n[k] = k < count ? static_cast<std::int32_t>(pairs[k].ref.size()) : 0;
    m[k] = k < count ? static_cast<std::int32_t>(pairs[k].alt.size()) : 0;
    rows = std::max(rows, n[k]);
    columns = std::max(columns, m[k]);
  }
  const std::size_t M = static_cast<std::size_t>(columns);
  ws.codes.resize(static_cast<std::size_t>(rows) * M * L);
  ws.ref_t.resize(static_cast<std::size_t>(rows) * L);
  ws.alt_t.resize(M * L);
  ws.h.resize((M + 1) * L);
  ws.deletion.resize((M + 1) * L);
  ws.bottom.resize((M + 1) * L);
  for (int k = 0; k < L; ++k) {  // past a lane's end: values that match nothing real
    for (int i = 0; i < rows; ++i)
      ws.ref_t[static_cast<std::size_t>(i) * L + k] =
          i < n[k] ? static_cast<std::uint8_t>(pairs[k].ref[i]) : -1;
    for (int j = 0; j < columns; ++j)
      ws.alt_t[static_cast<std::size_t>(j) * L + k] =
          j < m[k] ? static_cast<std::uint8_t>(pairs[k].alt[j]) : -2;
  }
  std::int32_t* h = ws.h.data();  // column j's vector at h + j * L
  std::int32_t* deletion = ws.deletion.data();
  const bool gap_border = sw::gap_scored_border(strategy);
  for (std::size_t j = 0; j <= M; ++j) {
    store(h + j * L, V{} + sw::border_score(static_cast<std::int32_t>(j), gap_border, p.gap_open,
                                            p.gap_extend));
    store(deletion + j * L, V{} + sw::kLowInitValue);
  }
  const V match = V{} + p.match, mismatch = V{} + p.mismatch, open = V{} + p.gap_open,
          extend = V{} + p.gap_extend, cutoff = V{} + sw::kMatrixMinCutoff,
          low = V{} + sw::kLowInitValue;
  const V one = V{} + 1, two = V{} + 2, four = V{} + 4, eight = V{} + 8;
  std::int32_t column_best[L], column_best_i[L];
  for (int k = 0; k < L; ++k) {
    column_best[k] = INT_MIN;
    column_best_i[k] = 0;
  }

  for (int i = 1; i <= rows; ++i) {
    const V ref_base = load<V>(ws.ref_t.data() + static_cast<std::size_t>(i - 1) * L);
    V diagonal_h = load<V>(h);
    V left = V{} + sw::border_score(i, gap_border, p.gap_open, p.gap_extend);
    store(h, left);
    V insertion = low;
    std::uint8_t* codes = ws.codes.data() + static_cast<std::size_t>(i - 1) * M * L;
    const std::int32_t* alt_t = ws.alt_t.data();
    for (std::size_t j = 1; j <= M; ++j) {
      const V alt_base = load<V>(alt_t + (j - 1) * L);
      const V up = load<V>(h + j * L);
      const V diagonal = wrap_add<L>(diagonal_h, ref_base == alt_base ? match : mismatch);
      // Values by max (the cell's choice is always a maximum), so that the chain from one column
      // to the next (left -> insertion -> value) is three operations; the tie rules only decide
      // the codes, off that chain.
      const V deletion_extended = wrap_add<L>(load<V>(deletion + j * L), extend);
      const V deletion_opened = wrap_add<L>(up, open);
      const V deletion_new = deletion_opened > deletion_extended;  // strictly: ties keep the gap
      const V best_deletion =
          deletion_opened > deletion_extended ? deletion_opened : deletion_extended;
      store(deletion + j * L, best_deletion);
      const V diagonal_or_deletion = diagonal > best_deletion ? diagonal : best_deletion;
      const V floor = diagonal_or_deletion > cutoff ? diagonal_or_deletion : cutoff;
      const V insertion_extended = wrap_add<L>(insertion, extend);
      const V insertion_opened = wrap_add<L>(left, open);
      const V insertion_new = insertion_opened > insertion_extended;
      insertion = insertion_opened > insertion_extended ? insertion_opened : insertion_extended;
      const V value = insertion > floor ? insertion : floor;
      const V diagonal_wins = (diagonal >= best_deletion) & (diagonal >= insertion);
      const V insertion_wins = insertion >= best_deletion;  // diagonal > right > down
      const V direction = diagonal_wins ? V{} : (insertion_wins ? one : two);
      const V code = direction | (deletion_new & four) | (insertion_new & eight);
      const V8 packed = low_bytes<L>(code);
      std::memcpy(codes + (j - 1) * L, &packed, sizeof(V8));
      diagonal_h = up;
      store(h + j * L, value);
      left = value;
    }
    const std::int32_t* row = ws.h.data();
    for (int k = 0; k < count; ++k) {
      if (i > n[k]) continue;
      const std::int32_t last = row[static_cast<std::size_t>(m[k]) * L + k];
      if (last >= column_best[k]) {  // GATK's last-column scan: the largest i wins a tie
        column_best[k] = last;
        column_best_i[k] = i;
      }
      if (i == n[k]) {
        for (int j = 1; j <= m[k]; ++j)
          ws.bottom[static_cast<std::size_t>(k) * (M + 1) + j] =
              row[static_cast<std::size_t>(j) * L + k];
      }
    }
  }

  for (int k = 0; k < count; ++k) {
    sw::PathEnds ends;
    if (strategy == OverhangStrategy::kIndel) {
      ends.end_p1 = n[k];
      ends.end_p2 = m[k];
    } else {
      ends.end_p1 = column_best_i[k];
      ends.end_p2 = m[k];
      if (strategy != OverhangStrategy::kLeadingIndel) {
        std::int32_t best = column_best[k];
        const std::int32_t* bottom = ws.bottom.data() + static_cast<std::size_t>(k) * (M + 1);
        for (std::int32_t j = 1; j <= m[k]; ++j) {
          if (bottom[j] > best ||
              (bottom[j] == best &&
               sw::distance(n[k], j) < sw::distance(ends.end_p1, ends.end_p2))) {
            ends.end_p1 = n[k];
            ends.end_p2 = j;
            best = bottom[j];
          }
        }
      }
    }
    ws.runs.clear();
    std::int32_t p1 = ends.end_p1, p2 = ends.end_p2;
    const std::uint8_t* codes = ws.codes.data();
    const auto code_at = [codes, M, k](std::int32_t i, std::int32_t j) -> std::uint32_t {
      return codes[((static_cast<std::size_t>(i) - 1) * M + static_cast<std::size_t>(j) - 1) * L +
                   k];
    };
    sw::trace_back(code_at, p1, p2, [&ws](CigarOp op, std::uint32_t length) {
      if (!ws.runs.empty() && cigar_op(ws.runs.back()) == op) {
        ws.runs.back() += length << 4;
      } else {
        ws.runs.push_back(cigar_element(op, length));
      }
    });
    ends.last_p1 = p1;
    ends.last_p2 = p2;
    PairResult& result = *pairs[k].result;
    result.cigar.clear();
    result.offset = sw::finish_alignment(strategy, m[k], ends, ws.runs, result.cigar);
  }
}

}  // namespace gpp::kernels::detail::simd::GPP_SW_SIMD_NAMESPACE
#endif
