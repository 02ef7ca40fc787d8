#include "pipeline/spilled_runs.hpp"

#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <filesystem>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <span>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "pipeline/alignment_stream.hpp"
#include "pipeline/log.hpp"
#include "stages/sort/coordinate_sort.hpp"
#include "stages/sort/key_block_merge.hpp"
#include "stages/sort/queryname_sort.hpp"
#include "stages/sort/run_merge.hpp"

namespace gpp::pipeline {

namespace {

// Batches lent as shared pointers that come back when the last holder lets go, to be filled
// again: their columns keep their room (growing a batch of hundreds of megabytes from nothing
// each time costs as much as the merge).
class BatchPool : public std::enable_shared_from_this<BatchPool> {
 public:
  std::shared_ptr<io::ReadBatch> take() {
    std::unique_ptr<io::ReadBatch> batch;
    {
      const std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        batch = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (batch) {
      batch->clear();
    } else {
      batch = std::make_unique<io::ReadBatch>();
    }
    return {batch.release(), [pool = shared_from_this()](io::ReadBatch* returned) {
              const std::lock_guard lock(pool->mutex_);
              pool->free_.emplace_back(returned);
            }};
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<io::ReadBatch>> free_;
};

// One run being merged: its reader, the records loaded, and the next one to hand on. The run's
// next batch is read (inflated and decoded into columns, then prepared) on a thread of its own
// while this one is merged, so that the merging thread only orders records.
class RunReader {
 public:
  RunReader(const std::string& path, const io::ReaderOptions& options, const BatchSize& size,
            bool by_name, std::shared_ptr<BatchPool> pool, SpilledRuns::BatchPreparation prepare,
            PhaseTimes* times)
      : reader_(std::make_unique<io::AlignmentReader>(path, options)),
        size_(size),
        by_name_(by_name),
        pool_(std::move(pool)),
        prepare_(std::move(prepare)),
        times_(times) {
    current_.batch = pool_->take();
    read_ahead();
  }

  const io::ReadBatch& batch() const { return *current_.batch; }
  io::ReadBatch& batch() { return *current_.batch; }
  /// The batch, for what keeps it past the next refill().
  const std::shared_ptr<io::ReadBatch>& shared_batch() const { return current_.batch; }
  /// The batch's coordinate keys (coordinate order only).
  std::span<const std::uint64_t> keys() const {
    return {current_.keys.data(), current_.keys.size()};
  }
  std::size_t next = 0;

  /// The read-ahead batch becomes the one merged; false at the end of the run (the spent batch
  /// then stays).
  bool refill() {
    if (ended_) return false;
    Loaded loaded = timed_phase(times_, "waiting for runs", [&] { return ahead_.get(); });
    if (loaded.batch->empty()) {
      ended_ = true;
      return false;
    }
    current_ = std::move(loaded);
    next = 0;
    read_ahead();
    return true;
  }

 private:
  struct Loaded {
    std::shared_ptr<io::ReadBatch> batch;
    io::Column<std::uint64_t> keys;  // coordinate keys of batch
  };

  void read_ahead() {
    ahead_ = std::async(std::launch::async, [this] {
      Loaded loaded{pool_->take(), {}};
      {
        const ScopedPhase phase(times_, "reading runs");
        read_batch(*reader_, *loaded.batch, size_);
        if (!by_name_) loaded.keys = stages::sort::coordinate_keys(*loaded.batch);
      }
      if (prepare_ && !loaded.batch->empty()) prepare_(*loaded.batch);
      return loaded;
    });
  }

  std::unique_ptr<io::AlignmentReader> reader_;
  BatchSize size_;
  bool by_name_;
  std::shared_ptr<BatchPool> pool_;
  SpilledRuns::BatchPreparation prepare_;
  PhaseTimes* times_;
  bool ended_ = false;
  Loaded current_;
  std::future<Loaded> ahead_;  // last: waited for before the reader goes
};

// Merged rows handed from the merging thread to the consuming one: at most one piece waits. A
// consumed piece comes back, cleared, to be filled again (its vectors keep their room).
class MergedQueue {
 public:
  // Thrown into the merging thread when the consumer has stopped.
  struct Abandoned {};

  void push(MergedRows&& merged) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !waiting_ || abandoned_; });
    if (abandoned_) throw Abandoned{};
    waiting_ = std::move(merged);
    changed_.notify_all();
  }
  /// A consumed piece, cleared, for the merge to fill; a new one when none is back yet.
  MergedRows spare() {
    const std::lock_guard lock(mutex_);
    std::optional<MergedRows> merged;
    merged.swap(spare_);
    return merged ? std::move(*merged) : MergedRows();
  }
  void recycle(MergedRows&& merged) {
    merged.clear();  // its batches go back as soon as the consumer is done with them
    const std::lock_guard lock(mutex_);
    spare_ = std::move(merged);
  }
  void close() {
    const std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  void fail(std::exception_ptr error) {
    const std::lock_guard lock(mutex_);
    error_ = std::move(error);
    closed_ = true;
    changed_.notify_all();
  }
  void abandon() {
    const std::lock_guard lock(mutex_);
    abandoned_ = true;
    changed_.notify_all();
  }
  /// The next piece; nothing once the merge is done. Rethrows the merge's error.
  std::optional<MergedRows> pop() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return waiting_ || closed_; });
    if (waiting_) {
      std::optional<MergedRows> merged = std::move(waiting_);
      waiting_.reset();
      changed_.notify_all();
      return merged;
    }
    if (error_) {
      try {
        std::rethrow_exception(error_);
      } catch (const Abandoned&) {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<MergedRows> waiting_;
  std::optional<MergedRows> spare_;
  bool closed_ = false;
  bool abandoned_ = false;
  std::exception_ptr error_;
};

// The merging thread is what the readers of the runs and the consumer wait for: its parallel
// work (ordering, gathering) goes before theirs when threads are shared.
oneapi::tbb::task_arena merging_arena() {
  return oneapi::tbb::task_arena(oneapi::tbb::task_arena::automatic, 1,
                                 oneapi::tbb::task_arena::priority::high);
}

using RunReaders = std::vector<std::unique_ptr<RunReader>>;
using Consume = SpilledRuns::Consume;

// Which source of the piece being made each run's batch is (kNone: not yet one of them).
class RunSources {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  explicit RunSources(std::size_t runs) : sources_(runs, kNone) {}

  /// Run r's batch as a source of `merged`.
  std::uint32_t of(std::size_t r, const RunReaders& runs, MergedRows& merged) {
    if (sources_[r] == kNone) sources_[r] = merged.add_source(runs[r]->shared_batch());
    return sources_[r];
  }
  std::span<const std::uint32_t> all() const { return sources_; }
  /// Run r's batch was replaced.
  void refilled(std::size_t r) { sources_[r] = kNone; }
  /// The piece was handed on: the next one names its batches afresh.
  void handed_on() { std::fill(sources_.begin(), sources_.end(), kNone); }

 private:
  std::vector<std::uint32_t> sources_;
};

// Queryname order: the merging thread chooses record by record (RunMerge: samtools' order, an
// earlier run first on ties: stable).
void merge_by_record(RunReaders& runs, std::uint64_t output_bytes, const Consume& consume) {
  stages::sort::RunMerge order(
      runs.size(), [&](std::size_t r) { return !runs[r]->batch().empty(); },
      [&](std::size_t a, std::size_t b) {
        const RunReader& x = *runs[a];
        const RunReader& y = *runs[b];
        return stages::sort::queryname_compare(x.batch(), x.next, y.batch(), y.next) <=> 0;
      });
  MergedRows merged;
  RunSources sources(runs.size());
  std::uint64_t merged_bytes = 0;
  while (!order.empty()) {
    const std::size_t r = order.top();
    RunReader& run = *runs[r];
    merged.append({sources.of(r, runs, merged), static_cast<std::uint32_t>(run.next)});
    merged_bytes += run.batch().rows_memory_bytes(run.next, run.next + 1);
    if (++run.next < run.batch().size()) {
      order.advanced(true);
    } else {
      sources.refilled(r);
      order.advanced(run.refill());
    }
    if (merged_bytes >= output_bytes) {
      consume(merged);
      merged.clear();
      sources.handed_on();
      merged_bytes = 0;
    }
  }
  if (!merged.empty()) consume(merged);
}

// Coordinate order: a block of records at a time (stages/sort/key_block_merge.hpp), its order
// found by a parallel sort; then the batches the block spent are replaced by the runs' next ones.
void merge_by_block(RunReaders& runs, std::uint64_t output_bytes, const Consume& consume,
                    PhaseTimes* times) {
  std::vector<stages::sort::LoadedRun> loaded(runs.size());
  std::vector<io::ReadBatch::RowRef> rows;
  MergedRows merged;
  RunSources sources(runs.size());
  std::uint64_t merged_bytes = 0;
  oneapi::tbb::task_arena arena = merging_arena();
  for (;;) {
    for (std::size_t r = 0; r < runs.size(); ++r) loaded[r] = {runs[r]->keys(), runs[r]->next};
    const std::vector<std::size_t> ends = stages::sort::block_ends(loaded);
    timed_phase(times, "merge: ordering",
                [&] { arena.execute([&] { stages::sort::block_order(loaded, ends, rows); }); });
    if (rows.empty()) break;  // every run is spent
    // The block's bytes come from each run's offsets at the block's two ends (asking each row,
    // in merged order, would read every run's columns at once, a cache miss a row); the pieces
    // are cut at the block's average row size.
    std::uint64_t block_bytes = 0;  // more than 0: every row has fixed columns
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (ends[r] > loaded[r].next) {
        block_bytes += runs[r]->batch().rows_memory_bytes(loaded[r].next, ends[r]);
      }
    }
    for (std::size_t from = 0; from < rows.size();) {
      // The rows that fill the piece to output_bytes (at least one), or what is left.
      const std::uint64_t room = output_bytes - merged_bytes;
      const std::uint64_t fill = (room * rows.size() + block_bytes - 1) / block_bytes;
      const std::size_t take =
          static_cast<std::size_t>(std::clamp<std::uint64_t>(fill, 1, rows.size() - from));
      for (std::size_t r = 0; r < runs.size(); ++r) {
        if (ends[r] > loaded[r].next) sources.of(r, runs, merged);
      }
      merged.append(std::span(rows).subspan(from, take), sources.all());
      from += take;
      merged_bytes += block_bytes * take / rows.size();
      if (take >= fill || merged_bytes >= output_bytes) {
        consume(merged);
        merged.clear();
        sources.handed_on();
        merged_bytes = 0;
      }
    }
    for (std::size_t r = 0; r < runs.size(); ++r) {
      runs[r]->next = ends[r];
      if (loaded[r].has_records() && ends[r] == loaded[r].keys.size() && runs[r]->refill()) {
        sources.refilled(r);
      }
    }
  }
  if (!merged.empty()) consume(merged);
}

// A reader of each of `paths`, inflating through the shared decoder `run_reading` gives (if any),
// each batch about `batch_bytes` and put through `prepare` (if any); `by_name`: no coordinate
// keys.
RunReaders open_runs(std::span<const std::string> paths, std::uint64_t batch_bytes, bool by_name,
                     const SpilledRuns::RunReading& run_reading, bool free_read,
                     const SpilledRuns::BatchPreparation& prepare, PhaseTimes* times) {
  const BatchSize run_batch{.records = std::size_t{1} << 20, .bytes = batch_bytes};
  // Each reader inflates steps of a sixteenth of its batch (about a quarter of it inflated, one
  // step read ahead). With a shared decoder each reader stages two parts in flight of ahead /
  // 32 KiB blocks (64 KiB of contents at most each): a quarter of its batch at most.
  const std::size_t ahead = static_cast<std::size_t>(
      std::clamp<std::uint64_t>(batch_bytes / 16, std::uint64_t{64} << 10, std::uint64_t{4} << 20));
  const std::shared_ptr<SharedInflater> decoder = run_reading ? run_reading() : nullptr;
  const std::size_t part_blocks = ahead / (32 << 10);
  if (decoder) {
    log::debug(std::to_string(paths.size()) + " spilled runs read through one block decoder");
  }
  const auto pool = std::make_shared<BatchPool>();
  RunReaders runs;
  for (const std::string& path : paths) {
    runs.push_back(std::make_unique<RunReader>(
        path,
        io::ReaderOptions{
            .read_ahead_bytes = ahead,
            .inflate_offload = decoder ? decoder->client(part_blocks) : io::InflateOffload{},
            .inflate_first = false,
            .free_read_bytes = free_read},
        run_batch, by_name, pool, prepare, times));
  }
  for (const auto& run : runs) run->refill();
  return runs;
}

// Where a batch's records go in contig order: its first record's contig, records of none last.
std::int64_t contig_rank(const io::ReadBatch& batch) {
  const std::int32_t tid = batch.tid.front();
  return tid >= 0 ? tid : std::numeric_limits<std::int64_t>::max();
}

}  // namespace

void MergedRows::keep_rows_if(const std::function<bool(const io::ReadBatch&, std::size_t)>& keep) {
  std::erase_if(rows_, [&](const io::ReadBatch::RowRef& ref) {
    return !keep(*sources_[ref.source], ref.row);
  });
}

void MergedRows::gather_into(io::ReadBatch& batch) const { batch.append_rows(sources_, rows_); }

void MergedRows::clear() {
  owners_.clear();
  sources_.clear();
  rows_.clear();
}

std::uint32_t MergedRows::add_source(std::shared_ptr<io::ReadBatch> batch) {
  sources_.push_back(batch.get());
  owners_.push_back(std::move(batch));
  return static_cast<std::uint32_t>(sources_.size() - 1);
}

void MergedRows::append(std::span<const io::ReadBatch::RowRef> rows,
                        std::span<const std::uint32_t> source_of_run) {
  const std::size_t first = rows_.size();
  rows_.resize(first + rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    rows_[first + k] = {source_of_run[rows[k].source], rows[k].row};
  }
}

SpilledRuns::SpilledRuns(std::string directory, const io::Header& header, Order order,
                         RunWriting run_writing, RunReading run_reading)
    : directory_(std::move(directory)),
      header_(header.clone()),
      order_(order),
      run_writing_(run_writing ? std::move(run_writing) : RunWriting([] {
        return io::WriterOptions{.compression_level = 1};
      })),
      run_reading_(std::move(run_reading)) {
  std::error_code ec;
  if (!std::filesystem::is_directory(directory_, ec)) {
    throw Error(directory_ + ": cannot hold temporary files (not a directory)");
  }
  if (::access(directory_.c_str(), W_OK | X_OK) != 0) {
    throw Error(directory_ + ": cannot hold temporary files (" + std::strerror(errno) + ")");
  }
}

SpilledRuns::~SpilledRuns() = default;

void SpilledRuns::naming_the_directory(const std::string& run,
                                       const std::function<void()>& write) const {
  try {
    write();
  } catch (const Error& e) {
    // The run has no name of its own (its /proc path says nothing): the directory is named.
    // As the other temporary files say it (spill_file.cpp).
    const std::string what = e.what();
    if (!what.starts_with(run + ": ")) throw;
    std::string reason = what.substr(run.size() + 2);
    if (reason.starts_with("cannot write (") && reason.ends_with(")")) {
      reason = reason.substr(14, reason.size() - 15);
    }
    throw Error(directory_ + ": cannot write temporary files (" + reason + ")");
  }
}

void SpilledRuns::add(const io::ReadBatch& chunk, std::span<const std::uint32_t> sorted) {
  runs_.push_back(std::make_unique<io::OutputFile>(run_path(++runs_made_)));
  const std::string& path = runs_.back()->temp_path();
  naming_the_directory(path, [&] {
    io::AlignmentWriter writer(path, header_, run_writing_());
    writer.write(chunk, sorted);
    writer.finish();
    write_seconds_ += writer.bam_stage_seconds();
  });
  // The spill is bound by the CPU, not the disk: the run goes to the disk now, on this thread,
  // instead of piling up with the next runs until the kernel holds up the marking for them.
  runs_.back()->start_writeback();
  records_ += sorted.size();
  run_records_.push_back(sorted.size());
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec) disk_bytes_ += size;
}

void SpilledRuns::merge(std::uint64_t memory_bytes, const Consume& consume, PhaseTimes* times,
                        bool last_merge, const BatchPreparation& prepare) {
  if (runs_.empty()) return;  // no record was read
  // Each run read at once costs a reader's fixed buffers and threads besides its share of the
  // batches: with more runs than the memory allows, groups of consecutive runs (so that ties keep
  // their order) are first merged into one run each, as often as needed.
  const std::size_t most = fan_in(memory_bytes);
  if (runs_.size() > most) run_records_.clear();  // the runs become others
  while (runs_.size() > most) {
    std::vector<std::unique_ptr<io::OutputFile>> merged_runs;
    for (std::size_t first = 0; first < runs_.size(); first += most) {
      const std::size_t last = std::min(runs_.size(), first + most);
      if (last - first == 1) {
        merged_runs.push_back(std::move(runs_[first]));
        continue;
      }
      merged_runs.push_back(std::make_unique<io::OutputFile>(run_path(++runs_made_)));
      // Compressed on the CPU: the consumer may already hold what run_writing_ borrows (the
      // final writer, the GPU encoder), and a merge of more runs than fit is rare.
      const std::string& path = merged_runs.back()->temp_path();
      naming_the_directory(path, [&] {
        io::AlignmentWriter writer(path, header_, {.compression_level = 1});
        // The group's runs are read for the last time: their disk space comes back as they are
        // read, so that a group and its merged run take little more disk than the group did.
        // Their records are prepared in the last merge only.
        merge_runs(first, last, memory_bytes,
                   [&](MergedRows& merged) { writer.write(merged.rows()); }, nullptr, true, {});
        writer.finish();
      });
      for (std::size_t r = first; r < last; ++r) runs_[r].reset();
    }
    runs_ = std::move(merged_runs);
  }
  // The merged pieces are made on a thread of their own while `consume` works on the last one:
  // the merge is one thread's work, and so is much of what consumes it.
  MergedQueue merged;
  auto producer = std::async(std::launch::async, [&] {
    try {
      merge_runs(
          0, runs_.size(), memory_bytes,
          [&](MergedRows& piece) {
            timed_phase(times, "merge: waiting to hand on", [&] { merged.push(std::move(piece)); });
            piece = merged.spare();
          },
          times, last_merge, prepare);
      merged.close();
    } catch (...) {
      merged.fail(std::current_exception());
    }
  });
  try {
    while (std::optional<MergedRows> piece = merged.pop()) {
      consume(*piece);
      merged.recycle(std::move(*piece));
    }
  } catch (...) {
    merged.abandon();
    producer.wait();
    throw;
  }
  producer.get();
}

bool SpilledRuns::visit_by_contig(std::uint64_t memory_bytes, const RunVisit& visit,
                                  PhaseTimes* times) const {
  if (runs_.empty()) return true;  // no record was read
  if (runs_.size() > fan_in(memory_bytes) || !as_added()) return false;
  // A quarter of the memory for the runs' batches (each run holds two: the one visited and the
  // one read ahead; columns may grow to twice their size).
  const std::uint64_t per_run = std::max<std::uint64_t>(memory_bytes / 8 / runs_.size(), 1 << 16);
  std::vector<std::string> paths;
  for (const auto& run : runs_) paths.push_back(run->temp_path());
  RunReaders runs = open_runs(paths, per_run, true, run_reading_, false, {}, times);
  std::vector<std::uint64_t> first_row(runs.size(), 0);
  std::vector<char> spent(runs.size(), 0);
  for (std::size_t r = 0; r < runs.size(); ++r) spent[r] = runs[r]->batch().empty();
  for (;;) {
    // The earliest contig a run's batch starts on; each run whose batch starts there hands it.
    std::int64_t lowest = 0;
    bool any = false;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (spent[r]) continue;
      const std::int64_t rank = contig_rank(runs[r]->batch());
      if (!any || rank < lowest) lowest = rank;
      any = true;
    }
    if (!any) break;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (spent[r] || contig_rank(runs[r]->batch()) != lowest) continue;
      io::ReadBatch& batch = runs[r]->batch();
      visit(r, first_row[r], batch);
      first_row[r] += batch.size();
      spent[r] = !runs[r]->refill();
    }
  }
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (first_row[r] != run_records_[r]) {
      throw Error("internal error: a spilled run holds other records than were written");
    }
  }
  return true;
}

std::uint64_t SpilledRuns::merge_batch_bytes(std::uint64_t memory_bytes) const {
  // The runs the last merge reads: as many as there are, after grouping as merge() does.
  const std::size_t most = fan_in(memory_bytes);
  std::size_t count = std::max<std::size_t>(1, runs_.size());
  while (count > most) count = (count + most - 1) / most;
  return run_batch_bytes(memory_bytes, count);
}

std::uint64_t SpilledRuns::run_batch_bytes(std::uint64_t memory_bytes, std::size_t count) {
  return std::max<std::uint64_t>(memory_bytes / 12 / count, 1 << 16);
}

std::size_t SpilledRuns::fan_in(std::uint64_t memory_bytes) {
  return std::max<std::size_t>(2, static_cast<std::size_t>(memory_bytes / kRunReaderBytes));
}

std::string SpilledRuns::run_path(std::size_t number) const {
  const std::string name =
      ".gpu-pipeline." + std::to_string(::getpid()) + ".run" + std::to_string(number) + ".bam";
  return (std::filesystem::path(directory_) / name).string();
}

void SpilledRuns::merge_runs(std::size_t first, std::size_t last, std::uint64_t memory_bytes,
                             const Consume& consume, PhaseTimes* times, bool free_read,
                             const BatchPreparation& prepare) const {
  const bool by_name = order_ == Order::kQueryname;
  const std::size_t count = last - first;
  // Each run's batches take a twelfth of the memory over the runs, each piece handed on a 32nd:
  // four pieces may be held (being made, waiting, being consumed, and one the consumer keeps in
  // exchange (merge())), and the batches they name hold their rows and at most two batches of
  // each run beyond them (a piece's rows of one run are consecutive, and so are the pieces'),
  // besides the batch each run reads ahead: at most 4/32 + 3/12 of the memory in batches
  // (columns may grow to twice their size); the writer takes a sixteenth. Ordering a block takes
  // 24 bytes a record of the runs' batches (a few percent of them).
  const std::uint64_t per_run = run_batch_bytes(memory_bytes, count);
  const std::uint64_t output_bytes = std::max<std::uint64_t>(memory_bytes / 32, 1 << 20);
  std::vector<std::string> paths;
  for (std::size_t r = first; r < last; ++r) paths.push_back(runs_[r]->temp_path());
  RunReaders runs = open_runs(paths, per_run, by_name, run_reading_, free_read, prepare, times);
  if (by_name) {
    merge_by_record(runs, output_bytes, consume);
  } else {
    merge_by_block(runs, output_bytes, consume, times);
  }
}

}  // namespace gpp::pipeline
