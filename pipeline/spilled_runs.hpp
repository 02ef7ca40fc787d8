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
//   runs.merge(budget, [&](io::ReadBatch& batch) { writer.write(batch); });
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
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "pipeline/shared_inflater.hpp"

namespace gpp::pipeline {

class SpilledRuns {
 public:
  enum class Order { kCoordinate, kQueryname };

  /// How each run is written (asked once per run, so that what the options borrow — the GPU
  /// block encoder — is lent only while a run is written).
  using RunWriting = std::function<io::WriterOptions()>;

  /// Where a merge's runs are inflated: asked once per merge for a decoder its readers share
  /// (null: each inflates on the CPU's threads).
  using RunReading = std::function<std::shared_ptr<SharedInflater>()>;

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
  /// Seconds the runs' writers spent in their stages so far.
  const io::BamWriteSeconds& write_seconds() const { return write_seconds_; }

  /// Hands `consume` every record of every run in merged order, in batches; the merge holds
  /// about `memory_bytes` of records (batches included). `consume` may swap the batch it is
  /// handed for one batch of its own (to work on it after returning): what it hands back is
  /// emptied and filled again.
  /// (With more runs than that memory can read at once, runs are first merged into fewer.)
  /// With `times`, the merging thread's waits are added to it: "waiting for runs" (a run's next
  /// batch not yet read), "merge: ordering", "merge: gathering" (copying the chosen records),
  /// "merge: waiting to hand on" (the consumer not ready), and "reading runs" the seconds the
  /// runs' readers took, summed over the runs (they read side by side).
  /// With `last_merge`, each run's disk space is given back as the merge reads it: no merge may
  /// follow.
  void merge(std::uint64_t memory_bytes, const std::function<void(io::ReadBatch&)>& consume,
             PhaseTimes* times = nullptr, bool last_merge = false);

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
  /// What reading one more run at once costs besides its batch: a reader's buffers and threads.
  static constexpr std::uint64_t kRunReaderBytes = std::uint64_t{8} << 20;

  std::string run_path(std::size_t number) const;
  /// How many runs a merge of `memory_bytes` reads at once.
  static std::size_t fan_in(std::uint64_t memory_bytes);
  void merge_runs(std::size_t first, std::size_t last, std::uint64_t memory_bytes,
                  const std::function<void(io::ReadBatch&)>& consume, PhaseTimes* times,
                  bool free_read) const;

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
