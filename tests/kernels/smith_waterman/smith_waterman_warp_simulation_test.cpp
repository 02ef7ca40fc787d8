// The GPU fill kernel's per-lane code (kernels/smith_waterman_wavefront.hpp) run on the host in a
// simulated warp — the shuffles, the 32-row input chunks of lane 0, the pass boundary buffer and
// the butterfly reduction done as the kernel does them — then traced back through the GPU's
// traceback layout. Checks the wavefront and layout on machines without a GPU: the result must
// equal the CPU backend's for every pair.
#include <gtest/gtest.h>

#include <array>
#include <climits>
#include <utility>
#include <vector>

#include "kernels/smith_waterman/detail/smith_waterman_core.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_dual_wavefront.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_wavefront.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"
#include "tests/kernels/smith_waterman/sw_test_pairs.hpp"

namespace gpp::kernels {
namespace {

using sw::LaneColumns;
using sw::WavefrontParameters;
constexpr int kNoColumn = INT_MAX;

struct Simulated {
  std::int32_t offset;
  std::string cigar;
};

// The kernel's warp_last_index_of: 32 candidate offsets per round, the lowest lane wins.
int warp_last_index_of(std::string_view ref, std::string_view alt) {
  const int n = static_cast<int>(ref.size()), m = static_cast<int>(alt.size());
  for (int top = n - m; top >= 0; top -= 32) {
    for (int lane = 0; lane < 32; ++lane) {
      const int r = top - lane;
      if (r >= 0 && ref.substr(static_cast<std::size_t>(r), alt.size()) == alt) return r;
    }
  }
  return -1;
}

template <int R>
Simulated simulate(std::string_view ref_text, std::string_view alt_text,
                   const WavefrontParameters& wp) {
  const auto* ref = reinterpret_cast<const std::uint8_t*>(ref_text.data());
  const auto* alt = reinterpret_cast<const std::uint8_t*>(alt_text.data());
  const int n = static_cast<int>(ref_text.size()), m = static_cast<int>(alt_text.size());
  EXPECT_TRUE(sw::gpu_values_bounded(n, m, {wp.match, wp.mismatch, wp.open, wp.extend}));
  if (wp.strategy == OverhangStrategy::kSoftClip || wp.strategy == OverhangStrategy::kIgnore) {
    const int at = warp_last_index_of(ref_text, alt_text);
    if (at >= 0) return {at, std::to_string(m) + "M"};
  }
  constexpr int kPassWidth = 32 * R;
  const int passes = (m + kPassWidth - 1) / kPassWidth;
  const int steps = n + 31;
  std::vector<std::uint32_t> words(static_cast<std::size_t>(passes) * steps * 32, 0xDEADBEEF);
  EXPECT_EQ(words.size(), sw::gpu_traceback_words(n, m));
  std::vector<std::pair<int, int>> boundary(static_cast<std::size_t>(n) + 1,
                                            {0x5A5A5A5A, 0x5A5A5A5A});

  int bottom_score[32], bottom_j[32], column_score[32], column_i[32];
  for (int l = 0; l < 32; ++l) {
    bottom_score[l] = INT_MIN;
    bottom_j[l] = kNoColumn;
    column_score[l] = INT_MIN;
    column_i[l] = 0;
  }
  const int last_column = m - 1 - (passes - 1) * kPassWidth;
  const int column_lane = last_column / R, column_r = last_column - column_lane * R;
  std::vector<LaneColumns<R>> lanes(32);
  for (int pass = 0; pass < passes; ++pass) {
    const bool last_pass = pass == passes - 1;
    const bool track = last_pass && wp.strategy != OverhangStrategy::kIndel;
    for (int l = 0; l < 32; ++l) {
      sw::lane_begin_pass(lanes[l], alt, m, pass * kPassWidth + l * R + 1,
                          track && l == column_lane ? column_r : -1, wp);
    }
    int chunk_base[32] = {}, chunk_h[32] = {}, chunk_insertion[32] = {};
    for (int t = 0; t < steps; ++t) {
      if ((t & 31) == 0) {
        for (int k = 0; k < 32; ++k) {
          const int row = t + 1 + k;
          if (row <= n) {
            chunk_base[k] = ref[row - 1];
            if (pass > 0)
              std::tie(chunk_h[k], chunk_insertion[k]) = boundary[static_cast<std::size_t>(row)];
          }
        }
      }
      int sent_h[32], sent_insertion[32],
          sent_base[32];  // __shfl_up_sync reads before anyone writes
      for (int l = 0; l < 32; ++l) {
        sent_h[l] = lanes[l].out_h;
        sent_insertion[l] = lanes[l].out_insertion;
        sent_base[l] = lanes[l].out_base;
      }
      for (int l = 0; l < 32; ++l) {
        int in_h, in_insertion, in_base;
        if (l == 0) {
          in_base = chunk_base[t & 31];
          in_h = pass == 0 ? sw::first_column_h(t + 1, wp) : chunk_h[t & 31];
          in_insertion = pass == 0 ? sw::kLowInitValue : chunk_insertion[t & 31];
        } else {
          in_h = sent_h[l - 1];
          in_insertion = sent_insertion[l - 1];
          in_base = sent_base[l - 1];
        }
        const int i = t - l + 1;
        const std::uint32_t word =
            sw::lane_step<true>(lanes[l], i, n, in_h, in_insertion, in_base, wp);
        if (track && i >= 1 && i <= n) {
          sw::lane_track_column(lanes[l], i, column_score[l], column_i[l]);
        }
        if (!last_pass && l == 31 && i >= 1 && i <= n) {
          boundary[static_cast<std::size_t>(i)] = {lanes[l].out_h, lanes[l].out_insertion};
        }
        words[(static_cast<std::size_t>(pass) * steps + t) * 32 + l] = word;
      }
    }
    for (int l = 0; l < 32; ++l) {
      sw::lane_bottom_row(lanes[l], pass * kPassWidth + l * R + 1, n, m, bottom_score[l],
                          bottom_j[l], kNoColumn);
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {  // __shfl_xor_sync butterfly
    int score[32], j[32];
    for (int l = 0; l < 32; ++l) {
      score[l] = bottom_score[l ^ offset];
      j[l] = bottom_j[l ^ offset];
    }
    for (int l = 0; l < 32; ++l) {
      if (j[l] != kNoColumn &&
          (bottom_j[l] == kNoColumn ||
           sw::bottom_cell_wins(score[l], j[l], bottom_score[l], bottom_j[l], n))) {
        bottom_score[l] = score[l];
        bottom_j[l] = j[l];
      }
    }
  }
  sw::PathEnds ends;
  sw::choose_end_cell(wp.strategy, n, m, column_score[column_lane], column_i[column_lane],
                      bottom_score[0], bottom_j[0], ends.end_p1, ends.end_p2);

  std::vector<std::uint32_t> runs;  // as sw_traceback_kernel does it
  int p1 = ends.end_p1, p2 = ends.end_p2;
  const std::uint32_t* data = words.data();
  const auto code_at = [&](int i, int j) {
    EXPECT_TRUE(i >= 1 && i <= n && j >= 1 && j <= m) << i << "," << j;
    return sw::gpu_code_at(data, n, R, i, j);
  };
  sw::trace_back(code_at, p1, p2, [&](CigarOp op, std::uint32_t length) {
    if (!runs.empty() && cigar_op(runs.back()) == op) {
      runs.back() += length << 4;
    } else {
      runs.push_back(cigar_element(op, length));
    }
  });
  EXPECT_LE(runs.size(), static_cast<std::size_t>(n + m));
  ends.last_p1 = p1;
  ends.last_p2 = p2;
  CigarBuilder cigar;
  const std::int32_t offset = sw::finish_alignment(wp.strategy, m, ends, runs, cigar);
  return {offset, cigar_to_string({cigar.data(), cigar.size()})};
}

Simulated simulate_pair(std::string_view ref, std::string_view alt, const WavefrontParameters& wp) {
  switch (sw::gpu_shape(static_cast<std::int32_t>(alt.size())).columns_per_lane) {
    case 1:
      return simulate<1>(ref, alt, wp);
    case 2:
      return simulate<2>(ref, alt, wp);
    case 3:
      return simulate<3>(ref, alt, wp);
    case 4:
      return simulate<4>(ref, alt, wp);
    case 5:
      return simulate<5>(ref, alt, wp);
    case 6:
      return simulate<6>(ref, alt, wp);
    case 7:
      return simulate<7>(ref, alt, wp);
    default:
      return simulate<8>(ref, alt, wp);
  }
}

void expect_simulation_equals_cpu(const SequencePairs& pairs, const SwParameters& p,
                                  OverhangStrategy s) {
  const SwAlignments cpu = SmithWaterman(Backend::kCpu).align(pairs, p, s);
  const WavefrontParameters wp{p.match, p.mismatch, p.gap_open, p.gap_extend, s};
  int failures = 0;
  for (std::size_t i = 0; i < pairs.size() && failures < 5; ++i) {
    const Simulated sim = simulate_pair(pairs.ref(i), pairs.alt(i), wp);
    if (sim.offset != cpu.offset(i) || sim.cigar != cigar_to_string(cpu.cigar(i))) {
      ++failures;
      ADD_FAILURE() << overhang_strategy_name(s) << " " << p.match << "/" << p.mismatch << " pair "
                    << i << " (" << pairs.ref(i).size() << "x" << pairs.alt(i).size() << "): warp "
                    << sim.offset << " " << sim.cigar << ", cpu " << cpu.offset(i) << " "
                    << cigar_to_string(cpu.cigar(i));
    }
  }
}

// ---- The 16-bit kernel: two pairs of one ref length and shape per warp

/// The CIGAR from a traceback, as sw_traceback_kernel and finish_alignment make it.
template <typename CodeAt>
Simulated trace(const CodeAt& code_at, OverhangStrategy strategy, int n, int m, sw::PathEnds ends) {
  std::vector<std::uint32_t> runs;
  int p1 = ends.end_p1, p2 = ends.end_p2;
  sw::trace_back(
      [&](int i, int j) {
        EXPECT_TRUE(i >= 1 && i <= n && j >= 1 && j <= m) << i << "," << j;
        return code_at(i, j);
      },
      p1, p2,
      [&](CigarOp op, std::uint32_t length) {
        if (!runs.empty() && cigar_op(runs.back()) == op) {
          runs.back() += length << 4;
        } else {
          runs.push_back(cigar_element(op, length));
        }
      });
  ends.last_p1 = p1;
  ends.last_p2 = p2;
  CigarBuilder cigar;
  const std::int32_t offset = sw::finish_alignment(strategy, m, ends, runs, cigar);
  return {offset, cigar_to_string({cigar.data(), cigar.size()})};
}

/// sw_dual_fill_kernel on the host: pair 0 in the low halves, pair 1 in the high halves.
template <int R>
std::array<Simulated, 2> simulate_dual(const std::array<std::string_view, 2>& ref_text,
                                       const std::array<std::string_view, 2>& alt_text,
                                       const WavefrontParameters& wp) {
  const sw::DualParameters dp = sw::dual_parameters(wp);
  const int n = static_cast<int>(ref_text[0].size());
  const std::uint8_t* refs[2];
  const std::uint8_t* alts[2];
  int m[2];
  std::array<Simulated, 2> result;
  int substring[2] = {-1, -1};
  for (int half = 0; half < 2; ++half) {
    refs[half] = reinterpret_cast<const std::uint8_t*>(ref_text[half].data());
    alts[half] = reinterpret_cast<const std::uint8_t*>(alt_text[half].data());
    m[half] = static_cast<int>(alt_text[half].size());
    EXPECT_EQ(static_cast<int>(ref_text[half].size()), n);
    EXPECT_TRUE(sw::gpu_dual_values_fit(n, m[half], {wp.match, wp.mismatch, wp.open, wp.extend},
                                        wp.strategy));
    if (wp.strategy == OverhangStrategy::kSoftClip || wp.strategy == OverhangStrategy::kIgnore) {
      substring[half] = warp_last_index_of(ref_text[half], alt_text[half]);
      result[static_cast<std::size_t>(half)] = {substring[half], std::to_string(m[half]) + "M"};
    }
  }
  if (substring[0] >= 0 && substring[1] >= 0) return result;
  constexpr int kPassWidth = 32 * R;
  const int passes = (m[0] + kPassWidth - 1) / kPassWidth;
  EXPECT_EQ(passes, (m[1] + kPassWidth - 1) / kPassWidth);
  const int steps = n + 31;
  std::vector<sw::DualStepWord> words(static_cast<std::size_t>(passes) * steps * 32,
                                      sw::DualStepWord{0xDEADBEEF, 0xDEADBEEF});
  EXPECT_EQ(2 * words.size(), 2 * sw::gpu_traceback_words(n, m[0]));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> boundary(static_cast<std::size_t>(n) + 1,
                                                                {0x5A5A5A5A, 0x5A5A5A5A});

  int bottom_score[2][32], bottom_j[2][32], column_lane[2], column_r[2];
  for (int half = 0; half < 2; ++half) {
    for (int l = 0; l < 32; ++l) {
      bottom_score[half][l] = INT_MIN;
      bottom_j[half][l] = kNoColumn;
    }
    const int last_column = m[half] - 1 - (passes - 1) * kPassWidth;
    column_lane[half] = last_column / R;
    column_r[half] = last_column - column_lane[half] * R;
  }
  std::vector<sw::DualColumnTracker> trackers(32);
  std::vector<sw::DualLaneColumns<R>> lanes(32);
  for (int pass = 0; pass < passes; ++pass) {
    const bool last_pass = pass == passes - 1;
    const bool track = last_pass && wp.strategy != OverhangStrategy::kIndel;
    for (int l = 0; l < 32; ++l) {
      const int lane_column_r[2] = {track && l == column_lane[0] ? column_r[0] : -1,
                                    track && l == column_lane[1] ? column_r[1] : -1};
      sw::dual_lane_begin_pass(lanes[l], alts, m, pass * kPassWidth + l * R + 1, lane_column_r, dp);
    }
    std::uint32_t chunk_base[32] = {}, chunk_h[32] = {}, chunk_insertion[32] = {};
    for (int t = 0; t < steps; ++t) {
      if ((t & 31) == 0) {
        for (int k = 0; k < 32; ++k) {
          const int row = t + 1 + k;
          if (row <= n) {
            chunk_base[k] = sw::dual_bases(refs[0][row - 1], refs[1][row - 1]);
            if (pass > 0)
              std::tie(chunk_h[k], chunk_insertion[k]) = boundary[static_cast<std::size_t>(row)];
          }
        }
      }
      std::uint32_t sent_h[32], sent_insertion[32], sent_base[32];
      for (int l = 0; l < 32; ++l) {
        sent_h[l] = lanes[l].out_h;
        sent_insertion[l] = lanes[l].out_insertion;
        sent_base[l] = lanes[l].out_base;
      }
      for (int l = 0; l < 32; ++l) {
        std::uint32_t in_h, in_insertion, in_base;
        if (l == 0) {
          in_base = chunk_base[t & 31];
          in_h = pass == 0 ? sw::dual_border(t + 1, dp) : chunk_h[t & 31];
          in_insertion = pass == 0 ? dp.low_init : chunk_insertion[t & 31];
        } else {
          in_h = sent_h[l - 1];
          in_insertion = sent_insertion[l - 1];
          in_base = sent_base[l - 1];
        }
        const int i = t - l + 1;
        const sw::DualStepWord word =
            sw::dual_lane_step<true>(lanes[l], i, n, in_h, in_insertion, in_base, dp);
        if (track && i >= 1 && i <= n) sw::dual_lane_track_column(lanes[l], i, trackers[l]);
        if (!last_pass && l == 31 && i >= 1 && i <= n) {
          boundary[static_cast<std::size_t>(i)] = {lanes[l].out_h, lanes[l].out_insertion};
        }
        words[(static_cast<std::size_t>(pass) * steps + t) * 32 + l] = word;
      }
    }
    for (int l = 0; l < 32; ++l) {
      int score[2] = {bottom_score[0][l], bottom_score[1][l]},
          j[2] = {bottom_j[0][l], bottom_j[1][l]};
      sw::dual_lane_bottom_row(lanes[l], pass * kPassWidth + l * R + 1, n, m, score, j, kNoColumn);
      for (int half = 0; half < 2; ++half) {
        bottom_score[half][l] = score[half];
        bottom_j[half][l] = j[half];
      }
    }
  }
  const auto* data = reinterpret_cast<const std::uint32_t*>(words.data());
  for (int half = 0; half < 2; ++half) {
    if (substring[half] >= 0) continue;
    int best_score = INT_MIN, best_j = kNoColumn;  // the butterfly's result: the best of all lanes
    for (int l = 0; l < 32; ++l) {
      const int score = bottom_score[half][l], j = bottom_j[half][l];
      if (j != kNoColumn &&
          (best_j == kNoColumn || sw::bottom_cell_wins(score, j, best_score, best_j, n))) {
        best_score = score;
        best_j = j;
      }
    }
    const std::uint32_t key = trackers[static_cast<std::size_t>(column_lane[half])].key[half];
    sw::PathEnds ends;
    sw::choose_end_cell(wp.strategy, n, m[half], sw::tracked_score(key), sw::tracked_row(key),
                        best_score, best_j, ends.end_p1, ends.end_p2);
    result[static_cast<std::size_t>(half)] =
        trace([&](int i, int j) { return sw::gpu_dual_code_at(data, n, R, half, i, j); },
              wp.strategy, n, m[half], ends);
  }
  return result;
}

std::array<Simulated, 2> simulate_dual_pairs(const std::array<std::string_view, 2>& refs,
                                             const std::array<std::string_view, 2>& alts,
                                             const WavefrontParameters& wp) {
  switch (sw::gpu_shape(static_cast<std::int32_t>(alts[0].size())).columns_per_lane) {
    case 1:
      return simulate_dual<1>(refs, alts, wp);
    case 2:
      return simulate_dual<2>(refs, alts, wp);
    case 3:
      return simulate_dual<3>(refs, alts, wp);
    case 4:
      return simulate_dual<4>(refs, alts, wp);
    case 5:
      return simulate_dual<5>(refs, alts, wp);
    case 6:
      return simulate_dual<6>(refs, alts, wp);
    case 7:
      return simulate_dual<7>(refs, alts, wp);
    default:
      return simulate_dual<8>(refs, alts, wp);
  }
}

/// A partner for pair (ref, alt) in a 16-bit warp: `other`'s sequences cut or stretched to the
/// same ref length and to an alt length of the same shape (a few columns shorter where possible).
std::pair<std::string, std::string> partner(std::string_view ref, std::string_view alt,
                                            std::string_view other_ref, std::string_view other_alt,
                                            int shorter) {
  const auto stretch = [](std::string text, std::string_view filler, std::size_t size) {
    if (text.empty()) text = "ACGT";
    while (text.size() < size) text += std::string(filler) + text;
    text.resize(size);
    return text;
  };
  std::size_t m = alt.size();
  const sw::GpuShape shape = sw::gpu_shape(static_cast<std::int32_t>(m));
  if (static_cast<int>(m) > shorter) {
    const sw::GpuShape s = sw::gpu_shape(static_cast<std::int32_t>(m) - shorter);
    if (s.columns_per_lane == shape.columns_per_lane && s.passes == shape.passes) m -= shorter;
  }
  return {stretch(std::string(other_ref), "TTGCA", ref.size()),
          stretch(std::string(other_alt), std::string(ref), m)};
}

/// Runs every pair of `pairs` that fits 16 bits through the 16-bit warp simulation, once in each
/// half (its partner in the other), against the CPU backend; returns how many pairs it ran.
int expect_dual_simulation_equals_cpu(const SequencePairs& pairs, const SwParameters& p,
                                      OverhangStrategy s) {
  SequencePairs warps;  // pairs 2k and 2k + 1 share a warp
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::size_t other = (i * 7 + 3) % pairs.size();
    const auto [ref, alt] = partner(pairs.ref(i), pairs.alt(i), pairs.ref(other), pairs.alt(other),
                                    static_cast<int>(i % 5));
    const bool fits =
        sw::gpu_dual_values_fit(static_cast<std::int32_t>(pairs.ref(i).size()),
                                static_cast<std::int32_t>(pairs.alt(i).size()), p, s) &&
        sw::gpu_dual_values_fit(static_cast<std::int32_t>(ref.size()),
                                static_cast<std::int32_t>(alt.size()), p, s);
    if (!fits) continue;
    if (i % 2 == 0) {
      warps.add(pairs.ref(i), pairs.alt(i));
      warps.add(ref, alt);
    } else {
      warps.add(ref, alt);
      warps.add(pairs.ref(i), pairs.alt(i));
    }
  }
  const SwAlignments cpu = SmithWaterman(Backend::kCpu).align(warps, p, s);
  const WavefrontParameters wp{p.match, p.mismatch, p.gap_open, p.gap_extend, s};
  int failures = 0;
  for (std::size_t w = 0; w + 1 < warps.size() && failures < 5; w += 2) {
    const auto sim =
        simulate_dual_pairs({warps.ref(w), warps.ref(w + 1)}, {warps.alt(w), warps.alt(w + 1)}, wp);
    for (std::size_t half = 0; half < 2; ++half) {
      const std::size_t i = w + half;
      if (sim[half].offset != cpu.offset(i) || sim[half].cigar != cigar_to_string(cpu.cigar(i))) {
        ++failures;
        ADD_FAILURE() << overhang_strategy_name(s) << " " << p.match << "/" << p.mismatch
                      << " pair " << i << " (half " << half << ", " << warps.ref(i).size() << "x"
                      << warps.alt(i).size() << "): warp " << sim[half].offset << " "
                      << sim[half].cigar << ", cpu " << cpu.offset(i) << " "
                      << cigar_to_string(cpu.cigar(i));
      }
    }
  }
  return static_cast<int>(warps.size());
}

TEST(SmithWatermanWarpSimulation, SixteenBitBoundsFollowTheParameters) {
  for (OverhangStrategy s : test::all_strategies()) {
    // Read-to-haplotype pairs of any length up to 1,000 x 1,000 fit.
    EXPECT_TRUE(sw::gpu_dual_values_fit(1000, 1000, kSwReadToHaplotype, s));
    EXPECT_TRUE(sw::gpu_dual_values_fit(600, 250, kSwReadToHaplotype, s));
    // Haplotype-to-reference scores: match - mismatch = 350 is more than a base XOR's 256.
    EXPECT_FALSE(sw::gpu_dual_values_fit(64, 64, kSwNewParameters, s));
    // Match 25: 16 bits hold 300 x 300 (at most 25 * 300), not 1,000 x 1,000.
    EXPECT_TRUE(sw::gpu_dual_values_fit(300, 300, kSwStandardNgs, s));
    EXPECT_FALSE(sw::gpu_dual_values_fit(1000, 1000, kSwStandardNgs, s));
    // Positive gap scores, match < mismatch, match - mismatch > 256: never.
    EXPECT_FALSE(sw::gpu_dual_values_fit(10, 10, {5, 7, 3, 1}, s));
    EXPECT_FALSE(sw::gpu_dual_values_fit(10, 10, {1, -300, -3, -1}, s));
    EXPECT_TRUE(sw::gpu_dual_values_fit(10, 10, {1, -255, -3, -1}, s));
  }
  // The lowest value: INDEL starts column 0 with gap scores, so its bound counts n and the padded
  // width (1,536 columns for m = 1,500: 6 passes of 256); SOFTCLIP only the width.
  EXPECT_TRUE(sw::gpu_dual_values_fit(1700, 1500, kSwReadToHaplotype, OverhangStrategy::kIndel));
  EXPECT_FALSE(sw::gpu_dual_values_fit(1800, 1500, kSwReadToHaplotype, OverhangStrategy::kIndel));
  EXPECT_TRUE(
      sw::gpu_dual_values_fit(60000, 1500, kSwReadToHaplotype, OverhangStrategy::kSoftClip));
  EXPECT_FALSE(
      sw::gpu_dual_values_fit(70000, 100, kSwReadToHaplotype, OverhangStrategy::kSoftClip));
}

TEST(SmithWatermanWarpSimulation, SixteenBitEqualsCpuOnRandomPairs) {
  const SequencePairs pairs = test::random_pairs(250, 700, 1234);
  for (const auto& p : test::gatk_parameter_sets()) {
    for (OverhangStrategy s : test::all_strategies()) {
      const int simulated = expect_dual_simulation_equals_cpu(pairs, p, s);
      if (p.match == kSwReadToHaplotype.match) {
        EXPECT_EQ(simulated, 2 * 250);
      }
    }
  }
}

TEST(SmithWatermanWarpSimulation, SixteenBitEqualsCpuAcrossPassBoundaries) {
  const SequencePairs seeds = test::random_pairs(64, 900, 4321);
  SequencePairs pairs;
  int k = 0;
  for (int m : {1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257, 258, 511, 512, 513, 767, 769, 800}) {
    for (int copy = 0; copy < 3; ++copy, ++k) {
      std::string ref(seeds.ref(static_cast<std::size_t>(k))),
          alt(seeds.alt(static_cast<std::size_t>(k)));
      while (static_cast<int>(alt.size()) < m) alt += ref + "ACGTTGCA";
      alt.resize(static_cast<std::size_t>(m));
      if (copy == 2) ref = alt.substr(0, alt.size() / 2) + ref;
      pairs.add(ref, alt);
    }
  }
  for (OverhangStrategy s : test::all_strategies()) {
    EXPECT_EQ(expect_dual_simulation_equals_cpu(pairs, kSwReadToHaplotype, s), 2 * 54);
    expect_dual_simulation_equals_cpu(pairs, kSwStandardNgs, s);
  }
}

TEST(SmithWatermanWarpSimulation, SixteenBitEqualsCpuAtTheEdgeOfItsRange) {
  // The largest INDEL pairs that fit, all mismatches (values fall to the lowest the bound allows)
  // and all matches (the highest), each beside the other in a warp.
  const std::string a(1700, 'A'), c(1500, 'C'), a_alt(1500, 'A'), g(1700, 'G');
  SequencePairs pairs;
  pairs.add(a, c);
  pairs.add(g, a_alt);
  for (OverhangStrategy s : test::all_strategies()) {
    if (!sw::gpu_dual_values_fit(1700, 1500, kSwReadToHaplotype, s)) continue;
    const SwAlignments cpu = SmithWaterman(Backend::kCpu).align(pairs, kSwReadToHaplotype, s);
    const WavefrontParameters wp{kSwReadToHaplotype.match, kSwReadToHaplotype.mismatch,
                                 kSwReadToHaplotype.gap_open, kSwReadToHaplotype.gap_extend, s};
    const auto sim =
        simulate_dual_pairs({pairs.ref(0), pairs.ref(1)}, {pairs.alt(0), pairs.alt(1)}, wp);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(sim[i].offset, cpu.offset(i)) << overhang_strategy_name(s) << " " << i;
      EXPECT_EQ(sim[i].cigar, cigar_to_string(cpu.cigar(i)))
          << overhang_strategy_name(s) << " " << i;
    }
  }
}

TEST(SmithWatermanWarpSimulation, SixteenBitGoldenAlignerCases) {
  // Each case beside its reverse (same lengths), in both halves.
  int simulated = 0;
  for (const auto& c : test::load_aligner_cases()) {
    if (!sw::gpu_dual_values_fit(static_cast<std::int32_t>(c.ref.size()),
                                 static_cast<std::int32_t>(c.alt.size()), c.parameters, c.strategy))
      continue;
    const std::string ref_reversed(c.ref.rbegin(), c.ref.rend()),
        alt_reversed(c.alt.rbegin(), c.alt.rend());
    const WavefrontParameters wp{c.parameters.match, c.parameters.mismatch, c.parameters.gap_open,
                                 c.parameters.gap_extend, c.strategy};
    const auto low = simulate_dual_pairs({c.ref, ref_reversed}, {c.alt, alt_reversed}, wp);
    const auto high = simulate_dual_pairs({ref_reversed, c.ref}, {alt_reversed, c.alt}, wp);
    EXPECT_EQ(low[0].offset, c.offset) << c.ref << " " << c.alt;
    EXPECT_EQ(low[0].cigar, c.cigar) << c.ref << " " << c.alt;
    EXPECT_EQ(high[1].offset, c.offset) << c.ref << " " << c.alt;
    EXPECT_EQ(high[1].cigar, c.cigar) << c.ref << " " << c.alt;
    ++simulated;
  }
  EXPECT_GT(simulated, 0);
}

TEST(SmithWatermanWarpSimulation, GpuShapeCoversEveryColumnOnce) {
  for (int m = 1; m <= 3000; ++m) {
    const sw::GpuShape s = sw::gpu_shape(m);
    ASSERT_GE(s.columns_per_lane, 1);
    ASSERT_LE(s.columns_per_lane, sw::kMaxColumnsPerLane);
    ASSERT_GE(s.passes * 32 * s.columns_per_lane, m) << m;
    ASSERT_LT((s.passes - 1) * 32 * s.columns_per_lane, m) << m;  // no empty pass
  }
}

TEST(SmithWatermanWarpSimulation, EqualsCpuOnRandomPairs) {
  const SequencePairs pairs = test::random_pairs(250, 700, 1234);
  for (const auto& p : test::gatk_parameter_sets()) {
    for (OverhangStrategy s : test::all_strategies()) expect_simulation_equals_cpu(pairs, p, s);
  }
}

TEST(SmithWatermanWarpSimulation, EqualsCpuAcrossPassBoundaries) {
  // Alt lengths around multiples of 32 * R, where columns change lanes and passes.
  const SequencePairs seeds = test::random_pairs(64, 900, 4321);
  SequencePairs pairs;
  int k = 0;
  for (int m : {1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257, 258, 511, 512, 513, 767, 769, 800}) {
    for (int copy = 0; copy < 3; ++copy, ++k) {
      std::string ref(seeds.ref(static_cast<std::size_t>(k))),
          alt(seeds.alt(static_cast<std::size_t>(k)));
      while (static_cast<int>(alt.size()) < m) alt += ref + "ACGTTGCA";
      alt.resize(static_cast<std::size_t>(m));
      if (copy == 2) ref = alt.substr(0, alt.size() / 2) + ref;  // a long shared prefix
      pairs.add(ref, alt);
    }
  }
  for (const auto& p : test::gatk_parameter_sets()) {
    for (OverhangStrategy s : test::all_strategies()) expect_simulation_equals_cpu(pairs, p, s);
  }
}

TEST(SmithWatermanWarpSimulation, EqualsCpuOnLongPairs) {
  const SequencePairs pairs = test::random_pairs(4, 2000, 555, true);
  for (OverhangStrategy s : test::all_strategies())
    expect_simulation_equals_cpu(pairs, kSwNewParameters, s);
}

TEST(SmithWatermanWarpSimulation, GoldenAlignerCases) {
  for (const auto& c : test::load_aligner_cases()) {
    const Simulated sim =
        simulate_pair(c.ref, c.alt,
                      {c.parameters.match, c.parameters.mismatch, c.parameters.gap_open,
                       c.parameters.gap_extend, c.strategy});
    EXPECT_EQ(sim.offset, c.offset) << c.ref << " " << c.alt;
    EXPECT_EQ(sim.cigar, c.cigar) << c.ref << " " << c.alt;
  }
}

}  // namespace
}  // namespace gpp::kernels
