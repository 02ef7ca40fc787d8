// RunMerge: the stable merge of k sorted runs, as a tournament of losers (Knuth, TAOCP vol. 3,
// 5.4.1): which run holds the record that comes next, with log2(k) comparisons per record.
//
// The order is stable: heads that compare equal come from the lower-numbered run first, so
// merging runs made from consecutive pieces of an input gives exactly the order of one stable
// sort of the whole input (samtools sort's order, and the order of the in-memory paths). The
// runs themselves (files, blocks, cursors) belong to the caller; RunMerge only sees run numbers
// and compares their heads through `compare`.
//
// @code
//   // compare(a, b): < 0, 0 or > 0 as run a's head record sorts before, with, or after run b's.
//   stages::sort::RunMerge merge(runs.size(), [&](std::size_t r) { return !runs[r].empty(); },
//                                [&](std::size_t a, std::size_t b) { return key(a) <=> key(b); });
//   while (!merge.empty()) {
//     const std::size_t r = merge.top();
//     take(runs[r]);                        // its head record is the next in merged order
//     merge.advanced(runs[r].next());       // false once run r has nothing more
//   }
// @endcode
#pragma once

#include <compare>
#include <cstddef>
#include <utility>
#include <vector>

namespace gpp::stages::sort {

template <typename Compare>
class RunMerge {
 public:
  /// `runs` runs; `has_head(r)` says whether run r has a record at the start.
  template <typename HasHead>
  RunMerge(std::size_t runs, HasHead has_head, Compare compare)
      : compare_(std::move(compare)), runs_(runs), active_(runs), node_(runs > 0 ? runs : 1) {
    for (std::size_t r = 0; r < runs; ++r) active_[r] = has_head(r);
    if (runs == 0) return;
    // Leaves are nodes runs .. 2 runs - 1 (run r at runs + r); internal node n has children 2n
    // and 2n + 1 and keeps the loser of their match; node_[0] keeps the overall winner.
    std::vector<std::size_t> winner(2 * runs);
    for (std::size_t r = 0; r < runs; ++r) winner[runs + r] = r;
    for (std::size_t n = runs - 1; n >= 1; --n) {
      std::size_t a = winner[2 * n];
      std::size_t b = winner[2 * n + 1];
      if (before(b, a)) std::swap(a, b);
      winner[n] = a;
      node_[n] = b;
    }
    node_[0] = runs == 1 ? 0 : winner[1];
  }

  /// True when every run is spent.
  bool empty() const { return runs_ == 0 || !active_[node_[0]]; }
  /// The run whose head record comes next (only while !empty()).
  std::size_t top() const { return node_[0]; }
  /// Run top()'s head was taken; `has_head` says whether the run has another record.
  void advanced(bool has_head) {
    std::size_t winner = node_[0];
    active_[winner] = has_head;
    for (std::size_t n = (runs_ + winner) / 2; n >= 1; n /= 2) {
      if (before(node_[n], winner)) std::swap(node_[n], winner);
    }
    node_[0] = winner;
  }

 private:
  // Run a's head comes before run b's: spent runs last, ties to the lower run.
  bool before(std::size_t a, std::size_t b) {
    if (active_[a] != active_[b]) return active_[a] != 0;
    if (!active_[a]) return a < b;
    const auto order = compare_(a, b);
    return order < 0 || (order == 0 && a < b);
  }

  Compare compare_;
  std::size_t runs_;
  std::vector<char> active_;
  std::vector<std::size_t> node_;
};

template <typename HasHead, typename Compare>
RunMerge(std::size_t, HasHead, Compare) -> RunMerge<Compare>;

}  // namespace gpp::stages::sort
