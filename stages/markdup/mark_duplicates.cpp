#include "stages/markdup/mark_duplicates.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>

#include "stages/markdup/optical_duplicates.hpp"
#include "stages/markdup/query_groups.hpp"
#include "stages/markdup/read_ends.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace gpp::stages::markdup {

namespace {

bool same_key(const ReadEnd& a, const ReadEnd& b, bool compare_read2) {
  return a.library == b.library && a.read1_ref == b.read1_ref && a.read1_coord == b.read1_coord &&
         a.orientation == b.orientation &&
         (!compare_read2 || (a.read2_ref == b.read2_ref && a.read2_coord == b.read2_coord));
}

// Picard: the first end (in sort order) with the strictly highest score is kept.
std::size_t best_of(std::span<const ReadEnd> set) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < set.size(); ++k) {
    if (set[k].score > set[best].score) best = k;
  }
  return best;
}

// Set sizes counted in an array (most of millions of sets have one end), added to Picard's
// histogram (a map keyed by size) once at the end.
class SizeCounts {
 public:
  void add(std::size_t size) {
    if (size >= counts_.size()) counts_.resize(size + 1, 0);
    ++counts_[size];
  }
  void merge(const SizeCounts& other) {
    if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
    for (std::size_t size = 0; size < other.counts_.size(); ++size)
      counts_[size] += other.counts_[size];
  }
  void add_to(std::map<double, double>& histogram) const {
    for (std::size_t size = 0; size < counts_.size(); ++size) {
      if (counts_[size] > 0)
        histogram[static_cast<double>(size)] += static_cast<double>(counts_[size]);
    }
  }

 private:
  std::vector<std::int64_t> counts_;
};

// Cuts `ends` (sorted) into about `parts` ranges, each ending where a duplicate set ends, so
// that the ranges can be walked in parallel.
template <typename SameSet>
std::vector<std::size_t> set_aligned_cuts(const ReadEndArray& ends, std::size_t parts,
                                          SameSet same_set) {
  std::vector<std::size_t> cuts{0};
  const std::size_t n = ends.size();
  for (std::size_t k = 1; k < parts; ++k) {
    std::size_t cut = std::max(cuts.back(), k * n / parts);
    while (cut > 0 && cut < n && same_set(ends[cut - 1], ends[cut])) ++cut;
    if (cut > cuts.back() && cut < n) cuts.push_back(cut);
  }
  cuts.push_back(n);
  return cuts;
}

// What walking one range of sets finds: the indexes it marks, set sizes, optical duplicates.
struct SetTally {
  std::vector<std::int64_t> marks;
  SizeCounts all_sets, non_optical_sets, optical_sets;
  std::map<std::int32_t, std::int64_t> optical_by_library;
};

// Ranges of sets walked in parallel, one tally each.
constexpr std::size_t kRanges = 256;

// Sets are independent: `ends` (sorted) is cut into ranges of whole sets (runs of ends for which
// `same_set` holds), walked in parallel; `tally_set(set, tally)` records each set in its range's
// tally.
template <typename SameSet, typename TallySet>
std::vector<SetTally> tally_sets(const ReadEndArray& ends, SameSet same_set, TallySet tally_set) {
  const std::vector<std::size_t> cuts = set_aligned_cuts(ends, kRanges, same_set);
  std::vector<SetTally> tallies(cuts.size() - 1);
  oneapi::tbb::parallel_for(std::size_t{0}, tallies.size(), [&](std::size_t r) {
    for (std::size_t begin = cuts[r]; begin < cuts[r + 1];) {
      std::size_t end = begin + 1;
      while (end < cuts[r + 1] && same_set(ends[begin], ends[end])) ++end;
      tally_set(std::span<const ReadEnd>(ends.data() + begin, end - begin), tallies[r]);
      begin = end;
    }
  });
  return tallies;
}

// A set of pairs: all but the best pair are duplicates (both ends); with read-name locations,
// its optical duplicates are counted too.
void tally_pair_set(std::span<const ReadEnd> set, const ReadNameParser& parser,
                    int optical_pixel_distance, SetTally& tally) {
  if (set.size() == 1) {
    tally.all_sets.add(1);
    tally.non_optical_sets.add(1);
    return;
  }
  const std::size_t best = best_of(set);
  if (parser.enabled()) {
    const std::int64_t optical = count_optical_duplicates(set, optical_pixel_distance);
    if (optical > 0) tally.optical_by_library[set[0].library] += optical;
    tally.all_sets.add(set.size());
    if (static_cast<std::int64_t>(set.size()) - optical > 0)
      tally.non_optical_sets.add(set.size() - optical);
    if (optical > 0) tally.optical_sets.add(static_cast<std::size_t>(optical + 1));
  }
  for (std::size_t k = 0; k < set.size(); ++k) {
    if (k == best) continue;
    tally.marks.push_back(set[k].read1_index);
    if (set[k].read2_index >= 0 && set[k].read2_index != set[k].read1_index) {
      tally.marks.push_back(set[k].read2_index);
    }
  }
}

// A set of fragments: a set holding a paired end loses all its unpaired ends; otherwise all but
// the best end are duplicates.
void tally_fragment_set(std::span<const ReadEnd> set, SetTally& tally) {
  const bool contains_pairs =
      std::any_of(set.begin(), set.end(), [](const ReadEnd& e) { return e.is_paired(); });
  if (contains_pairs) {
    for (const ReadEnd& e : set) {
      if (!e.is_paired()) tally.marks.push_back(e.read1_index);
    }
  } else if (set.size() > 1) {
    const std::size_t best = best_of(set);
    for (std::size_t k = 0; k < set.size(); ++k) {
      if (k != best) tally.marks.push_back(set[k].read1_index);
    }
  }
}

std::vector<SetTally> tally_pair_sets(const ReadEndArray& pairs, const ReadNameParser& parser,
                                      int optical_pixel_distance) {
  return tally_sets(
      pairs, [](const ReadEnd& a, const ReadEnd& b) { return same_key(a, b, true); },
      [&](std::span<const ReadEnd> set, SetTally& tally) {
        tally_pair_set(set, parser, optical_pixel_distance, tally);
      });
}

std::vector<SetTally> tally_fragment_sets(const ReadEndArray& fragments) {
  return tally_sets(
      fragments, [](const ReadEnd& a, const ReadEnd& b) { return same_key(a, b, false); },
      [](std::span<const ReadEnd> set, SetTally& tally) { tally_fragment_set(set, tally); });
}

// The tallies of every range added up (the list's order does not matter), set sizes into
// `histograms`.
Duplicates add_up(std::initializer_list<const std::vector<SetTally>*> tally_lists,
                  SetSizeHistograms& histograms) {
  Duplicates duplicates;
  SizeCounts all_sets, non_optical_sets, optical_sets;
  for (const std::vector<SetTally>* tallies : tally_lists) {
    for (const SetTally& tally : *tallies) {
      duplicates.indexes.insert(duplicates.indexes.end(), tally.marks.begin(), tally.marks.end());
      for (const auto& [library, count] : tally.optical_by_library)
        duplicates.optical_by_library[library] += count;
      all_sets.merge(tally.all_sets);
      non_optical_sets.merge(tally.non_optical_sets);
      optical_sets.merge(tally.optical_sets);
    }
  }
  all_sets.add_to(histograms.all_sets);
  non_optical_sets.add_to(histograms.non_optical_sets);
  optical_sets.add_to(histograms.optical_sets);
  return duplicates;
}

// Coordinate order: the records at the listed indexes (positions in coordinate order).
std::vector<std::uint8_t> flag_indexes(std::size_t n, const std::vector<std::int64_t>& indexes) {
  std::vector<std::uint8_t> duplicate(n, 0);
  for (const std::int64_t index : indexes) duplicate[static_cast<std::size_t>(index)] = 1;
  return duplicate;
}

// Queryname-grouped input: Picard's writing pass, which walks the sorted index list (repeats
// included) beside the records and flags a record when its index is the next listed one or when
// it continues the name run of the last flagged record. A template listed twice delays the walk,
// so the next listed template can go unflagged; that is what Picard does.
std::vector<std::uint8_t> flag_templates(const io::ReadBatch& reads,
                                         std::vector<std::int64_t> indexes) {
  std::sort(indexes.begin(), indexes.end());
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::size_t taken = 0;
  auto pull = [&] { return taken < indexes.size() ? indexes[taken++] : kNone; };
  std::vector<std::uint8_t> duplicate(reads.size(), 0);
  std::int64_t next = pull();
  std::optional<std::string_view> last_duplicate_name;
  for (std::size_t k = 0; k < reads.size(); ++k) {
    const std::int64_t index = static_cast<std::int64_t>(k);
    const std::string_view name = reads.read_name(k);
    const bool continues_duplicate = last_duplicate_name == name;
    if (index > next && !continues_duplicate) next = pull();
    if (index == next || (index > next && continues_duplicate)) {
      duplicate[k] = 1;
      last_duplicate_name = name;
    }
  }
  return duplicate;
}

// New flags: Picard sets or clears 0x400 on every record. `duplicate` is indexed as the ends
// were: by position in `order` (coordinate order), or by record (queryname-grouped).
void set_duplicate_flags(const io::ReadBatch& reads, std::span<const std::uint32_t> order,
                         std::span<const std::uint8_t> duplicate, bool queryname_grouped,
                         std::vector<std::uint16_t>& flags) {
  const std::size_t n = reads.size();
  flags.resize(n);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, n, 1 << 14),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        for (std::size_t k = r.begin(); k != r.end(); ++k) {
          const std::size_t i = queryname_grouped ? k : order[k];
          flags[i] = static_cast<std::uint16_t>((reads.flag[i] & ~io::flag::kDuplicate) |
                                                (duplicate[k] ? io::flag::kDuplicate : 0));
        }
      });
}

}  // namespace

void count_record(std::uint16_t input_flag, std::uint16_t flag, LibraryMetrics& m) {
  const bool unpaired = !(input_flag & io::flag::kPaired) || (input_flag & io::flag::kMateUnmapped);
  if (input_flag & io::flag::kUnmapped) {
    ++m.unmapped_reads;
  } else if (input_flag & (io::flag::kSecondary | io::flag::kSupplementary)) {
    ++m.secondary_or_supplementary_reads;
  } else {
    ++(unpaired ? m.unpaired_reads_examined : m.read_pairs_examined);
    if (flag & io::flag::kDuplicate)
      ++(unpaired ? m.unpaired_read_duplicates : m.read_pair_duplicates);
  }
}

void add_counts(const LibraryMetrics& from, LibraryMetrics& to) {
  to.unmapped_reads += from.unmapped_reads;
  to.secondary_or_supplementary_reads += from.secondary_or_supplementary_reads;
  to.unpaired_reads_examined += from.unpaired_reads_examined;
  to.read_pairs_examined += from.read_pairs_examined;
  to.unpaired_read_duplicates += from.unpaired_read_duplicates;
  to.read_pair_duplicates += from.read_pair_duplicates;
}

namespace {

// Read counts over every record, per library (`libraries` of `library_count`): counts per
// thread, added up.
std::vector<LibraryMetrics> count_libraries(const io::ReadBatch& reads,
                                            std::span<const std::int32_t> libraries,
                                            std::span<const std::uint16_t> flags,
                                            std::size_t library_count) {
  oneapi::tbb::enumerable_thread_specific<std::vector<LibraryMetrics>> counts(
      [&] { return std::vector<LibraryMetrics>(library_count); });
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 1 << 16),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              std::vector<LibraryMetrics>& local = counts.local();
                              for (std::size_t i = r.begin(); i != r.end(); ++i)
                                count_record(reads.flag[i], flags[i], local[libraries[i]]);
                            });
  std::vector<LibraryMetrics> by_library(library_count);
  for (const std::vector<LibraryMetrics>& local : counts) {
    for (std::size_t l = 0; l < library_count; ++l) add_counts(local[l], by_library[l]);
  }
  return by_library;
}

// Every record counts in exactly one of these four.
bool has_reads(const LibraryMetrics& m) {
  return m.unmapped_reads + m.secondary_or_supplementary_reads + m.unpaired_reads_examined +
             m.read_pairs_examined >
         0;
}

}  // namespace

std::size_t add_library_rows(const io::Header& header,
                             const std::vector<std::string>& library_names,
                             const std::vector<LibraryMetrics>& by_library,
                             const std::map<std::int32_t, std::int64_t>& optical_by_library,
                             std::vector<LibraryMetrics>& rows) {
  // Every @RG line's library (also of a line whose ID a later line takes over, as Picard lists
  // them), with or without reads.
  std::vector<std::string> header_libraries = header.libraries();
  const auto no_library = [](const io::ReadGroup& rg) { return rg.library.empty(); };
  if (std::any_of(header.read_groups().begin(), header.read_groups().end(), no_library)) {
    header_libraries.emplace_back("Unknown Library");
  }
  std::map<std::string, std::int32_t> known;
  for (const std::string& name : header_libraries) {
    const auto it = std::find(library_names.begin(), library_names.end(), name);
    known.emplace(name, static_cast<std::int32_t>(it - library_names.begin()));
  }
  for (std::size_t l = 0; l < library_names.size(); ++l) {
    if (has_reads(by_library[l])) known.emplace(library_names[l], static_cast<std::int32_t>(l));
  }
  for (const auto& [name, library] : known) {
    LibraryMetrics m = by_library[library];
    m.library = name;
    m.read_pairs_examined /= 2;
    m.read_pair_duplicates /= 2;
    const auto optical = optical_by_library.find(library);
    m.read_pair_optical_duplicates = optical == optical_by_library.end() ? 0 : optical->second;
    calculate_derived_fields(m);
    rows.push_back(std::move(m));
  }
  return known.size();
}

namespace {

// The reads' EndFeatures: the caller's when they are of every read, else computed into
// `computed`.
const EndFeatures& end_features_for(const io::ReadBatch& reads, const io::Header& header,
                                    const MarkDuplicatesOptions& options,
                                    std::optional<EndFeatures>& computed) {
  if (options.features != nullptr && options.features->size() == reads.size())
    return *options.features;
  computed.emplace(options.read_name_regex);
  computed->compute(reads, header);
  return *computed;
}

// Queryname-grouped input is visited in input order, each end indexed by its template.
struct TemplateVisit {
  std::vector<std::uint32_t> template_index;  ///< of each record: its name run's first record
  std::vector<std::uint32_t> input_order;     ///< 0, 1, ..., n - 1
};

TemplateVisit template_visit(const io::ReadBatch& reads) {
  TemplateVisit visit;
  visit.template_index = template_indices(reads);
  visit.input_order.resize(reads.size());
  std::iota(visit.input_order.begin(), visit.input_order.end(), 0u);
  return visit;
}

}  // namespace

Duplicates find_duplicates(ReadEndLists& lists, const ReadNameParser& parser,
                           int optical_pixel_distance, kernels::Backend backend,
                           SetSizeHistograms& histograms, PhaseTimes* times) {
  timed_phase(times, "read end sort", [&] {
    sort_read_ends(lists.pairs, backend);
    sort_read_ends(lists.fragments, backend);
  });
  const ScopedPhase phase(times, "duplicate sets");
  // Pairs first, then fragments.
  const std::vector<SetTally> pair_tallies =
      tally_pair_sets(lists.pairs, parser, optical_pixel_distance);
  const std::vector<SetTally> fragment_tallies = tally_fragment_sets(lists.fragments);
  return add_up({&pair_tallies, &fragment_tallies}, histograms);
}

bool uses_queryname_semantics(const io::Header& header, const std::string& assume_sort_order) {
  return (assume_sort_order.empty() ? header.sort_order() : assume_sort_order) == "queryname";
}

MarkDuplicatesResult mark_duplicates(const io::ReadBatch& reads, const io::Header& header,
                                     const MarkDuplicatesOptions& options,
                                     kernels::Backend backend) {
  PhaseTimes* const times = options.times;
  const bool queryname = options.queryname_grouped;
  MarkDuplicatesResult result;
  result.order =
      timed_phase(times, "coordinate sort", [&] { return sort::coordinate_order(reads, backend); });
  std::optional<EndFeatures> computed;
  const EndFeatures& features = timed_phase(
      times, "read ends: features",
      [&]() -> const EndFeatures& { return end_features_for(reads, header, options, computed); });
  std::vector<std::string> library_names;
  std::vector<std::int32_t> libraries;
  TemplateVisit by_template;
  ReadEndLists lists = timed_phase(times, "read ends and pairs", [&] {
    libraries = library_keys(reads, header, library_names);
    if (queryname) by_template = template_visit(reads);
    return build_read_ends(reads, queryname ? by_template.input_order : result.order, libraries,
                           features, by_template.template_index, backend, times);
  });
  Duplicates duplicates = find_duplicates(lists, features.parser(), options.optical_pixel_distance,
                                          backend, result.histograms, times);
  const ScopedPhase phase(times, "flags and metrics");
  const std::vector<std::uint8_t> duplicate =
      queryname ? flag_templates(reads, std::move(duplicates.indexes))
                : flag_indexes(reads.size(), duplicates.indexes);
  set_duplicate_flags(reads, result.order, duplicate, queryname, result.flags);
  const std::vector<LibraryMetrics> by_library =
      count_libraries(reads, libraries, result.flags, library_names.size());
  result.single_library = add_library_rows(header, library_names, by_library,
                                           duplicates.optical_by_library, result.metrics) == 1;
  return result;
}

}  // namespace gpp::stages::markdup
