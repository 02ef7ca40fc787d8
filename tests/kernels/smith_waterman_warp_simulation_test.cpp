// The GPU fill kernel's per-lane code (kernels/smith_waterman_wavefront.hpp) run on the host in a
// simulated warp — the shuffles, the 32-row input chunks of lane 0, the pass boundary buffer and
// the butterfly reduction done as the kernel does them — then traced back through the GPU's
// traceback layout. Checks the wavefront and layout on machines without a GPU: the result must
// equal the CPU backend's for every pair.
#include <gtest/gtest.h>

#include <climits>
#include <utility>
#include <vector>

#include "kernels/smith_waterman.hpp"
#include "kernels/smith_waterman_core.hpp"
#include "kernels/smith_waterman_wavefront.hpp"
#include "tests/kernels/sw_test_pairs.hpp"

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
  const SwAlignments cpu = smith_waterman(pairs, p, s, Backend::kCpu);
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
