#include "stages/markdup/read_ends.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/parallel_select.hpp"
#include "core/prefetch.hpp"
#include "kernels/sort/sort_by_key.hpp"

namespace gpp::stages::markdup {

namespace {

std::int8_t orientation_byte(bool read1_reverse, bool read2_reverse) {
  if (read1_reverse) return read2_reverse ? kRR : kRF;
  return read2_reverse ? kFR : kFF;
}

// Picard's pair end from the waiting end of the first mate and the fragment end of the second
// (flags `second_flags`): read1 is the end with the smaller (reference, unclipped 5' position).
ReadEnd complete_pair(ReadEnd pair, const ReadEnd& fragment, std::uint16_t second_flags) {
  const bool reverse = second_flags & io::flag::kReverse;
  const bool first_reverse = pair.orientation == kR;
  pair.optical_orientation = (second_flags & io::flag::kFirstOfPair)
                                 ? orientation_byte(reverse, first_reverse)
                                 : orientation_byte(first_reverse, reverse);
  if (fragment.read1_ref > pair.read1_ref ||
      (fragment.read1_ref == pair.read1_ref && fragment.read1_coord >= pair.read1_coord)) {
    pair.read2_ref = fragment.read1_ref;
    pair.read2_coord = fragment.read1_coord;
    pair.read2_index = fragment.read1_index;
    pair.orientation = orientation_byte(first_reverse, reverse);
    // Same position, opposite directions: undefined by file order, so Picard fixes it to FR.
    if (pair.read2_ref == pair.read1_ref && pair.read2_coord == pair.read1_coord &&
        pair.orientation == kRF) {
      pair.orientation = kFR;
    }
  } else {
    pair.read2_ref = pair.read1_ref;
    pair.read2_coord = pair.read1_coord;
    pair.read2_index = pair.read1_index;
    pair.read1_ref = fragment.read1_ref;
    pair.read1_coord = fragment.read1_coord;
    pair.read1_index = fragment.read1_index;
    pair.orientation = orientation_byte(reverse, first_reverse);
  }
  pair.score = static_cast<std::int16_t>(pair.score + fragment.score);
  return pair;
}

// In coordinate order Picard stops at the first unplaced unmapped record (they come last): its
// position in `order`, or order.size() when there is none.
std::size_t first_unplaced_unmapped(const io::ReadBatch& reads,
                                    std::span<const std::uint32_t> order) {
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, order.size(), 1 << 14), order.size(),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r, std::size_t first) {
        for (std::size_t k = r.begin(); k < r.end() && k < first; ++k) {
          const std::size_t i = order[k];
          if ((reads.flag[i] & io::flag::kUnmapped) && reads.tid[i] == -1) return k;
        }
        return first;
      },
      [](std::size_t a, std::size_t b) { return std::min(a, b); });
}

// Fragment ends, one per primary mapped record of the first `stop` of `order`, in visiting
// order, into `fragments`, with their records into `fragment_record`.
// Visiting order is not input order: each record's fields are a cache miss; ask for those of
// the records a few places ahead (the first pass reads flags, the second everything).
void make_fragment_ends(const io::ReadBatch& reads, std::span<const std::uint32_t> order,
                        std::size_t stop, std::span<const std::int32_t> libraries,
                        const EndFeatures& features, std::span<const std::uint32_t> template_index,
                        ReadEndArray& fragments, io::Column<std::uint32_t>& fragment_record) {
  const bool queryname = !template_index.empty();
  auto makes_end = [&](std::size_t k) {
    if (k + 16 < stop) prefetch(&reads.flag[order[k + 16]]);
    return makes_read_end(reads.flag[order[k]]);
  };
  parallel_select(
      stop, makes_end,
      [&](std::size_t count) {
        fragments.resize(count);
        fragment_record.resize(count);
      },
      [&](std::size_t k, std::size_t slot) {
        if (k + 8 < stop) {
          const std::uint32_t ahead = order[k + 8];
          prefetch(&libraries[ahead], &reads.tid[ahead], &features.five_prime[ahead],
                   &features.score[ahead], &reads.mate_tid[ahead],
                   &features.location_read_group[ahead], &features.location[ahead]);
        }
        const std::uint32_t i = order[k];
        fragment_record[slot] = i;
        fragments[slot] =
            fragment_end(reads, i, libraries, features,
                         queryname ? template_index[k] : static_cast<std::int64_t>(k));
      });
}

// Candidates for pairs (fragment slots, visiting order): ends whose mate is mapped.
void select_pair_candidates(const io::ReadBatch& reads,
                            const io::Column<std::uint32_t>& fragment_record,
                            io::Column<std::uint32_t>& candidates) {
  parallel_select(
      fragment_record.size(),
      [&](std::size_t slot) { return may_pair(reads.flag[fragment_record[slot]]); },
      [&](std::size_t count) { candidates.resize(count); },
      [&](std::size_t slot, std::size_t rank) {
        candidates[rank] = static_cast<std::uint32_t>(slot);
      });
}

// What the matching reads of each candidate, in name order, gathered in one parallel pass (its
// scattered loads overlap; in the matching loop each would be a miss of its own, one after
// another).
struct Visit {
  const char* name;
  std::uint32_t name_length;
  std::uint32_t slot;  // the fragment end
  std::int32_t ref;
  std::uint16_t flag;
};
using Visits = std::vector<Visit, io::UninitializedAllocator<Visit>>;

// Pair candidates grouped by name: only records of one name ever interact.
struct NameGroups {
  io::Column<std::uint64_t> hashes;         // name hash of each candidate, visiting order
  std::vector<std::uint32_t> by_name;       // candidates by name hash, stable in visiting order
  Visits visits;                            // of each candidate, in that order
  io::Column<std::uint64_t> sorted_hashes;  // of each visit
  std::vector<std::size_t> starts;          // group g: visits [starts[g], starts[g + 1])
};

// Candidates grouped by name: a radix sort of their name `hashes` (on `backend`), stable in
// visiting order, and the visit of each (`visit_of(candidate)`, gathered in parallel).
template <typename VisitOf>
NameGroups group_by_name(io::Column<std::uint64_t> hashes, kernels::Backend backend,
                         VisitOf visit_of) {
  NameGroups groups;
  groups.hashes = std::move(hashes);
  groups.by_name = kernels::stable_sort_permutation(groups.hashes, backend);
  const std::size_t visits = groups.by_name.size();
  groups.visits.resize(visits);
  groups.sorted_hashes.resize(visits);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, visits, 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t g = r.begin(); g != r.end(); ++g) {
                                groups.visits[g] = visit_of(groups.by_name[g]);
                                groups.sorted_hashes[g] = groups.hashes[groups.by_name[g]];
                              }
                            });
  const io::Column<std::uint64_t>& sorted = groups.sorted_hashes;
  parallel_select(
      visits, [&](std::size_t g) { return g == 0 || sorted[g] != sorted[g - 1]; },
      [&](std::size_t count) { groups.starts.resize(count + 1, visits); },
      [&](std::size_t g, std::size_t rank) { groups.starts[rank] = g; });
  return groups;
}

// Ends waiting for their mate: (the reference the mate must be on, the visit).
using Waiting = std::vector<std::pair<std::int32_t, std::uint32_t>>;

// Picard's rule within the name group of visits [begin, end): a record completes a pair when its
// reference is the one a waiting mate names and its name matches; otherwise it waits. Pairs go
// to out[made++]; visits before `prefetch_end` are fetched ahead.
void match_group(const Visits& visits, std::size_t begin, std::size_t end, std::size_t prefetch_end,
                 const ReadEndArray& fragments, Waiting& waiting, ReadEnd* out, std::size_t& made) {
  auto name_of = [&](std::size_t g) {
    return std::string_view(visits[g].name, visits[g].name_length);
  };
  waiting.clear();  // names are compared too: a hash collision must not pair strangers
  for (std::size_t g = begin; g < end; ++g) {
    if (g + 8 < prefetch_end) prefetch(visits[g + 8].name, &fragments[visits[g + 8].slot]);
    const Visit& visit = visits[g];
    const std::string_view name = name_of(g);
    auto waiting_with = [&](std::int32_t ref) {
      return std::find_if(waiting.begin(), waiting.end(), [&](const auto& w) {
        return w.first == ref && name_of(w.second) == name;
      });
    };
    const auto found = waiting_with(visit.ref);
    if (found == waiting.end()) {
      // Picard's map keeps the latest end under a key: a repeated key replaces the earlier end.
      const std::int32_t mate_ref = fragments[visit.slot].read2_ref;
      const auto same = waiting_with(mate_ref);
      if (same != waiting.end()) {
        same->second = static_cast<std::uint32_t>(g);
      } else {
        waiting.emplace_back(mate_ref, static_cast<std::uint32_t>(g));
      }
      continue;
    }
    out[made++] =
        complete_pair(fragments[visits[found->second].slot], fragments[visit.slot], visit.flag);
    waiting.erase(found);
  }
}

// Groups are matched in a fixed set of runs of consecutive groups, in parallel.
struct GroupRuns {
  explicit GroupRuns(std::size_t group_count)
      : groups(group_count), count(std::min(group_count, kMaxRuns)) {}
  std::size_t first_group(std::size_t run) const { return run * groups / count; }
  static constexpr std::size_t kMaxRuns = 1024;
  std::size_t groups, count;
};

// Every pair takes two candidates of its group, so the groups of a run of visits make at most
// half as many pairs: each run writes its pairs into its own part of `pairs` (from half its
// first visit's index), and the parts are then closed up in order.
void match_pairs(const NameGroups& groups, const ReadEndArray& fragments, ReadEndArray& pairs) {
  const GroupRuns runs(groups.starts.size() - 1);
  std::vector<std::size_t> run_pairs(runs.count, 0);
  pairs.resize(groups.by_name.size() / 2);
  oneapi::tbb::parallel_for(std::size_t{0}, runs.count, [&](std::size_t run) {
    Waiting waiting;
    const std::size_t last = groups.starts[runs.first_group(run + 1)];
    ReadEnd* out = pairs.data() + groups.starts[runs.first_group(run)] / 2;
    for (std::size_t group = runs.first_group(run); group != runs.first_group(run + 1); ++group) {
      match_group(groups.visits, groups.starts[group], groups.starts[group + 1], last, fragments,
                  waiting, out, run_pairs[run]);
    }
  });
  // Closed up in order: a part moves down only over parts already moved.
  std::size_t made = 0;
  for (std::size_t run = 0; run < runs.count; ++run) {
    const std::size_t from = groups.starts[runs.first_group(run)] / 2;
    if (from != made) std::memmove(&pairs[made], &pairs[from], run_pairs[run] * sizeof(ReadEnd));
    made += run_pairs[run];
  }
  pairs.resize(made);
}

}  // namespace

std::vector<std::int32_t> library_keys(const io::ReadBatch& reads, const io::Header& header,
                                       std::vector<std::string>& names) {
  names = header.libraries();
  const auto unknown_it = std::find(names.begin(), names.end(), "Unknown Library");
  const std::int32_t unknown = static_cast<std::int32_t>(unknown_it - names.begin());
  if (unknown_it == names.end()) names.push_back("Unknown Library");
  std::vector<std::int32_t> keys(reads.size());
  oneapi::tbb::parallel_for(std::size_t{0}, reads.size(), [&](std::size_t i) {
    keys[i] = reads.library[i] >= 0 ? reads.library[i] : unknown;
  });
  return keys;
}

ReadEnd fragment_end(const io::ReadBatch& reads, std::size_t i,
                     std::span<const std::int32_t> libraries, const EndFeatures& features,
                     std::int64_t index_in_file) {
  const std::uint16_t f = reads.flag[i];
  ReadEnd e;
  e.library = libraries[i];
  e.read1_ref = reads.tid[i];
  e.read1_coord = features.five_prime[i];
  e.orientation = (f & io::flag::kReverse) ? kR : kF;
  e.read1_index = index_in_file;
  e.score = features.score[i];
  if (may_pair(f)) e.read2_ref = reads.mate_tid[i];
  if (features.location_read_group[i] >= 0) {
    e.location = features.location[i];
    e.read_group = features.location_read_group[i];
  }
  return e;
}

ReadEndArray pair_ends(const PairCandidates& candidates, kernels::Backend backend) {
  const NameGroups groups = group_by_name(candidates.name_hash, backend, [&](std::uint32_t c) {
    const std::uint64_t from = candidates.name_offset[c];
    return Visit{candidates.names.data() + from,
                 static_cast<std::uint32_t>(candidates.name_offset[c + 1] - from), c,
                 candidates.ends[c].read1_ref, candidates.flag[c]};
  });
  ReadEndArray pairs;
  match_pairs(groups, candidates.ends, pairs);
  return pairs;
}

ReadEndLists build_read_ends(const io::ReadBatch& reads, std::span<const std::uint32_t> order,
                             std::span<const std::int32_t> libraries, const EndFeatures& features,
                             std::span<const std::uint32_t> template_index,
                             kernels::Backend backend, PhaseTimes* times) {
  const bool queryname = !template_index.empty();
  ReadEndLists lists;
  io::Column<std::uint32_t> fragment_record;  // the record of each fragment end
  io::Column<std::uint32_t> candidates;       // the fragment ends whose mate is mapped
  timed_phase(times, "read ends: fragments", [&] {
    const std::size_t stop = queryname ? order.size() : first_unplaced_unmapped(reads, order);
    make_fragment_ends(reads, order, stop, libraries, features, template_index, lists.fragments,
                       fragment_record);
    select_pair_candidates(reads, fragment_record, candidates);
  });
  // Pairs. Picard completes a pair when, in visiting order, a record arrives whose reference is
  // the one a waiting mate names and whose name matches. Only records of one name ever interact,
  // so group candidates by name (a radix sort of name hashes, stable in visiting order) and
  // replay Picard's rule within each group, groups in parallel.
  const NameGroups groups = timed_phase(times, "read ends: pair grouping", [&] {
    io::Column<std::uint64_t> hashes(candidates.size());
    oneapi::tbb::parallel_for(std::size_t{0}, candidates.size(), [&](std::size_t c) {
      hashes[c] = features.name_hash[fragment_record[candidates[c]]];
    });
    return group_by_name(std::move(hashes), backend, [&](std::uint32_t c) {
      const std::uint32_t slot = candidates[c];
      const std::size_t i = fragment_record[slot];
      const std::string_view name = reads.read_name(i);
      return Visit{name.data(), static_cast<std::uint32_t>(name.size()), slot, reads.tid[i],
                   reads.flag[i]};
    });
  });
  timed_phase(times, "read ends: pair matching",
              [&] { match_pairs(groups, lists.fragments, lists.pairs); });
  return lists;
}

namespace {

// The fields of Picard's ReadEndsMDComparator, most significant first.
enum KeyField {
  kLibrary,
  kRef1,
  kCoord1,
  kOrientation,
  kRef2,
  kCoord2,
  kTile,
  kX,
  kY,
  kIndex1,
  kKeyFields
};

std::array<std::int64_t, kKeyFields> key_fields(const ReadEnd& e) {
  return {e.library,     e.read1_ref,     e.read1_coord, e.orientation, e.read2_ref,
          e.read2_coord, e.location.tile, e.location.x,  e.location.y,  e.read1_index};
}

// Each field's smallest and largest value over a set of ends, and whether the ends come in
// file order (read1_index never decreasing).
struct KeyRanges {
  std::array<std::int64_t, kKeyFields> min{};
  std::array<std::int64_t, kKeyFields> max{};
  std::int64_t first_index = 0;
  std::int64_t last_index = 0;
  bool in_index_order = true;
  bool empty = true;

  void add(const ReadEnd& e) {
    const auto fields = key_fields(e);
    if (empty) {
      min = max = fields;
      first_index = e.read1_index;
      empty = false;
    } else {
      for (int f = 0; f < kKeyFields; ++f) {
        min[f] = std::min(min[f], fields[f]);
        max[f] = std::max(max[f], fields[f]);
      }
      in_index_order = in_index_order && last_index <= e.read1_index;
    }
    last_index = e.read1_index;
  }
  // `later` covers the ends after this one's.
  KeyRanges followed_by(const KeyRanges& later) const {
    if (empty) return later;
    if (later.empty) return *this;
    KeyRanges m = *this;
    for (int f = 0; f < kKeyFields; ++f) {
      m.min[f] = std::min(min[f], later.min[f]);
      m.max[f] = std::max(max[f], later.max[f]);
    }
    m.in_index_order = in_index_order && later.in_index_order && last_index <= later.first_index;
    m.last_index = later.last_index;
    return m;
  }
  int bits(int f) const {
    return max[f] <= min[f] ? 0 : std::bit_width(static_cast<std::uint64_t>(max[f] - min[f]));
  }
};

}  // namespace

void sort_read_ends(ReadEndArray& ends, kernels::Backend backend) {
  // Picard's comparator as one string of bits: each field offset to its smallest value and given
  // the bits its range needs, most significant first, cut into 64-bit words from the least
  // significant end; the words are sorted least significant first with stable sorts. Fields
  // that never differ take no bits. read1_index, the last field, is unique per end in coordinate
  // order and equal only for ends of one template in queryname order, where read2_index never
  // decides either; when the ends already come in read1_index order a stable sort keeps it among
  // otherwise equal keys, and the field is left out.
  const std::size_t n = ends.size();
  if (n < 2) return;
  const KeyRanges ranges = oneapi::tbb::parallel_deterministic_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, n, 1 << 14), KeyRanges{},
      [&](const oneapi::tbb::blocked_range<std::size_t>& r, KeyRanges partial) {
        for (std::size_t k = r.begin(); k != r.end(); ++k) partial.add(ends[k]);
        return partial;
      },
      [](const KeyRanges& a, const KeyRanges& b) { return a.followed_by(b); });
  const int fields = ranges.in_index_order ? kIndex1 : kKeyFields;
  int total_bits = 0;
  for (int f = 0; f < fields; ++f) total_bits += ranges.bits(f);
  if (total_bits == 0) return;  // all keys equal, ends in file order
  const std::size_t word_count = static_cast<std::size_t>(total_bits + 63) / 64;
  std::vector<io::Column<std::uint64_t>> words(word_count);
  for (auto& word : words) word.resize(n);  // first touched in parallel below
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, n, 4096),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        std::array<std::uint64_t, (kKeyFields * 64 + 63) / 64> key{};  // key[0] most significant
        const std::span<std::uint64_t> packed(key.data(), word_count);
        for (std::size_t k = r.begin(); k != r.end(); ++k) {
          std::fill(packed.begin(), packed.end(), 0);
          const auto values = key_fields(ends[k]);
          for (int f = 0; f < fields; ++f) {
            const int bits = ranges.bits(f);
            if (bits == 0) continue;
            // Shift the whole key left by `bits` (at most 64), then put the field in the low bits.
            if (bits == 64) {
              std::copy(packed.begin() + 1, packed.end(), packed.begin());
              packed.back() = 0;
            } else {
              for (std::size_t w = 0; w + 1 < word_count; ++w) {
                packed[w] = packed[w] << bits | packed[w + 1] >> (64 - bits);
              }
              packed.back() <<= bits;
            }
            packed.back() |= static_cast<std::uint64_t>(values[f] - ranges.min[f]);
          }
          for (std::size_t w = 0; w < word_count; ++w) words[w][k] = packed[w];
        }
      });
  std::vector<std::span<const std::uint64_t>> word_spans(words.begin(), words.end());
  const std::vector<std::uint32_t> order =
      kernels::stable_sort_permutation_by_words(word_spans, backend);
  ReadEndArray sorted(n);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                if (k + 8 < n)
                                  prefetch(&ends[order[k + 8]]);  // a gather: one miss per end
                                sorted[k] = ends[order[k]];
                              }
                            });
  ends.swap(sorted);
}

}  // namespace gpp::stages::markdup
