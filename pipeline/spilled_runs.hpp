// SpilledRuns: records sorted in memory-sized runs, each spilled to a temporary BAM (deflate level
// 1), then merged back in one stream — how a command sorts an input larger than --max-memory.
//
// The merge is stable: records that compare equal come in the order they were added (an earlier
// run first), so merging gives exactly the order of one stable sort of everything (samtools sort's
// order, and the order the in-memory paths use). The runs are unnamed temporary files in the
// given directory, removed when the object goes, on error and on SIGINT/SIGTERM alike; merge()
// may be called more than once (`run` reads them twice).
//
// @code
//   SpilledRuns runs(tmp_dir, header, SpilledRuns::Order::kCoordinate);
//   runs.add(chunk, stages::sort::coordinate_order(chunk, backend));   // per chunk
//   runs.merge(budget, [&](MergedRows& merged) { writer.write(merged.rows()); });
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/phase_times.hpp"
#include "io/bam/alignment_writer.hpp"
#include "io/output_file.hpp"
#include "io/reads/batch_rows.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "pipeline/shared_inflater.hpp"

namespace gpp::pipeline {

/// Records of spilled runs in merged order, handed on without copying them together: each row
/// names a batch as a run's reader read it (RowRef::source indexes the sources), and those
/// batches stay alive while the object refers to them.
class MergedRows {
 public:
  io::RowsAcross rows() const { return {sources_, rows_}; }
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  const io::ReadBatch::RowRef& ref(std::size_t k) const { return rows_[k]; }
  /// The batch that source `s` names, to change its records in place (a duplicate's FLAG).
  io::ReadBatch& source(std::size_t s) { return *owners_[s]; }

  /// Keeps the rows for which `keep(batch, row)` holds, in order.
  void keep_rows_if(const std::function<bool(const io::ReadBatch&, std::size_t)>& keep);
  /// Appends copies of the records to `batch`, in order (for what needs one batch).
  void gather_into(io::ReadBatch& batch) const;
  /// Lets go of every row and batch.
  void clear();

  /// A batch the rows may name; returns its source number.
  std::uint32_t add_source(std::shared_ptr<io::ReadBatch> batch);
  void append(io::ReadBatch::RowRef row) { rows_.push_back(row); }
  /// Appends `rows`, whose RowRef::source is a run r, as rows of source `source_of_run[r]`.
  void append(std::span<const io::ReadBatch::RowRef> rows,
              std::span<const std::uint32_t> source_of_run);

 private:
  std::vector<std::shared_ptr<io::ReadBatch>> owners_;
  std::vector<const io::ReadBatch*> sources_;  ///< owners_' batches
  std::vector<io::ReadBatch::RowRef> rows_;
};

class SpilledRuns {
 public:
  enum class Order { kCoordinate, kQueryname };

  /// How each run is written (asked once per run, so that what the options borrow — the GPU
  /// block encoder — is lent only while a run is written).
  using RunWriting = std::function<io::WriterOptions()>;

  /// Where a merge's runs are inflated: asked once per merge for a decoder its readers share
  /// (null: each inflates on the CPU's threads).
  using RunReading = std::function<std::shared_ptr<SharedInflater>()>;

  /// What a merge hands on: MergedRows, which `consume` may swap for one of its own (to work on
  /// it after returning); what it hands back is cleared and filled again.
  using Consume = std::function<void(MergedRows&)>;

  /// What each batch of a run goes through as it is read, before it is merged: a change of its
  /// records that does not depend on their order (recalibrating their qualities). Called on the
  /// runs' reading threads, several at once.
  using BatchPreparation = std::function<void(io::ReadBatch&)>;

  /// Runs of records of `header` in `order`, spilled into `directory`; BAM at deflate level 1 on
  /// the CPU unless `run_writing` says otherwise, read back on the CPU unless `run_reading` says
  /// otherwise.
  SpilledRuns(std::string directory, const io::Header& header, Order order,
              RunWriting run_writing = {}, RunReading run_reading = {});
  ~SpilledRuns();
  SpilledRuns(const SpilledRuns&) = delete;
  SpilledRuns& operator=(const SpilledRuns&) = delete;

  /// Writes the records of `chunk` in `sorted` (a permutation putting them in order) as the next
  /// run. Throws gpp::Error naming the directory when it cannot be written.
  void add(const io::ReadBatch& chunk, std::span<const std::uint32_t> sorted);

  std::size_t count() const { return runs_.size(); }
  std::uint64_t records() const { return records_; }
  /// Records of run `r` (in the order of add()) while the runs are as added.
  std::uint64_t run_records(std::size_t r) const { return run_records_[r]; }
  /// Whether the runs are still those add() wrote (a merge of more runs than it could read at
  /// once replaces them with fewer).
  bool as_added() const { return run_records_.size() == runs_.size(); }
  /// Bytes the runs take on disk.
  std::uint64_t disk_bytes() const { return disk_bytes_; }
  /// About how many bytes of records each batch of a run holds in the last merge of a merge() of
  /// `memory_bytes` (the batches a BatchPreparation is handed).
  std::uint64_t merge_batch_bytes(std::uint64_t memory_bytes) const;
  /// Seconds the runs' writers spent in their stages so far.
  const io::BamWriteSeconds& write_seconds() const { return write_seconds_; }

  /// Hands `consume` every record of every run in merged order, in pieces (MergedRows: the
  /// records stay in the batches the runs were read into, each through `prepare` if given); the
  /// merge holds about `memory_bytes` of batches. (With more runs than that memory can read at
  /// once, runs are first merged into fewer.)
  /// With `times`, the merging thread's waits are added to it: "waiting for runs" (a run's next
  /// batch not yet read), "merge: ordering", "merge: waiting to hand on" (the consumer not
  /// ready), and "reading runs" the seconds the runs' readers took, summed over the runs (they
  /// read side by side).
  /// With `last_merge`, each run's disk space is given back as the merge reads it: no merge may
  /// follow.
  void merge(std::uint64_t memory_bytes, const Consume& consume, PhaseTimes* times = nullptr,
             bool last_merge = false, const BatchPreparation& prepare = {});

  /// Hands `visit` every record of every run without merging them: each run's batches in its
  /// order, with the run's number and the batch's first row in it; contig by contig (coordinate
  /// order; records of no contig last): a batch goes once no run holds a record of an earlier
  /// contig than its first. A batch may reach into later contigs; within a contig the runs take
  /// turns. `visit` may change the batch's records; it is refilled afterwards. Holds about
  /// `memory_bytes` of batches. Returns false, visiting nothing, when the runs are more than that
  /// memory reads at once (merge() then merges them into fewer first) or not as added. `times`
  /// as merge()'s ("waiting for runs", "reading runs").
  using RunVisit = std::function<void(std::size_t run, std::uint64_t first_row, io::ReadBatch&)>;
  bool visit_by_contig(std::uint64_t memory_bytes, const RunVisit& visit,
                       PhaseTimes* times = nullptr) const;

 private:
  /// Runs `write` (of the run at `run`, a temporary file's path); its errors name the temporary
  /// directory instead.
  void naming_the_directory(const std::string& run, const std::function<void()>& write) const;
  /// What reading one more run at once costs besides its batch: a reader's buffers and threads.
  static constexpr std::uint64_t kRunReaderBytes = std::uint64_t{8} << 20;

  std::string run_path(std::size_t number) const;
  /// How many runs a merge of `memory_bytes` reads at once.
  static std::size_t fan_in(std::uint64_t memory_bytes);
  /// Each run's batch bytes when a merge of `memory_bytes` reads `count` runs at once.
  static std::uint64_t run_batch_bytes(std::uint64_t memory_bytes, std::size_t count);
  void merge_runs(std::size_t first, std::size_t last, std::uint64_t memory_bytes,
                  const Consume& consume, PhaseTimes* times, bool free_read,
                  const BatchPreparation& prepare) const;

  std::string directory_;
  io::Header header_;
  Order order_;
  RunWriting run_writing_;
  RunReading run_reading_;
  std::vector<std::unique_ptr<io::OutputFile>> runs_;  // never committed: removed at the end
  std::size_t runs_made_ = 0;                          ///< numbers the runs' names
  std::uint64_t records_ = 0;
  std::vector<std::uint64_t> run_records_;  ///< by run of add(); cleared when runs are merged
  std::uint64_t disk_bytes_ = 0;
  io::BamWriteSeconds write_seconds_;
};

}  // namespace gpp::pipeline
