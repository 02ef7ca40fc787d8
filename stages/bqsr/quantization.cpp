// Quality quantization; see quantization.hpp.
#include "stages/bqsr/quantization.hpp"

#include <algorithm>
#include <cmath>

#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

/// One QualInterval: a leaf (one quality, fixed qual) or the merge of two intervals.
struct Interval {
  int q_start = 0;
  int q_end = 0;
  std::int64_t observations = 0;
  std::int64_t errors = 0;
  int fixed_qual = -1;
  int left = -1;  ///< children (indices into the node pool); -1 for a leaf
  int right = -1;
};

double error_rate(const Interval& interval) {
  if (interval.fixed_qual != -1) return qual_to_error_prob(interval.fixed_qual);
  if (interval.observations == 0) return 0.0;
  return static_cast<double>(interval.errors + 1) /
         (1.0 * static_cast<double>(interval.observations + 1));
}

/// QualityUtils.errorProbToQual: round(-10 log10(p)) bounded to 1..93.
int error_prob_to_qual(double rate) {
  // A rate of 0 gives +infinity, which Java's (int) cast saturates: the bound then gives 93.
  const double d = std::floor(-10.0 * std::log10(rate) + 0.5);
  return static_cast<int>(std::max(std::min(d, static_cast<double>(kMaxRecalibratedQ)), 1.0));
}

double penalty(const std::vector<Interval>& pool, int node, double global_rate,
               int min_interesting_qual) {
  if (global_rate == 0.0) return 0.0;
  const Interval& interval = pool[static_cast<std::size_t>(node)];
  if (interval.left < 0) {
    if (interval.q_end <= min_interesting_qual) return 0.0;
    return std::fabs(std::log10(error_rate(interval)) - std::log10(global_rate)) *
           static_cast<double>(interval.observations);
  }
  double sum = 0.0;
  sum += penalty(pool, interval.left, global_rate, min_interesting_qual);
  sum += penalty(pool, interval.right, global_rate, min_interesting_qual);
  return sum;
}

}  // namespace

std::vector<int> quantize_qualities(const std::vector<std::int64_t>& histogram, int levels,
                                    int min_interesting_qual) {
  std::vector<Interval> pool;
  std::vector<int> roots;  // ordered by q_start
  for (int q = 0; q < static_cast<int>(histogram.size()); ++q) {
    const double errors =
        static_cast<double>(histogram[static_cast<std::size_t>(q)]) * qual_to_error_prob(q);
    pool.push_back({q, q, histogram[static_cast<std::size_t>(q)],
                    static_cast<std::int64_t>(static_cast<int>(std::floor(errors))), q, -1, -1});
    roots.push_back(q);
  }
  while (static_cast<int>(roots.size()) > levels) {
    int best = -1;
    double best_penalty = 0.0;
    Interval best_merged;
    for (std::size_t k = 0; k + 1 < roots.size(); ++k) {
      const Interval& left = pool[static_cast<std::size_t>(roots[k])];
      const Interval& right = pool[static_cast<std::size_t>(roots[k + 1])];
      Interval merged{left.q_start,
                      right.q_end,
                      left.observations + right.observations,
                      left.errors + right.errors,
                      -1,
                      roots[k],
                      roots[k + 1]};
      pool.push_back(merged);
      const double p = penalty(pool, static_cast<int>(pool.size()) - 1, error_rate(merged),
                               min_interesting_qual);
      pool.pop_back();
      if (best < 0 || p < best_penalty) {
        best = static_cast<int>(k);
        best_penalty = p;
        best_merged = merged;
      }
    }
    pool.push_back(best_merged);
    roots[static_cast<std::size_t>(best)] = static_cast<int>(pool.size()) - 1;
    roots.erase(roots.begin() + best + 1);
  }
  std::vector<int> map(histogram.size(), 0);
  for (const int root : roots) {
    const Interval& interval = pool[static_cast<std::size_t>(root)];
    const int qual =
        interval.fixed_qual != -1 ? interval.fixed_qual : error_prob_to_qual(error_rate(interval));
    for (int q = interval.q_start; q <= interval.q_end; ++q)
      map[static_cast<std::size_t>(q)] = qual;
  }
  return map;
}

std::vector<int> static_quantization_map(std::vector<int> quals, bool round_down) {
  constexpr int kMaxQual = 254;  // QualityUtils.MAX_QUAL
  std::vector<int> mapping(kMaxQual);
  for (int i = 0; i < kMaxQual; ++i) mapping[static_cast<std::size_t>(i)] = i;
  if (quals.empty()) return mapping;
  std::sort(quals.begin(), quals.end());
  if (quals.size() == 1) {
    for (int i = kMinUsableQ; i < kMaxQual; ++i) mapping[static_cast<std::size_t>(i)] = quals[0];
    return mapping;
  }
  auto qual_to_prob = [](int q) { return 1.0 - qual_to_error_prob(q); };
  int previous = kMinUsableQ;
  double previous_prob = qual_to_prob(previous);
  for (const int next : quals) {
    const double next_prob = qual_to_prob(next);
    for (int i = previous; i < next; ++i) {
      if (round_down) {
        mapping[static_cast<std::size_t>(i)] = previous;
      } else {
        const double prob = qual_to_prob(i);
        mapping[static_cast<std::size_t>(i)] =
            (prob - previous_prob > next_prob - prob) ? next : previous;
      }
    }
    previous = next;
    previous_prob = next_prob;
  }
  for (int i = previous; i < kMaxQual; ++i) mapping[static_cast<std::size_t>(i)] = previous;
  return mapping;
}

}  // namespace gpp::stages::bqsr
