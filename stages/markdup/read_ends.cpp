#include "stages/markdup/read_ends.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_sort.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "io/aux_fields.hpp"
#include "kernels/parallel_select.hpp"
#include "kernels/prefetch.hpp"
#include "kernels/sort_by_key.hpp"
#include "stages/markdup/query_groups.hpp"

namespace gpp::stages::markdup {

namespace {

constexpr std::uint32_t kOpMask = 0xF;
constexpr std::uint32_t kSoftClip = 4;
constexpr std::uint32_t kHardClip = 5;

// Java-style short sum: htsjdk DuplicateScoringStrategy SUM_OF_BASE_QUALITIES.
std::int16_t duplicate_score(const io::ReadBatch& reads, std::size_t i) {
  const auto qual = reads.read_qual(i);
  std::int32_t sum = 0;
  if (!qual.empty() && qual[0] != 0xFF) {  // QUAL '*' has no qualities
    std::uint32_t total = 0;
    for (const std::uint8_t q : qual) total += (q >= 15 && q < 128) ? q : 0u;  // Java bytes >= 128 are negative
    sum = static_cast<std::int32_t>(total);
  }
  std::int16_t score = static_cast<std::int16_t>(std::min(sum, 16383));
  if (reads.flag[i] & io::flag::kQcFail) score = static_cast<std::int16_t>(score - 16384);
  return score;
}

// htsjdk SAMUtils.getUnclippedStart / getUnclippedEnd (1-based).
std::int32_t unclipped_five_prime(const io::ReadBatch& reads, std::size_t i) {
  const auto cigar = reads.read_cigar(i);
  const std::int64_t start = reads.pos[i] + 1;
  if (!(reads.flag[i] & io::flag::kReverse)) {
    std::int64_t clipped = 0;
    for (const std::uint32_t op : cigar) {
      const std::uint32_t type = op & kOpMask;
      if (type != kSoftClip && type != kHardClip) break;
      clipped += op >> 4;
    }
    return static_cast<std::int32_t>(start - clipped);
  }
  std::int64_t reference_length = 0;
  for (const std::uint32_t op : cigar) {
    const std::uint32_t type = op & kOpMask;
    if (type == 0 || type == 2 || type == 3 || type == 7 || type == 8) reference_length += op >> 4;
  }
  std::int64_t clipped = 0;
  for (auto it = cigar.rbegin(); it != cigar.rend(); ++it) {
    const std::uint32_t type = *it & kOpMask;
    if (type != kSoftClip && type != kHardClip) break;
    clipped += *it >> 4;
  }
  return static_cast<std::int32_t>(start + reference_length - 1 + clipped);
}

std::int8_t orientation_byte(bool read1_reverse, bool read2_reverse) {
  if (read1_reverse) return read2_reverse ? kRR : kRF;
  return read2_reverse ? kFR : kFF;
}

// Picard's pair end from the waiting end of the first mate and the fragment end of the second
// (flags `second_flags`): read1 is the end with the smaller (reference, unclipped 5' position).
ReadEnd complete_pair(ReadEnd pair, const ReadEnd& fragment, std::uint16_t second_flags) {
  const bool reverse = second_flags & io::flag::kReverse;
  const bool first_reverse = pair.orientation == kR;
  pair.optical_orientation = (second_flags & io::flag::kFirstOfPair) ? orientation_byte(reverse, first_reverse)
                                                                     : orientation_byte(first_reverse, reverse);
  if (fragment.read1_ref > pair.read1_ref ||
      (fragment.read1_ref == pair.read1_ref && fragment.read1_coord >= pair.read1_coord)) {
    pair.read2_ref = fragment.read1_ref;
    pair.read2_coord = fragment.read1_coord;
    pair.read2_index = fragment.read1_index;
    pair.orientation = orientation_byte(first_reverse, reverse);
    // Same position, opposite directions: undefined by file order, so Picard fixes it to FR.
    if (pair.read2_ref == pair.read1_ref && pair.read2_coord == pair.read1_coord && pair.orientation == kRF) {
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

}  // namespace

std::vector<std::int32_t> library_keys(const io::ReadBatch& reads, const io::Header& header,
                                       std::vector<std::string>& names) {
  names = header.libraries();
  const auto unknown_it = std::find(names.begin(), names.end(), "Unknown Library");
  const std::int32_t unknown = static_cast<std::int32_t>(unknown_it - names.begin());
  if (unknown_it == names.end()) names.push_back("Unknown Library");
  std::vector<std::int32_t> keys(reads.size());
  oneapi::tbb::parallel_for(std::size_t{0}, reads.size(),
                            [&](std::size_t i) { keys[i] = reads.library[i] >= 0 ? reads.library[i] : unknown; });
  return keys;
}

ReadEndLists build_read_ends(const io::ReadBatch& reads, std::span<const std::uint32_t> order,
                             std::span<const std::int32_t> libraries, const io::Header& header,
                             const ReadNameParser& names, std::span<const std::uint32_t> template_index,
                             kernels::Backend backend, PhaseTimes* times) {
  ReadEndLists lists;
  std::optional<ScopedPhase> phase(std::in_place, times, "read ends: features");
  const bool queryname = !template_index.empty();
  // In coordinate order Picard stops at the first unplaced unmapped record (they come last).
  const std::size_t stop = queryname ? order.size() : oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, order.size(), 1 << 14), order.size(),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r, std::size_t first) {
        for (std::size_t k = r.begin(); k < r.end() && k < first; ++k) {
          const std::size_t i = order[k];
          if ((reads.flag[i] & io::flag::kUnmapped) && reads.tid[i] == -1) return k;
        }
        return first;
      },
      [](std::size_t a, std::size_t b) { return std::min(a, b); });
  // What an end takes from its record (5' position, score, cluster location, read group) is
  // computed in input order, where the record's bases, qualities and name lie in sequence; the
  // ends are then put together in visiting order from these compact arrays.
  const std::size_t n = reads.size();
  // Written in parallel below for every record that makes an end, and read only for those.
  io::Column<std::int32_t> five_prime(n);
  io::Column<std::int16_t> score(n);
  std::vector<ClusterLocation, io::UninitializedAllocator<ClusterLocation>> location(n);
  io::Column<std::int16_t> location_read_group(n);  // -1: the name did not parse
  // For records that may pair: 32 bits of the name's hash, enough to bring each name's records
  // together (names are compared within a group, so a collision only joins two groups) in half
  // the radix passes of a 64-bit key.
  io::Column<std::uint32_t> record_name_hash(n);
  const std::int16_t header_read_groups = static_cast<std::int16_t>(header.read_groups().size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 1024),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      const std::uint16_t f = reads.flag[i];
      if ((f & io::flag::kUnmapped) || (f & (io::flag::kSecondary | io::flag::kSupplementary))) continue;
      five_prime[i] = unclipped_five_prime(reads, i);
      score[i] = duplicate_score(reads, i);
      location_read_group[i] = -1;
      if ((f & io::flag::kPaired) && !(f & io::flag::kMateUnmapped)) {
        record_name_hash[i] = static_cast<std::uint32_t>(name_hash(reads.read_name(i)) >> 32);
      }
      if (const auto parsed = names.parse(reads.read_name(i))) {
        location[i] = *parsed;
        // Picard: the read group's index in the header; 0 without an RG tag, and one past the
        // last read group when the tag names none of them.
        const std::int32_t rg = reads.read_group[i];
        if (rg >= 0) {
          location_read_group[i] = static_cast<std::int16_t>(rg);
        } else {
          location_read_group[i] = io::find_aux_field(reads.read_aux(i), "RG") != nullptr ? header_read_groups : 0;
        }
      }
    }
  });

  phase.emplace(times, "read ends: fragments");
  // Fragment ends, one per primary mapped record, in visiting order, with their records.
  // Visiting order is not input order: each record's fields are a cache miss; ask for those of
  // the records a few places ahead (the first pass reads flags, the second everything).
  auto makes_end = [&](std::size_t k) {
    if (k + 16 < stop) kernels::prefetch(&reads.flag[order[k + 16]]);
    const std::uint16_t f = reads.flag[order[k]];
    return !(f & io::flag::kUnmapped) && !(f & (io::flag::kSecondary | io::flag::kSupplementary));
  };
  io::Column<std::uint32_t> fragment_record;
  kernels::parallel_select(
      stop, makes_end,
      [&](std::size_t count) {
        lists.fragments.resize(count);
        fragment_record.resize(count);
      },
      [&](std::size_t k, std::size_t slot) {
        if (k + 8 < stop) {
          const std::uint32_t ahead = order[k + 8];
          kernels::prefetch(&libraries[ahead], &reads.tid[ahead], &five_prime[ahead], &score[ahead],
                            &reads.mate_tid[ahead], &location_read_group[ahead], &location[ahead]);
        }
        const std::uint32_t i = order[k];
        const std::uint16_t f = reads.flag[i];
        fragment_record[slot] = i;
        ReadEnd e;
        e.library = libraries[i];
        e.read1_ref = reads.tid[i];
        e.read1_coord = five_prime[i];
        e.orientation = (f & io::flag::kReverse) ? kR : kF;
        e.read1_index = queryname ? template_index[k] : static_cast<std::int64_t>(k);
        e.score = score[i];
        if ((f & io::flag::kPaired) && !(f & io::flag::kMateUnmapped)) e.read2_ref = reads.mate_tid[i];
        if (location_read_group[i] >= 0) {
          e.location = location[i];
          e.read_group = location_read_group[i];
        }
        lists.fragments[slot] = e;
      });
  // Candidates for pairs (fragment slots, visiting order): ends whose mate is mapped.
  io::Column<std::uint32_t> candidates;
  kernels::parallel_select(
      lists.fragments.size(),
      [&](std::size_t slot) {
        const std::uint16_t f = reads.flag[fragment_record[slot]];
        return (f & io::flag::kPaired) && !(f & io::flag::kMateUnmapped);
      },
      [&](std::size_t count) { candidates.resize(count); },
      [&](std::size_t slot, std::size_t rank) { candidates[rank] = static_cast<std::uint32_t>(slot); });

  phase.emplace(times, "read ends: pair grouping");
  // Pairs. Picard completes a pair when, in visiting order, a record arrives whose reference is
  // the one a waiting mate names and whose name matches. Only records of one name ever interact,
  // so group candidates by name (a radix sort of name hashes, stable in visiting order) and
  // replay Picard's rule within each group, groups in parallel.
  io::Column<std::uint64_t> hashes(candidates.size());
  oneapi::tbb::parallel_for(std::size_t{0}, candidates.size(),
                            [&](std::size_t c) { hashes[c] = record_name_hash[fragment_record[candidates[c]]]; });
  const std::vector<std::uint32_t> by_name = kernels::stable_sort_permutation(hashes, backend);
  // What the matching reads of each candidate, in name order, gathered in one parallel pass (its
  // scattered loads overlap; in the matching loop each would be a miss of its own, one after another).
  struct Visit {
    const char* name;
    std::uint32_t name_length;
    std::uint32_t slot;  // the fragment end
    std::int32_t ref;
    std::uint16_t flag;
  };
  std::vector<Visit, io::UninitializedAllocator<Visit>> visits(by_name.size());
  io::Column<std::uint64_t> sorted_hashes(by_name.size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, by_name.size(), 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
    for (std::size_t g = r.begin(); g != r.end(); ++g) {
      const std::uint32_t slot = candidates[by_name[g]];
      const std::size_t i = fragment_record[slot];
      const std::string_view name = reads.read_name(i);
      visits[g] = {name.data(), static_cast<std::uint32_t>(name.size()), slot, reads.tid[i], reads.flag[i]};
      sorted_hashes[g] = hashes[by_name[g]];
    }
  });
  std::vector<std::size_t> group_starts;
  kernels::parallel_select(
      by_name.size(), [&](std::size_t g) { return g == 0 || sorted_hashes[g] != sorted_hashes[g - 1]; },
      [&](std::size_t count) { group_starts.resize(count + 1, by_name.size()); },
      [&](std::size_t g, std::size_t rank) { group_starts[rank] = g; });
  phase.emplace(times, "read ends: pair matching");
  oneapi::tbb::enumerable_thread_specific<std::vector<ReadEnd>> pairs_found;
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, group_starts.size() - 1, 1024),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
    std::vector<ReadEnd>& out = pairs_found.local();
    std::vector<std::pair<std::int32_t, std::uint32_t>> waiting;  // (expected reference, visit)
    const std::size_t last = group_starts[r.end()];
    auto name_of = [&](std::size_t g) { return std::string_view(visits[g].name, visits[g].name_length); };
    for (std::size_t group = r.begin(); group != r.end(); ++group) {
      waiting.clear();  // names are compared too: a hash collision must not pair strangers
      for (std::size_t g = group_starts[group]; g < group_starts[group + 1]; ++g) {
        if (g + 8 < last) kernels::prefetch(visits[g + 8].name, &lists.fragments[visits[g + 8].slot]);
        const Visit& visit = visits[g];
        const std::string_view name = name_of(g);
        auto waiting_with = [&](std::int32_t ref) {
          return std::find_if(waiting.begin(), waiting.end(),
                              [&](const auto& w) { return w.first == ref && name_of(w.second) == name; });
        };
        const auto found = waiting_with(visit.ref);
        if (found == waiting.end()) {
          // Picard's map keeps the latest end under a key: a repeated key replaces the earlier end.
          const std::int32_t mate_ref = lists.fragments[visit.slot].read2_ref;
          const auto same = waiting_with(mate_ref);
          if (same != waiting.end()) {
            same->second = static_cast<std::uint32_t>(g);
          } else {
            waiting.emplace_back(mate_ref, static_cast<std::uint32_t>(g));
          }
          continue;
        }
        out.push_back(complete_pair(lists.fragments[visits[found->second].slot], lists.fragments[visit.slot], visit.flag));
        waiting.erase(found);
      }
    }
  });
  phase.emplace(times, "read ends: pair copy");
  // The threads' pairs into one array, copied in parallel.
  std::vector<const std::vector<ReadEnd>*> parts;
  std::vector<std::size_t> part_start{0};
  for (const std::vector<ReadEnd>& part : pairs_found) {
    parts.push_back(&part);
    part_start.push_back(part_start.back() + part.size());
  }
  lists.pairs.resize(part_start.back());
  oneapi::tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t p) {
    std::copy(parts[p]->begin(), parts[p]->end(), lists.pairs.begin() + part_start[p]);
  });
  return lists;
}

void sort_read_ends(ReadEndArray& ends, kernels::Backend backend) {
  // Picard's comparator as three 64-bit words, sorted least significant first with stable sorts.
  // Field widths come from the data; values are offset to be non-negative.
  const std::size_t n = ends.size();
  if (n < 2) return;
  struct Range {
    std::int64_t min = INT64_MAX;
    std::int64_t max = INT64_MIN;
    void add(std::int64_t v) {
      min = std::min(min, v);
      max = std::max(max, v);
    }
    int bits() const { return max <= min ? 0 : std::bit_width(static_cast<std::uint64_t>(max - min)); }
  };
  struct Ranges {
    Range library, ref1, coord1, ref2, coord2, index1;
    void add(const ReadEnd& e) {
      library.add(e.library);
      ref1.add(e.read1_ref);
      coord1.add(e.read1_coord);
      ref2.add(e.read2_ref);
      coord2.add(e.read2_coord);
      index1.add(e.read1_index);
    }
    Ranges merged(const Ranges& o) const {
      Ranges m = *this;
      for (auto [to, from] : {std::pair{&m.library, &o.library}, {&m.ref1, &o.ref1}, {&m.coord1, &o.coord1},
                              {&m.ref2, &o.ref2}, {&m.coord2, &o.coord2}, {&m.index1, &o.index1}}) {
        if (from->min > from->max) continue;  // no ends seen
        to->add(from->min);
        to->add(from->max);
      }
      return m;
    }
  };
  const Ranges ranges = oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, n, 1 << 14), Ranges{},
      [&](const oneapi::tbb::blocked_range<std::size_t>& r, Ranges partial) {
        for (std::size_t k = r.begin(); k != r.end(); ++k) partial.add(ends[k]);
        return partial;
      },
      [](const Ranges& a, const Ranges& b) { return a.merged(b); });
  const auto& [library, ref1, coord1, ref2, coord2, index1] = ranges;
  const int word0_bits = library.bits() + ref1.bits() + coord1.bits() + 3;
  const int word1_bits = ref2.bits() + coord2.bits() + 16;
  const int word2_bits = 32 + index1.bits();
  auto field = [](std::uint64_t& word, std::int64_t value, const Range& range) {
    word = (word << range.bits()) | static_cast<std::uint64_t>(value - range.min);
  };
  if (word0_bits > 64 || word1_bits > 64 || word2_bits > 64) {
    // Ranges too wide to pack (not seen in practice): compare fields directly.
    oneapi::tbb::parallel_sort(ends.begin(), ends.end(), [](const ReadEnd& a, const ReadEnd& b) {
      return std::tie(a.library, a.read1_ref, a.read1_coord, a.orientation, a.read2_ref, a.read2_coord,
                      a.location.tile, a.location.x, a.location.y, a.read1_index, a.read2_index) <
             std::tie(b.library, b.read1_ref, b.read1_coord, b.orientation, b.read2_ref, b.read2_coord,
                      b.location.tile, b.location.x, b.location.y, b.read1_index, b.read2_index);
    });
    return;
  }
  io::Column<std::uint64_t> word0(n), word1(n), word2(n);  // first touched in parallel
  oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
    const ReadEnd& e = ends[k];
    std::uint64_t w = 0;
    field(w, e.library, library);
    field(w, e.read1_ref, ref1);
    field(w, e.read1_coord, coord1);
    w = w << 3 | static_cast<std::uint64_t>(e.orientation);
    word0[k] = w;
    w = 0;
    field(w, e.read2_ref, ref2);
    field(w, e.read2_coord, coord2);
    w = w << 16 | static_cast<std::uint16_t>(e.location.tile ^ 0x8000);  // signed order as unsigned
    word1[k] = w;
    w = static_cast<std::uint64_t>(static_cast<std::uint16_t>(e.location.x ^ 0x8000)) << 16 |
        static_cast<std::uint16_t>(e.location.y ^ 0x8000);
    field(w, e.read1_index, index1);  // unique: read2_index never decides
    word2[k] = w;
  });
  const std::span<const std::uint64_t> words[] = {word0, word1, word2};
  const std::vector<std::uint32_t> order = kernels::stable_sort_permutation_by_words(words, backend);
  ReadEndArray sorted(n);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
    for (std::size_t k = r.begin(); k != r.end(); ++k) {
      if (k + 8 < n) kernels::prefetch(&ends[order[k + 8]]);  // a gather: one miss per end
      sorted[k] = ends[order[k]];
    }
  });
  ends.swap(sorted);
}

}  // namespace gpp::stages::markdup
