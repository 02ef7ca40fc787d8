// The HaplotypeCaller model over one contig: read filters and downsampling, active regions, then
// the regions in batches — assembly and read preparation on the CPU threads, the Smith-Waterman
// and PairHMM work of a whole batch of regions in one call each (one GPU launch sequence for
// thousands of regions), genotyping in genomic order.
//
// @code
//   CallerEngines engines(kernels::Backend::kGpu);
//   std::vector<CallRead> reads = ...;                        // one contig, coordinate order
//   select_caller_reads(reads, filter_context, options);     // GATK's read filters, 50 per start
//   call_contig({0, bases}, next_chunk, {{0, length}}, options, engines, sink);  // ReadChunks,
//   CallSink
// @endcode
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "core/phase_times.hpp"
#include "core/stage_timeline.hpp"
#include "kernels/device/device.hpp"
#include "kernels/pairhmm/pairhmm.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"
#include "stages/call/assembly_region_iterator.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/caller_options.hpp"
#include "stages/call/given_alleles.hpp"
#include "stages/call/read_filters.hpp"
#include "stages/call/region_work.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::stages::call {

/// The engines of one backend, kept from batch to batch, and what they and the phases cost.
struct CallerEngines {
  /// With `aligner_of`, another pass's aligner and its lock: passes called side by side (run's
  /// VCF and gVCF) keep one set of Smith-Waterman GPU buffers instead of one each.
  explicit CallerEngines(kernels::Backend backend,
                         const kernels::PairHmmTuning& pairhmm_tuning = {},
                         const kernels::SwTuning& sw_tuning = {},
                         const CallerEngines* aligner_of = nullptr);
  /// The engines made on a thread of their own with the backend `device` gives (it may wait for
  /// the device to start): calling starts at once, and the first Smith-Waterman or PairHMM call
  /// waits for them instead.
  CallerEngines(std::function<kernels::Backend()> device,
                const kernels::PairHmmTuning& pairhmm_tuning, const kernels::SwTuning& sw_tuning);

  /// These wait for the engines (and rethrow an error in making them).
  kernels::Backend backend() const { return devices().backend; }
  kernels::PairHmm& pairhmm() const { return devices().pairhmm; }
  /// Haplotype-to-reference and read-to-haplotype batches, one at a time: hold aligner_lock()
  /// while using it (a caller's stages, and passes sharing it, call it from several threads).
  kernels::SmithWaterman& aligner() const { return *devices().aligner.engine; }
  std::unique_lock<std::mutex> aligner_lock() const {
    return std::unique_lock<std::mutex>(*devices().aligner.lock);
  }

  kernels::SwStats smith_waterman;    ///< summed over every batch
  kernels::PairHmmStats likelihoods;  ///< summed over every batch
  PhaseTimes times;                   ///< activity, assembly, smith-waterman, pairhmm, genotyping
  StageTimeline timeline;             ///< when each stage took each chunk or batch
  std::uint64_t regions = 0;          ///< assembly regions found (active or not)
  std::uint64_t active_regions = 0;

  /// A step that began at `started` and ends now: to its phase's total and to the timeline.
  void record(std::string_view step, StageTimeline::Clock::time_point started) {
    const StageTimeline::Clock::time_point ended = StageTimeline::Clock::now();
    times.add(step, std::chrono::duration<double>(ended - started).count());
    timeline.add(step, started, ended);
  }

 private:
  struct SharedAligner {
    std::shared_ptr<kernels::SmithWaterman> engine;
    std::shared_ptr<std::mutex> lock;
  };
  struct Devices {
    kernels::Backend backend;
    kernels::PairHmm pairhmm;
    SharedAligner aligner;
  };
  static std::shared_ptr<Devices> make_devices(kernels::Backend backend,
                                               const kernels::PairHmmTuning& pairhmm_tuning,
                                               const kernels::SwTuning& sw_tuning,
                                               SharedAligner aligner);
  Devices& devices() const { return *devices_.get(); }
  std::shared_future<std::shared_ptr<Devices>> devices_;
};

/**
 * @brief HaplotypeCaller's read transformer, filters and downsampler (makeStandardHCReadFilters,
 * IUPAC bases to N, --max-reads-per-alignment-start) over the reads of one contig, in place.
 * @throws gpp::Error for a base that is not an IUPAC code
 */
void select_caller_reads(std::vector<CallRead>& reads, const ReadFilterContext& context,
                         const HaplotypeCallerOptions& options);

/// Receives the caller's output in genomic order, batch by batch, so that a genome's records are
/// written as they come rather than held.
class CallSink {
 public:
  virtual ~CallSink() = default;
  virtual void add_call(VariantCall&& call) = 0;
  /// Reference-confidence mode only: a position without a call.
  virtual void add_reference_site(const ReferenceSite& site) = 0;
  /// -bamout: a region's haplotype BAM records (haplotype_bam.hpp), unsorted; every later record
  /// of the contig starts at or after `later_start` (the region's padded reference start).
  virtual void add_bam_records(std::vector<HaplotypeBamRecord>&& records,
                               std::int64_t later_start) {
    (void)records;
    (void)later_start;
  }
};

/**
 * @brief HaplotypeCaller over one contig as its reads arrive.
 *
 * Reads are held only while a position still to be traversed or a region still to be called can
 * need them, so memory follows the batches of regions in flight, not the contig; the output is the
 * same whatever the chunks. In reference-confidence mode every position of the spans reaches the
 * sink, as a reference site or within a call; in VCF mode only the calls do. The sink is called
 * from a writing thread, one batch at a time, in genomic order.
 */
class ContigCaller {
 public:
  /**
   * @param contig the contig's index and bases (upper case); must outlive the caller
   * @param spans  the traversal intervals on the contig (the whole contig without -L), sorted and
   *               disjoint
   * @param given  the alleles to force-call on the contig (--alleles), none when null; must
   *               outlive the caller, which reads (load_through) and drops (release_before) its
   *               records as the traversal goes
   * @param called_read_groups  --sample-name on an input of several samples: per read group
   *               (header order), whether its reads are called; the others' reads count for the
   *               activity and are removed from each region before assembly, as GATK's
   *               removeReadsFromAllSamplesExcept does. Empty: every read is called. Must outlive
   *               the caller.
   */
  ContigCaller(const ContigReference& contig, std::span<const TraversalSpan> spans,
               const HaplotypeCallerOptions& options, CallerEngines& engines, CallSink& sink,
               GivenAlleles* given = nullptr,
               std::span<const std::uint8_t> called_read_groups = {});
  ~ContigCaller();
  ContigCaller(const ContigCaller&) = delete;
  ContigCaller& operator=(const ContigCaller&) = delete;

  /// The next reads after select_caller_reads, in coordinate order, whole alignment-start stacks
  /// (a start position is never split between calls). @throws gpp::Error as the engines do
  void add(std::vector<CallRead>&& reads);

  /// No more reads: calls the rest of the contig and waits until the sink has all of it.
  void finish();

 private:
  class State;
  std::unique_ptr<State> state_;
};

}  // namespace gpp::stages::call
