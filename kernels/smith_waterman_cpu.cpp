// CPU backend of smith-waterman: oneTBB over pairs; per pair GATK's row-by-row recurrence with
// 4-bit traceback codes (one byte per cell), then the shared traceback and CIGAR assembly.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/combinable.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "kernels/smith_waterman.hpp"
#include "kernels/smith_waterman_core.hpp"

namespace gpp::kernels::detail {

namespace {

/// GATK Utils.lastIndexOf: last offset at which alt occurs in ref, or -1.
std::int64_t last_index_of(std::string_view ref, std::string_view alt) {
  if (alt.size() > ref.size()) return -1;
  for (std::int64_t r = static_cast<std::int64_t>(ref.size() - alt.size()); r >= 0; --r) {
    if (ref.compare(static_cast<std::size_t>(r), alt.size(), alt) == 0) return r;
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

}  // namespace

std::uint64_t smith_waterman_cpu(const SequencePairs& pairs, std::span<const std::uint32_t> indices,
                                 const SwParameters& parameters, OverhangStrategy strategy,
                                 std::span<PairResult> results) {
  oneapi::tbb::enumerable_thread_specific<Workspace> workspaces;
  oneapi::tbb::combinable<std::uint64_t> substring_pairs([] { return std::uint64_t{0}; });
  const bool substring_shortcut =
      strategy == OverhangStrategy::kSoftClip || strategy == OverhangStrategy::kIgnore;
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, indices.size(), 16),
      [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
        Workspace& ws = workspaces.local();
        for (std::size_t k = range.begin(); k != range.end(); ++k) {
          const std::uint32_t index = indices[k];
          const std::string_view ref = pairs.ref(index), alt = pairs.alt(index);
          PairResult& result = results[index];
          if (substring_shortcut) {
            // GATK skips the dynamic programming when alt occurs in ref.
            const std::int64_t at = last_index_of(ref, alt);
            if (at >= 0) {
              result.offset = static_cast<std::int32_t>(at);
              result.cigar.assign(
                  1, cigar_element(CigarOp::kMatch, static_cast<std::uint32_t>(alt.size())));
              ++substring_pairs.local();
              continue;
            }
          }
          align_pair(ref, alt, parameters, strategy, ws, result);
        }
      });
  return substring_pairs.combine([](std::uint64_t a, std::uint64_t b) { return a + b; });
}

}  // namespace gpp::kernels::detail
