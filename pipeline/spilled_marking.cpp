#include "pipeline/spilled_marking.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/elapsed.hpp"
#include "core/error.hpp"
#include "core/phase_times.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/heap_reuse.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/packed_ends.hpp"
#include "pipeline/sample_sex.hpp"
#include "pipeline/spill_file.hpp"
#include "stages/markdup/marking_columns.hpp"
#include "stages/markdup/read_ends.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace gpp::pipeline {

namespace markdup = stages::markdup;

namespace {

// One end in this many goes into the sample that places the key ranges' bounds.
constexpr std::uint64_t kSampleEvery = 1024;
// Memory one end takes while its key range is sorted and walked (the end, its sort keys and
// permutation, the sorted copy), and one pair candidate while its bucket is paired (the end, its
// name, hash, flag, sort permutation and visit, the pair made).
constexpr std::uint64_t kBytesPerEnd = 200;
constexpr std::uint64_t kBytesPerCandidate = 320;
// At most this many key ranges and name buckets, and at most this many files the merge's pieces
// write (each piece a file per range and bucket, and one of flags and libraries).
constexpr std::uint64_t kMostParts = 128;
constexpr std::size_t kMostFiles = 512;
// Runs the record kinds number (packed::RecordKind::run has 16 bits).
constexpr std::size_t kMostRunsNumbered = std::size_t{1} << 16;

// An end's place in the key order's leading fields (reference, then unclipped 5' position).
std::int64_t position_key(std::int32_t ref, std::int32_t coord) {
  return static_cast<std::int64_t>(ref) * (std::int64_t{1} << 32) +
         (static_cast<std::int64_t>(coord) + (std::int64_t{1} << 31));
}

std::size_t parts_for(std::uint64_t items, std::uint64_t bytes_each, std::uint64_t room) {
  const std::uint64_t parts = (items * bytes_each + room - 1) / room;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(parts, 1, kMostParts));
}

void set_bit(std::vector<std::uint64_t>& bits, std::uint64_t k) {
  bits[k / 64] |= std::uint64_t{1} << (k % 64);
}
bool test_bit(const std::vector<std::uint64_t>& bits, std::uint64_t k) {
  return (bits[k / 64] >> (k % 64) & 1) != 0;
}
// set_bit for threads that may share a word.
void set_bit_shared(std::vector<std::uint64_t>& bits, std::uint64_t k) {
  std::atomic_ref(bits[k / 64]).fetch_or(std::uint64_t{1} << (k % 64), std::memory_order_relaxed);
}

// Where a spill file is read to, whole.
struct FilePlace {
  SpillFile* file;
  char* to;
};

// Reads each file to its place, in slices of up to 64 MiB read side by side on the oneTBB
// threads (the files are finished first).
void read_side_by_side(const std::vector<FilePlace>& places) {
  constexpr std::uint64_t kSlice = std::uint64_t{64} << 20;
  struct Slice {
    const SpillFile* file;
    std::uint64_t from;
    std::size_t bytes;
    char* to;
  };
  std::vector<Slice> slices;
  for (const FilePlace& place : places) {
    place.file->finish();
    const std::uint64_t size = place.file->size();
    for (std::uint64_t from = 0; from < size; from += kSlice) {
      slices.push_back({place.file, from, static_cast<std::size_t>(std::min(kSlice, size - from)),
                        place.to + from});
    }
  }
  oneapi::tbb::parallel_for(std::size_t{0}, slices.size(), [&](std::size_t k) {
    slices[k].file->read_at(slices[k].from, slices[k].to, slices[k].bytes);
  });
}

// Files by merge piece: piece p's file k (each piece written on one thread), read back piece
// after piece — the visiting order.
class PieceFiles {
 public:
  PieceFiles(std::size_t pieces, std::size_t count, const std::string& directory,
             std::size_t buffer_bytes)
      : files_(pieces) {
    for (auto& of_piece : files_) {
      for (std::size_t k = 0; k < count; ++k) {
        of_piece.push_back(std::make_unique<SpillFile>(directory, buffer_bytes));
      }
    }
  }
  std::size_t pieces() const { return files_.size(); }
  SpillFile& at(std::size_t piece, std::size_t k) { return *files_[piece][k]; }
  void finish() {
    for (auto& of_piece : files_) {
      for (auto& file : of_piece) file->finish();
    }
  }
  std::uint64_t bytes(std::size_t k) const {
    std::uint64_t total = 0;
    for (const auto& of_piece : files_) total += of_piece[k]->size();
    return total;
  }
  /// Gives file k of every piece up.
  void drop(std::size_t k) {
    for (auto& of_piece : files_) of_piece[k].reset();
  }

 private:
  std::vector<std::vector<std::unique_ptr<SpillFile>>> files_;
};

// The key ranges: each the fragment ends of every merge piece, then its pairs.
class KeyRanges {
 public:
  KeyRanges(std::vector<std::int64_t> sample, std::size_t count, std::size_t pieces,
            const std::string& directory, std::size_t buffer_bytes) {
    std::sort(sample.begin(), sample.end());
    for (std::size_t p = 1; p < count && !sample.empty(); ++p) {
      const std::int64_t bound = sample[p * sample.size() / count];
      if (bounds_.empty() || bound > bounds_.back()) bounds_.push_back(bound);
    }
    fragments_.emplace(pieces, bounds_.size() + 1, directory, buffer_bytes);
    for (std::size_t p = 0; p <= bounds_.size(); ++p) {
      pairs_.push_back(std::make_unique<SpillFile>(directory, buffer_bytes));
    }
  }
  std::size_t size() const { return pairs_.size(); }
  /// A fragment end of merge piece `piece`.
  void add_fragment(std::size_t piece, const markdup::ReadEnd& end) {
    char bytes[packed::kFragmentBytes];
    packed::put_fragment(end, bytes);
    fragments_->at(piece, range_of(end)).write(bytes, sizeof bytes);
  }
  /// Pair ends, each into its range's file in the order given (the ranges written side by side).
  void add_pairs(const markdup::ReadEndArray& ends) {
    std::vector<std::uint32_t> range(ends.size());
    oneapi::tbb::parallel_for(std::size_t{0}, ends.size(), [&](std::size_t k) {
      range[k] = static_cast<std::uint32_t>(range_of(ends[k]));
    });
    oneapi::tbb::parallel_for(std::size_t{0}, pairs_.size(), [&](std::size_t p) {
      char bytes[packed::kPairBytes];
      for (std::size_t k = 0; k < ends.size(); ++k) {
        if (range[k] != p) continue;
        packed::put_pair(ends[k], bytes);
        pairs_[p]->write(bytes, sizeof bytes);
      }
    });
  }
  // The ends of range p, read back (the files read side by side, then given up and their ends
  // unpacked).
  markdup::ReadEndLists take(std::size_t p) {
    const std::uint64_t fragment_bytes = fragments_->bytes(p);
    io::Column<char> bytes(static_cast<std::size_t>(fragment_bytes + pairs_[p]->size()));
    std::vector<FilePlace> places;
    char* to = bytes.data();
    for (std::size_t piece = 0; piece < fragments_->pieces(); ++piece) {
      SpillFile& file = fragments_->at(piece, p);
      places.push_back({&file, to});
      to += file.size();
    }
    places.push_back({pairs_[p].get(), to});
    read_side_by_side(places);
    fragments_->drop(p);
    pairs_[p].reset();
    markdup::ReadEndLists lists;
    lists.fragments.resize(static_cast<std::size_t>(fragment_bytes / packed::kFragmentBytes));
    lists.pairs.resize(
        static_cast<std::size_t>((bytes.size() - fragment_bytes) / packed::kPairBytes));
    const char* pair_bytes = bytes.data() + fragment_bytes;
    oneapi::tbb::parallel_for(std::size_t{0}, lists.fragments.size(), [&](std::size_t k) {
      lists.fragments[k] = packed::get_fragment(bytes.data() + k * packed::kFragmentBytes);
    });
    oneapi::tbb::parallel_for(std::size_t{0}, lists.pairs.size(), [&](std::size_t k) {
      lists.pairs[k] = packed::get_pair(pair_bytes + k * packed::kPairBytes);
    });
    return lists;
  }

 private:
  std::size_t range_of(const markdup::ReadEnd& end) const {
    const std::int64_t key = position_key(end.read1_ref, end.read1_coord);
    return static_cast<std::size_t>(std::upper_bound(bounds_.begin(), bounds_.end(), key) -
                                    bounds_.begin());
  }

  std::vector<std::int64_t> bounds_;  ///< range p holds keys in [bounds_[p - 1], bounds_[p])
  std::optional<PieceFiles> fragments_;
  std::vector<std::unique_ptr<SpillFile>> pairs_;
};

// The name buckets: the ends that may pair, with their names, of every merge piece.
class NameBuckets {
 public:
  NameBuckets(std::size_t count, std::size_t pieces, const std::string& directory,
              std::size_t buffer_bytes)
      : files_(pieces, count, directory, buffer_bytes),
        candidates_(pieces, std::vector<std::size_t>(count, 0)) {}
  std::size_t size() const { return candidates_.front().size(); }
  /// The candidate `end` (a fragment end) of a record with `flag`, `name` and its `name_hash`.
  void add(std::size_t piece, const markdup::ReadEnd& end, std::uint16_t flag,
           std::string_view name, std::uint32_t name_hash) {
    if (name.size() > 0xFF) throw Error("internal error: a read name longer than BAM allows");
    const std::size_t b = name_hash % size();
    ++candidates_[piece][b];
    SpillFile& file = files_.at(piece, b);
    char bytes[packed::kCandidateBytes];
    packed::put_candidate({end, flag, static_cast<std::uint8_t>(name.size())}, bytes);
    file.write(bytes, sizeof bytes);
    file.write(name.data(), name.size());
  }
  void finish() { files_.finish(); }
  /// Picard's pairs of the candidates of bucket b, in no particular order: the candidates in
  /// visiting order (each piece's file read on a thread of its own into its place), then
  /// pair_ends; the files are given up.
  markdup::ReadEndArray pairs(std::size_t b, kernels::Backend backend) {
    const std::size_t pieces = files_.pieces();
    std::vector<std::size_t> first_row(pieces + 1, 0);
    std::vector<std::uint64_t> first_name_byte(pieces + 1, 0);
    for (std::size_t piece = 0; piece < pieces; ++piece) {
      const std::size_t rows = candidates_[piece][b];
      first_row[piece + 1] = first_row[piece] + rows;
      first_name_byte[piece + 1] =
          first_name_byte[piece] + files_.at(piece, b).size() - rows * packed::kCandidateBytes;
    }
    markdup::PairCandidates candidates;
    const std::size_t rows = first_row.back();
    candidates.ends.resize(rows);
    candidates.name_hash.resize(rows);
    candidates.flag.resize(rows);
    candidates.name_offset.resize(rows + 1);
    candidates.name_offset[0] = 0;
    candidates.names.resize(static_cast<std::size_t>(first_name_byte.back()));
    oneapi::tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t piece) {
      SpillFile::Reader in = files_.at(piece, b).reader(1 << 20);
      std::uint64_t name_at = first_name_byte[piece];
      char bytes[packed::kCandidateBytes];
      for (std::size_t k = first_row[piece]; k < first_row[piece + 1]; ++k) {
        if (!in.read(bytes, sizeof bytes)) throw Error("internal error: a name bucket ends early");
        const packed::Candidate c = packed::get_candidate(bytes);
        char* name = candidates.names.data() + name_at;
        if (c.name_length > 0 && !in.read(name, c.name_length)) {
          throw Error("internal error: a name bucket ends early");
        }
        candidates.ends[k] = c.end;
        candidates.name_hash[k] = markdup::end_name_hash(std::string_view(name, c.name_length));
        candidates.flag[k] = c.flag;
        name_at += c.name_length;
        candidates.name_offset[k + 1] = name_at;
      }
    });
    files_.drop(b);
    return markdup::pair_ends(candidates, backend);
  }

 private:
  PieceFiles files_;
  std::vector<std::vector<std::size_t>> candidates_;  ///< [piece][bucket]: candidates written
};

}  // namespace

SpilledMarking::SpilledMarking(AlignmentInputs& reader, const std::string& read_name_regex,
                               bool queryname_grouped, std::uint64_t budget,
                               const std::string& directory, kernels::Backend backend,
                               SpilledRuns::RunWriting run_writing,
                               SpilledRuns::RunReading run_reading)
    : header_(reader.header()),
      queryname_grouped_(queryname_grouped),
      budget_(budget),
      directory_(directory),
      runs_(directory, reader.header(), SpilledRuns::Order::kCoordinate, std::move(run_writing),
            std::move(run_reading)),
      contigs_with_reads_(reader.header().contigs().size()),
      mapped_reads_(reader.header().contigs().size()) {
  markdup::library_keys(io::ReadBatch(), header_, library_names_);
  if (queryname_grouped_) {
    features_.emplace(read_name_regex);
  } else {
    marking_runs_.emplace(directory);
  }
  // Runs of a sixth of the budget: the next run is read while one is written, and each run's
  // columns (which may grow to twice their size), its order and what writing it holds fit
  // beside what is kept.
  const BatchSize run_size{.records = ~std::size_t{0}, .bytes = budget / 6};
  return_freed_memory();
  io::ReadBatch chunk;
  io::ReadBatch next;
  markdup::EndFeatures chunk_features(read_name_regex);
  std::vector<std::string> names;
  bool warned = false;
  PhaseTimes times;
  PhaseTimes records_times;
  PhaseTimes reading;  // the next run, beside the writing
  const auto read_run = [&](io::ReadBatch& into) {
    into.clear();
    return timed_phase(&reading, "read", [&] { return reader.read_batch(into, run_size); });
  };
  for (std::size_t read = read_run(chunk); read > 0; std::swap(chunk, next)) {
    timed_phase(&times, "end features", [&] { chunk_features.compute(chunk, header_); });
    for (const std::int32_t tid : chunk.tid) {
      if (tid >= 0) contigs_with_reads_[static_cast<std::size_t>(tid)] = true;
    }
    count_mapped_reads(chunk, mapped_reads_);
    const std::vector<std::uint32_t> sorted =
        timed_phase(&times, "sort", [&] { return stages::sort::coordinate_order(chunk, backend); });
    // The records go out on a thread of their own while the keys are written and the next run
    // is read.
    std::future<std::size_t> ahead = std::async(std::launch::async, [&] { return read_run(next); });
    std::future<void> records = std::async(std::launch::async, [&] {
      timed_phase(&records_times, "records out", [&] { runs_.add(chunk, sorted); });
    });
    std::string kept;
    const auto keys_started = std::chrono::steady_clock::now();
    if (queryname_grouped_) {
      features_->append(chunk_features);
      markdup::append_marking_columns(chunk, columns_);
      const std::size_t bytes = markdup::marking_bytes(columns_, *features_);
      kept = "duplicate keys " + format_bytes(bytes);
      if (!warned && bytes > budget / 3) {
        log::warning("the duplicate-marking keys of input grouped by name (" + format_bytes(bytes) +
                     " so far) take more than a third of --max-memory; marking them needs "
                     "about three times that");
        warned = true;
      }
    } else {
      const std::vector<std::int32_t> libraries = markdup::library_keys(chunk, header_, names);
      marking_runs_->add(chunk, sorted, chunk_features, libraries);
      for (std::size_t i = 0; i < chunk.size(); ++i) {
        if (!markdup::makes_read_end(chunk.flag[i])) continue;
        if (ends_++ % kSampleEvery == 0) {
          position_sample_.push_back(position_key(chunk.tid[i], chunk_features.five_prime[i]));
        }
        if (markdup::may_pair(chunk.flag[i])) ++pair_candidates_;
      }
      kept = "duplicate keys " + format_bytes(marking_runs_->disk_bytes()) + " on disk";
    }
    times.add("keys out", seconds_since(keys_started));
    records.get();
    read = ahead.get();
    log::info("spilled run " + std::to_string(runs_.count()) + " (" +
              std::to_string(runs_.records()) + " records so far, " +
              format_bytes(runs_.disk_bytes()) + " of temporary disk; " + kept + ")");
  }
  chunk = io::ReadBatch();
  next = io::ReadBatch();
  if (queryname_grouped_) markdup::shrink_to_fit(columns_, *features_);
  // What the records' writing spent its time on (parts of "records out").
  const io::BamWriteSeconds& writing = runs_.write_seconds();
  records_times.add("of it encoding and compressing", writing.filling + writing.compressing);
  records_times.add("framing", writing.framing);
  records_times.add("waiting for the disk", writing.writes_waited);
  log::info("spilling: " + times.summary() + "; beside the keys: " + records_times.summary() +
            "; beside both, the next run: " + reading.summary());
}

markdup::MarkDuplicatesResult SpilledMarking::mark(const io::Header& header,
                                                   markdup::MarkDuplicatesOptions options,
                                                   kernels::Backend backend) {
  markdup::MarkDuplicatesResult result;
  duplicate_bits_.assign((runs_.records() + 63) / 64, 0);
  if (queryname_grouped_) {
    mark_by_template(header, std::move(options), backend, result);
  } else {
    mark_by_coordinate(header, options, backend, result);
  }
  return result;
}

void SpilledMarking::mark_by_template(const io::Header& header,
                                      markdup::MarkDuplicatesOptions options,
                                      kernels::Backend backend,
                                      markdup::MarkDuplicatesResult& result) {
  options.features = &*features_;
  result = markdup::mark_duplicates(columns_, header, options, backend);
  columns_ = io::ReadBatch();
  features_.reset();
  for (std::size_t k = 0; k < result.order.size(); ++k) {
    if (result.flags[result.order[k]] & io::flag::kDuplicate) set_bit(duplicate_bits_, k);
  }
  result.order = {};
  result.flags = {};
}

void SpilledMarking::mark_by_coordinate(const io::Header& header,
                                        const markdup::MarkDuplicatesOptions& options,
                                        kernels::Backend backend,
                                        markdup::MarkDuplicatesResult& result) {
  // Half of the budget for one key range or name bucket at a time; the files' write buffers
  // share a quarter.
  const std::uint64_t room = std::max<std::uint64_t>(budget_ / 2, 1 << 20);
  const std::size_t range_count = parts_for(ends_ + pair_candidates_ / 2, kBytesPerEnd, room);
  const std::size_t bucket_count = parts_for(pair_candidates_, kBytesPerCandidate, room);
  // The merge in pieces side by side, each with files of its own for every range and bucket.
  const std::size_t files_per_piece = range_count + bucket_count + 1;
  const auto threads = static_cast<std::size_t>(oneapi::tbb::global_control::active_value(
      oneapi::tbb::global_control::max_allowed_parallelism));
  const std::size_t pieces = marking_runs_->cut(
      std::clamp<std::size_t>(kMostFiles / files_per_piece, 1, threads), budget_);
  const std::size_t buffer = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      budget_ / 4 / (pieces * files_per_piece + range_count), 4096, 1 << 20));
  KeyRanges ranges(std::move(position_sample_), range_count, pieces, directory_, buffer);
  NameBuckets buckets(bucket_count, pieces, directory_, buffer);
  log::info("marking duplicates: " + std::to_string(ends_) + " read ends in " +
            std::to_string(ranges.size()) + " key ranges, " + std::to_string(pair_candidates_) +
            " mates in " + std::to_string(bucket_count) + " name buckets; the runs merged in " +
            std::to_string(pieces) + (pieces == 1 ? " piece" : " pieces side by side"));

  // The records in coordinate order, each with its index in file: fragment ends into their key
  // ranges, ends that may pair into their name buckets, every record's library and flag (for
  // the counts) into a file in index order. Records from the first unplaced unmapped one on make
  // no ends (Picard stops there; those records all lie in the last piece).
  PhaseTimes times;
  std::vector<markdup::LibraryMetrics> by_library(library_names_.size());
  // Each record's library key and flag, in index order piece after piece.
  PieceFiles kinds(pieces, 1, directory_, buffer);
  std::vector<char> stopped(pieces, 0);
  timed_phase(&times, "ends and mates out", [&] {
    marking_runs_->merge(budget_, [&](std::size_t piece, const MarkingRuns::Block& block,
                                      std::size_t row, std::uint64_t index) {
      const std::uint16_t flag = block.columns.flag[row];
      char kind[packed::kKindBytes];
      packed::put_kind({block.columns.library[row], flag, static_cast<std::uint16_t>(block.run)},
                       kind);
      kinds.at(piece, 0).write(kind, sizeof kind);
      if (stopped[piece] || ((flag & io::flag::kUnmapped) && block.columns.tid[row] == -1)) {
        stopped[piece] = 1;
        return;
      }
      if (!markdup::makes_read_end(flag)) return;
      const markdup::ReadEnd end =
          markdup::fragment_end(block.columns, row, block.columns.library, block.features,
                                static_cast<std::int64_t>(index));
      ranges.add_fragment(piece, end);
      if (!markdup::may_pair(flag)) return;
      const std::string_view name = block.columns.read_name(row);
      buckets.add(piece, end, flag, name, markdup::end_name_hash(name));
    });
  });
  std::vector<std::vector<std::uint64_t>> marking_runs_first_rows;
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    marking_runs_first_rows.push_back(marking_runs_->first_rows(piece));
  }
  marking_runs_.reset();  // its disk back: the counts come from `kinds`
  buckets.finish();
  timed_phase(&times, "pairs", [&] {
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      ranges.add_pairs(buckets.pairs(b, backend));
    }
  });

  // Each key range's duplicate sets.
  const markdup::ReadNameParser parser(options.read_name_regex);
  std::map<std::int32_t, std::int64_t> optical_by_library;
  timed_phase(&times, "duplicate sets", [&] {
    for (std::size_t p = 0; p < ranges.size(); ++p) {
      markdup::ReadEndLists lists = ranges.take(p);
      const markdup::Duplicates duplicates = markdup::find_duplicates(
          lists, parser, options.optical_pixel_distance, backend, result.histograms, options.times);
      for (const std::int64_t index : duplicates.indexes) {
        set_bit(duplicate_bits_, static_cast<std::uint64_t>(index));
      }
      for (const auto& [library, count] : duplicates.optical_by_library) {
        optical_by_library[library] += count;
      }
    }
  });
  // Picard's read counts per library: every record with its new flag (the pieces counted side by
  // side, their counts added up); and each duplicate's bit by its place in its spilled run.
  // (Runs are numbered in 16 bits: with more, the bits by run are not kept.)
  const bool by_run = runs_.count() <= kMostRunsNumbered;
  if (by_run) run_duplicate_bits_.resize(runs_.count());
  for (std::size_t r = 0; r < run_duplicate_bits_.size(); ++r) {
    run_duplicate_bits_[r].assign((runs_.run_records(r) + 63) / 64, 0);
  }
  timed_phase(&times, "counts", [&] {
    std::vector<std::uint64_t> first_index(pieces + 1, 0);
    for (std::size_t piece = 0; piece < pieces; ++piece) {
      first_index[piece + 1] = first_index[piece] + kinds.at(piece, 0).size() / packed::kKindBytes;
    }
    std::vector<std::vector<markdup::LibraryMetrics>> of_piece(
        pieces, std::vector<markdup::LibraryMetrics>(by_library.size()));
    oneapi::tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t piece) {
      SpillFile::Reader in = kinds.at(piece, 0).reader(1 << 20);
      std::uint64_t index = first_index[piece];
      std::vector<std::uint64_t> run_row = marking_runs_first_rows[piece];
      char bytes[packed::kKindBytes];
      for (; in.read(bytes, sizeof bytes); ++index) {
        const packed::RecordKind kind = packed::get_kind(bytes);
        const bool duplicate = test_bit(duplicate_bits_, index);
        if (by_run) {
          const std::uint64_t row = run_row[kind.run]++;
          if (duplicate) set_bit_shared(run_duplicate_bits_[kind.run], row);
        }
        const std::uint16_t marked =
            duplicate ? (kind.flag | io::flag::kDuplicate) : (kind.flag & ~io::flag::kDuplicate);
        markdup::count_record(kind.flag, marked,
                              of_piece[piece][static_cast<std::size_t>(kind.library)]);
      }
    });
    for (const auto& counts : of_piece) {
      for (std::size_t l = 0; l < by_library.size(); ++l)
        markdup::add_counts(counts[l], by_library[l]);
    }
  });
  result.single_library = markdup::add_library_rows(header, library_names_, by_library,
                                                    optical_by_library, result.metrics) == 1;
  log::info("marking duplicates: " + times.summary());
}

std::uint64_t SpilledMarking::duplicates() const {
  std::uint64_t count = 0;
  for (const std::uint64_t word : duplicate_bits_)
    count += static_cast<std::uint64_t>(std::popcount(word));
  return count;
}

void SpilledMarking::merge(bool remove_duplicates, std::uint64_t memory_bytes,
                           const SpilledRuns::Consume& consume, PhaseTimes* times, bool last_merge,
                           const SpilledRuns::BatchPreparation& prepare) {
  std::uint64_t k = 0;  // position in coordinate order of the piece's first record
  runs_.merge(
      memory_bytes,
      [&](MergedRows& merged) {
        if (k + merged.size() > runs_.records()) {
          throw Error("internal error: the spilled runs hold more records than were read");
        }
        // Each record's FLAG in the batch it was read into (the rows name distinct records).
        oneapi::tbb::parallel_for(
            oneapi::tbb::blocked_range<std::size_t>(0, merged.size(), std::size_t{1} << 14),
            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
              for (std::size_t j = range.begin(); j != range.end(); ++j) {
                const io::ReadBatch::RowRef ref = merged.ref(j);
                std::uint16_t& flag = merged.source(ref.source).flag[ref.row];
                const bool duplicate = test_bit(duplicate_bits_, k + j);
                flag = static_cast<std::uint16_t>((flag & ~io::flag::kDuplicate) |
                                                  (duplicate ? io::flag::kDuplicate : 0));
              }
            });
        k += merged.size();
        if (remove_duplicates) {
          merged.keep_rows_if([](const io::ReadBatch& batch, std::size_t row) {
            return !(batch.flag[row] & io::flag::kDuplicate);
          });
        }
        consume(merged);
      },
      times, last_merge, prepare);
  if (k != runs_.records()) {
    throw Error("internal error: the spilled runs hold fewer records than were read");
  }
}

bool SpilledMarking::visit_by_contig(std::uint64_t memory_bytes,
                                     const std::function<void(io::ReadBatch&)>& consume,
                                     PhaseTimes* times) {
  // Each duplicate's place in its run is known only from marking by coordinate, and only for
  // the runs as they were spilled.
  if (run_duplicate_bits_.size() != runs_.count() || !runs_.as_added()) return false;
  return runs_.visit_by_contig(
      memory_bytes,
      [&](std::size_t run, std::uint64_t first_row, io::ReadBatch& batch) {
        const std::vector<std::uint64_t>& bits = run_duplicate_bits_[run];
        if (first_row + batch.size() > runs_.run_records(run)) {
          throw Error("internal error: a spilled run holds more records than were written");
        }
        for (std::size_t j = 0; j < batch.size(); ++j) {
          const bool duplicate = test_bit(bits, first_row + j);
          batch.flag[j] = static_cast<std::uint16_t>((batch.flag[j] & ~io::flag::kDuplicate) |
                                                     (duplicate ? io::flag::kDuplicate : 0));
        }
        consume(batch);
      },
      times);
}

}  // namespace gpp::pipeline
