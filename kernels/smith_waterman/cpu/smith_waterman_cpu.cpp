// CPU backend of smith-waterman: oneTBB over pairs. Pairs of similar shape are aligned L at a time,
// one per SIMD lane (smith_waterman_cpu_simd.hpp; L = 16 with AVX-512, 8 with AVX2, 4 otherwise);
// very large pairs one at a time with the scalar recurrence below. Both store 4-bit traceback
// codes, one byte per cell, and share the traceback walk and CIGAR assembly with the GPU.

// See smith_waterman_cpu_simd.hpp: by-value vectors only inside always-inlined code.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <tuple>

#include "kernels/smith_waterman/cpu/smith_waterman_cpu_simd.hpp"  // the shared part
#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"

// The vector kernel, once per instruction set (see smith_waterman_cpu_simd.hpp).
#if defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#define GPP_SW_SIMD_NAMESPACE avx512
#include "kernels/smith_waterman/cpu/smith_waterman_cpu_simd.hpp"
#undef GPP_SW_SIMD_NAMESPACE
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2")
#define GPP_SW_SIMD_NAMESPACE avx2
#include "kernels/smith_waterman/cpu/smith_waterman_cpu_simd.hpp"
#undef GPP_SW_SIMD_NAMESPACE
#pragma GCC pop_options
#endif
#define GPP_SW_SIMD_NAMESPACE baseline
#include "kernels/smith_waterman/cpu/smith_waterman_cpu_simd.hpp"
#include "kernels/smith_waterman/detail/backends.hpp"
#undef GPP_SW_SIMD_NAMESPACE

namespace gpp::kernels::detail {

namespace {

/// GATK Utils.lastIndexOf: last offset at which alt (not empty) occurs in ref, or -1.
std::int64_t last_index_of(std::string_view ref, std::string_view alt) {
  if (alt.size() > ref.size()) return -1;
  const char first = alt[0];
  for (std::int64_t r = static_cast<std::int64_t>(ref.size() - alt.size()); r >= 0; --r) {
    if (ref[static_cast<std::size_t>(r)] == first &&
        ref.compare(static_cast<std::size_t>(r), alt.size(), alt) == 0) {
      return r;
    }
  }
  return -1;
}

/// Buffers one thread reuses from pair to pair.
struct Workspace {
  std::vector<std::uint8_t> codes;          ///< n x m traceback codes, row-major
  std::vector<std::int32_t> h;              ///< H of the previous/current row, columns 0..m
  std::vector<std::int32_t> best_deletion;  ///< running best vertical gap per column
  std::vector<std::uint32_t> runs;
};

void align_pair(std::string_view ref, std::string_view alt, const SwParameters& p,
                OverhangStrategy strategy, Workspace& ws, PairResult& result) {
  const auto n = static_cast<std::int32_t>(ref.size());
  const auto m = static_cast<std::int32_t>(alt.size());
  const bool gap_border = sw::gap_scored_border(strategy);
  const std::int32_t open = p.gap_open, extend = p.gap_extend;

  ws.codes.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
  ws.h.resize(static_cast<std::size_t>(m) + 1);
  ws.best_deletion.assign(static_cast<std::size_t>(m) + 1, sw::kLowInitValue);
  std::int32_t* h = ws.h.data();
  std::int32_t* best_deletion = ws.best_deletion.data();
  for (std::int32_t j = 0; j <= m; ++j) h[j] = sw::border_score(j, gap_border, open, extend);

  std::int32_t column_best = std::numeric_limits<std::int32_t>::min();
  std::int32_t column_best_i = 0;
  for (std::int32_t i = 1; i <= n; ++i) {
    const char a = ref[static_cast<std::size_t>(i - 1)];
    std::uint8_t* codes = ws.codes.data() + static_cast<std::size_t>(i - 1) * m;
    std::int32_t diagonal_h = h[0];
    std::int32_t left = sw::border_score(i, gap_border, open, extend);
    h[0] = left;
    std::int32_t best_insertion = sw::kLowInitValue;
    for (std::int32_t j = 1; j <= m; ++j) {
      const std::int32_t up = h[j];
      const std::int32_t diagonal = sw::wrap_add(
          diagonal_h, a == alt[static_cast<std::size_t>(j - 1)] ? p.match : p.mismatch);
      std::uint32_t code;
      const std::int32_t cell =
          sw::cell(diagonal, up, left, best_deletion[j], best_insertion, open, extend, code);
      codes[j - 1] = static_cast<std::uint8_t>(code);
      diagonal_h = up;
      h[j] = cell;
      left = cell;
    }
    if (h[m] >= column_best) {  // last column: >=, so the largest i wins a tie
      column_best = h[m];
      column_best_i = i;
    }
  }

  sw::PathEnds ends;
  if (strategy == OverhangStrategy::kIndel) {
    ends.end_p1 = n;
    ends.end_p2 = m;
  } else {
    ends.end_p1 = column_best_i;
    ends.end_p2 = m;
    if (strategy != OverhangStrategy::kLeadingIndel) {
      std::int32_t best = column_best;
      for (std::int32_t j = 1; j <= m; ++j) {  // h holds the bottom row
        if (h[j] > best ||
            (h[j] == best && sw::distance(n, j) < sw::distance(ends.end_p1, ends.end_p2))) {
          ends.end_p1 = n;
          ends.end_p2 = j;
          best = h[j];
        }
      }
    }
  }

  ws.runs.clear();
  std::int32_t p1 = ends.end_p1, p2 = ends.end_p2;
  const std::uint8_t* codes = ws.codes.data();
  const auto code_at = [codes, m](std::int32_t i, std::int32_t j) -> std::uint32_t {
    return codes[static_cast<std::size_t>(i - 1) * m + static_cast<std::size_t>(j - 1)];
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
  result.cigar.clear();
  result.offset = sw::finish_alignment(strategy, m, ends, ws.runs, result.cigar);
}

// ---- SIMD groups: one entry point per instruction set, chosen at run time -----------------------

using GroupAligner = void (*)(const simd::GroupPair*, int, const SwParameters&, OverhangStrategy,
                              simd::GroupWorkspace&);
constexpr int kMaxLanes = 16;
/// Pairs above this many cells are aligned alone (a group's codes take rows x columns x lanes
/// bytes).
constexpr std::uint64_t kGroupMaxCells = std::uint64_t{1} << 21;

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw,avx512vl"), flatten)) void align_group_avx512(
    const simd::GroupPair* pairs, int count, const SwParameters& p, OverhangStrategy s,
    simd::GroupWorkspace& ws) {
  simd::avx512::align_group<16>(pairs, count, p, s, ws);
}
__attribute__((target("avx2"), flatten)) void align_group_avx2(const simd::GroupPair* pairs,
                                                               int count, const SwParameters& p,
                                                               OverhangStrategy s,
                                                               simd::GroupWorkspace& ws) {
  simd::avx2::align_group<8>(pairs, count, p, s, ws);
}
#endif
[[gnu::flatten]] void align_group_baseline(const simd::GroupPair* pairs, int count,
                                           const SwParameters& p, OverhangStrategy s,
                                           simd::GroupWorkspace& ws) {
  simd::baseline::align_group<4>(pairs, count, p, s, ws);
}

struct Isa {
  GroupAligner align = nullptr;
  int lanes = 1;  ///< 1: no groups, every pair alone (scalar)
};

/// The widest vector unit this CPU has, up to `wanted` (SwTuning::cpu_isa: avx512, avx2,
/// baseline or scalar; tests and benchmarks compare them).
Isa choose_isa(std::string_view wanted) {
  if (wanted == "scalar") return {};
#if defined(__x86_64__)
  if ((wanted.empty() || wanted == "avx512") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl")) {
    return {align_group_avx512, 16};
  }
  if ((wanted.empty() || wanted == "avx512" || wanted == "avx2") &&
      __builtin_cpu_supports("avx2")) {
    return {align_group_avx2, 8};
  }
#endif
  return {align_group_baseline, 4};
}

}  // namespace

std::uint64_t smith_waterman_cpu(const SequencePairs& pairs, std::span<const std::uint32_t> indices,
                                 const SwParameters& parameters, OverhangStrategy strategy,
                                 std::span<PairResult> results, const SwTuning& tuning) {
  const Isa isa = choose_isa(tuning.cpu_isa);
  const bool substring_shortcut =
      strategy == OverhangStrategy::kSoftClip || strategy == OverhangStrategy::kIgnore;
  // 0: answered by GATK's substring shortcut; 1: aligned in a SIMD group; 2: aligned alone.
  std::vector<std::uint8_t> route(indices.size());
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, indices.size(), 1024),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        for (std::size_t k = range.begin(); k != range.end(); ++k) {
          const std::string_view ref = pairs.ref(indices[k]), alt = pairs.alt(indices[k]);
          if (substring_shortcut) {
            const std::int64_t at = last_index_of(ref, alt);
            if (at >= 0) {
              PairResult& result = results[indices[k]];
              result.offset = static_cast<std::int32_t>(at);
              result.cigar.clear();
              result.cigar.push_back(
                  cigar_element(CigarOp::kMatch, static_cast<std::uint32_t>(alt.size())));
              route[k] = 0;
              continue;
            }
          }
          const std::uint64_t cells = static_cast<std::uint64_t>(ref.size()) * alt.size();
          route[k] = isa.lanes > 1 && cells <= kGroupMaxCells ? 1 : 2;
        }
      });
  std::vector<std::uint32_t> grouped, alone;
  std::uint64_t substring_pairs = 0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    substring_pairs += route[k] == 0;
    if (route[k] == 1) grouped.push_back(indices[k]);
    if (route[k] == 2) alone.push_back(indices[k]);
  }
  // Similar shapes share a group: alt length, then ref length.
  std::sort(grouped.begin(), grouped.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto ka = std::make_tuple(pairs.alt(a).size(), pairs.ref(a).size(), a);
    const auto kb = std::make_tuple(pairs.alt(b).size(), pairs.ref(b).size(), b);
    return ka < kb;
  });

  oneapi::tbb::enumerable_thread_specific<simd::GroupWorkspace> group_workspaces;
  const std::size_t groups = (grouped.size() + isa.lanes - 1) / isa.lanes;
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, groups, 1),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        simd::GroupWorkspace& ws = group_workspaces.local();
        simd::GroupPair members[kMaxLanes];
        for (std::size_t g = range.begin(); g != range.end(); ++g) {
          const std::size_t begin = g * isa.lanes;
          const std::size_t end = std::min(grouped.size(), begin + isa.lanes);
          for (std::size_t k = begin; k < end; ++k) {
            members[k - begin] = {pairs.ref(grouped[k]), pairs.alt(grouped[k]),
                                  &results[grouped[k]]};
          }
          isa.align(members, static_cast<int>(end - begin), parameters, strategy, ws);
        }
      });
  oneapi::tbb::enumerable_thread_specific<Workspace> workspaces;
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, alone.size(), 1),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              Workspace& ws = workspaces.local();
                              for (std::size_t k = range.begin(); k != range.end(); ++k) {
                                align_pair(pairs.ref(alone[k]), pairs.alt(alone[k]), parameters,
                                           strategy, ws, results[alone[k]]);
                              }
                            });
  return substring_pairs;
}

}  // namespace gpp::kernels::detail
