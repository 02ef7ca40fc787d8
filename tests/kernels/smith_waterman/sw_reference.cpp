#include "tests/kernels/smith_waterman/sw_reference.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

namespace gpp::test {

namespace {

using kernels::OverhangStrategy;

// Java int arithmetic wraps; so does this.
std::int32_t add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

struct Element {
  char op;
  std::int64_t length;
};

std::string consolidate(const std::vector<Element>& elements) {
  std::vector<Element> merged;
  for (const Element& e : elements) {
    if (e.length == 0) continue;
    if (!merged.empty() && merged.back().op == e.op) {
      merged.back().length += e.length;
    } else {
      merged.push_back(e);
    }
  }
  std::string text;
  for (const Element& e : merged) text += std::to_string(e.length) + e.op;
  return text.empty() ? "*" : text;
}

}  // namespace

ReferenceAlignment reference_smith_waterman(std::string_view ref, std::string_view alt,
                                            const kernels::SwParameters& p,
                                            OverhangStrategy strategy) {
  if (strategy == OverhangStrategy::kSoftClip || strategy == OverhangStrategy::kIgnore) {
    for (std::int64_t r =
             static_cast<std::int64_t>(ref.size()) - static_cast<std::int64_t>(alt.size());
         r >= 0; --r) {
      std::size_t q = 0;
      while (q < alt.size() && ref[static_cast<std::size_t>(r) + q] == alt[q]) ++q;
      if (q == alt.size()) return {static_cast<std::int32_t>(r), std::to_string(alt.size()) + "M"};
    }
  }
  const int nrow = static_cast<int>(ref.size()) + 1, ncol = static_cast<int>(alt.size()) + 1;
  std::vector<std::vector<std::int32_t>> sw(nrow, std::vector<std::int32_t>(ncol, 0));
  std::vector<std::vector<std::int32_t>> btrack(nrow, std::vector<std::int32_t>(ncol, 0));
  const std::int32_t cutoff = -100000000;
  const std::int32_t low = std::numeric_limits<std::int32_t>::min() / 2;
  std::vector<std::int32_t> best_gap_v(ncol + 1, low), gap_size_v(ncol + 1, 0);
  std::vector<std::int32_t> best_gap_h(nrow + 1, low), gap_size_h(nrow + 1, 0);
  if (strategy == OverhangStrategy::kIndel || strategy == OverhangStrategy::kLeadingIndel) {
    std::int32_t v = p.gap_open;
    sw[0][1] = v;
    for (int j = 2; j < ncol; ++j) sw[0][j] = v = add(v, p.gap_extend);
    v = p.gap_open;
    sw[1][0] = v;
    for (int i = 2; i < nrow; ++i) sw[i][0] = v = add(v, p.gap_extend);
  }
  for (int i = 1; i < nrow; ++i) {
    for (int j = 1; j < ncol; ++j) {
      const std::int32_t step_diag =
          add(sw[i - 1][j - 1], ref[i - 1] == alt[j - 1] ? p.match : p.mismatch);
      std::int32_t prev_gap = add(sw[i - 1][j], p.gap_open);
      best_gap_v[j] = add(best_gap_v[j], p.gap_extend);
      if (prev_gap > best_gap_v[j]) {
        best_gap_v[j] = prev_gap;
        gap_size_v[j] = 1;
      } else {
        gap_size_v[j]++;
      }
      const std::int32_t step_down = best_gap_v[j], kd = gap_size_v[j];
      prev_gap = add(sw[i][j - 1], p.gap_open);
      best_gap_h[i] = add(best_gap_h[i], p.gap_extend);
      if (prev_gap > best_gap_h[i]) {
        best_gap_h[i] = prev_gap;
        gap_size_h[i] = 1;
      } else {
        gap_size_h[i]++;
      }
      const std::int32_t step_right = best_gap_h[i], ki = gap_size_h[i];
      if (step_diag >= step_down && step_diag >= step_right) {
        sw[i][j] = std::max(cutoff, step_diag);
        btrack[i][j] = 0;
      } else if (step_right >= step_down) {
        sw[i][j] = std::max(cutoff, step_right);
        btrack[i][j] = -ki;
      } else {
        sw[i][j] = std::max(cutoff, step_down);
        btrack[i][j] = kd;
      }
    }
  }

  int p1 = 0, p2 = 0;
  const int ref_length = nrow - 1, alt_length = ncol - 1;
  std::int64_t segment_length = 0;
  if (strategy == OverhangStrategy::kIndel) {
    p1 = ref_length;
    p2 = alt_length;
  } else {
    std::int32_t max_score = std::numeric_limits<std::int32_t>::min();
    p2 = alt_length;
    for (int i = 1; i < nrow; ++i) {
      if (sw[i][alt_length] >= max_score) {
        p1 = i;
        max_score = sw[i][alt_length];
      }
    }
    if (strategy != OverhangStrategy::kLeadingIndel) {
      for (int j = 1; j < ncol; ++j) {
        const std::int32_t s = sw[ref_length][j];
        if (s > max_score || (s == max_score && std::abs(ref_length - j) < std::abs(p1 - p2))) {
          p1 = ref_length;
          p2 = j;
          max_score = s;
          segment_length = alt_length - j;
        }
      }
    }
  }
  std::vector<Element> lce;
  if (segment_length > 0 && strategy == OverhangStrategy::kSoftClip) {
    lce.push_back({'S', segment_length});
    segment_length = 0;
  }
  char state = 'M';
  do {
    const std::int32_t btr = btrack[p1][p2];
    char new_state;
    std::int32_t step_length = 1;
    if (btr > 0) {
      new_state = 'D';
      step_length = btr;
    } else if (btr < 0) {
      new_state = 'I';
      step_length = -btr;
    } else {
      new_state = 'M';
    }
    if (new_state == 'M') {
      --p1;
      --p2;
    } else if (new_state == 'I') {
      p2 -= step_length;
    } else {
      p1 -= step_length;
    }
    if (new_state == state) {
      segment_length += step_length;
    } else {
      lce.push_back({state, segment_length});
      segment_length = step_length;
      state = new_state;
    }
  } while (p1 > 0 && p2 > 0);

  std::int32_t offset;
  if (strategy == OverhangStrategy::kSoftClip) {
    lce.push_back({state, segment_length});
    if (p2 > 0) lce.push_back({'S', p2});
    offset = p1;
  } else if (strategy == OverhangStrategy::kIgnore) {
    lce.push_back({state, segment_length + p2});
    offset = p1 - p2;
  } else {
    lce.push_back({state, segment_length});
    if (p1 > 0) {
      lce.push_back({'D', p1});
    } else if (p2 > 0) {
      lce.push_back({'I', p2});
    }
    offset = 0;
  }
  std::reverse(lce.begin(), lce.end());
  return {offset, consolidate(lce)};
}

}  // namespace gpp::test
