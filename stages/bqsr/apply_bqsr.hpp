// ApplyBQSR (GATK 4 BQSRReadTransformer.apply): new base qualities from a recalibration report.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/phase_times.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "kernels/device/device.hpp"
#include "stages/bqsr/recal_report.hpp"

namespace gpp::stages::bqsr {

struct ApplyOptions {
  int quantize_quals =
      0;  ///< 0: no quantization; > 0: re-quantize to N levels; < 0: the report's map
  std::vector<int> static_quantized_quals;
  bool round_down_quantized = false;
  bool emit_original_quals = false;  ///< add OQ (never replaces an existing OQ)
  int preserve_qscores_less_than = 6;
  double global_qscore_prior =
      -1.0;  ///< used instead of the read group's reported quality when > 0
  bool use_original_qualities = false;  ///< recalibrate the OQ qualities when present
  bool allow_missing_read_group = false;
};

/**
 * @brief Recalibrated qualities and aux fields of every record of `reads` (input order).
 *
 * Per base with quality >= preserve threshold, on the full read (no clipping): prior = the read
 * group's EstimatedQReported (or the global prior); y1 = EmpQ(read-group bin | prior);
 * y2 = EmpQ(quality bin | y1), or y1 without one; Q = y2 + sum over the Context and Cycle bins
 * present of (EmpQ(bin | y2) - y2); new quality = quantized[clamp(fastRound(Q), 1, 93)], then the
 * static map. BI and BD tags are removed; OQ added when asked.
 *
 * `backend` kCpu computes the qualities here, a read at a time; kGpu runs the per-base work as a
 * CUDA kernel (kernels/bqsr.hpp) on descriptors made here. Both give identical qualities; the aux
 * rewrite runs on the CPU (in parallel) for both.
 *
 * @throws gpp::Error when a read's read group is absent from the report (unless allowed), when a
 *         read is longer than the table's maximum cycle, or on a CUDA failure
 */
struct AppliedQualities {
  io::Column<std::uint8_t> qual;  ///< same layout as reads.qual
  io::Column<std::uint8_t> aux;   ///< new aux bytes
  io::Column<std::uint64_t> aux_offset;
};
AppliedQualities apply_recalibration(const io::ReadBatch& reads, const io::Header& header,
                                     const RecalibrationReport& report, const ApplyOptions& options,
                                     kernels::Backend backend = kernels::Backend::kCpu,
                                     PhaseTimes* times = nullptr);

struct ApplySetup;
class KernelRecalibration;

/**
 * @brief apply_recalibration for a stream of batches: the report's posteriors are derived once,
 * then each batch is recalibrated on its own (ApplyBQSR works a read at a time, so any split of
 * the input gives the same records).
 */
class QualityRecalibrator {
 public:
  /// @throws gpp::Error as apply_recalibration does for the report and options
  QualityRecalibrator(const io::Header& header, const RecalibrationReport& report,
                      const ApplyOptions& options, kernels::Backend backend);
  ~QualityRecalibrator();
  QualityRecalibrator(const QualityRecalibrator&) = delete;
  QualityRecalibrator& operator=(const QualityRecalibrator&) = delete;

  /// The new qualities and aux fields of `reads` (as apply_recalibration). One caller at a time.
  AppliedQualities apply(const io::ReadBatch& reads, PhaseTimes* times = nullptr) const;

  /// apply(), with the results put into `reads`.
  void apply_in_place(io::ReadBatch& reads, PhaseTimes* times = nullptr);

 private:
  void compute(const io::ReadBatch& reads, AppliedQualities& into, PhaseTimes* times) const;

  std::unique_ptr<const ApplySetup> setup_;
  ApplyOptions options_;
  std::unique_ptr<KernelRecalibration> kernels_;  // the GPU path; the CPU path otherwise
  AppliedQualities spare_;                        // apply_in_place's columns, reused
};

/**
 * @brief QualityRecalibrators for threads that recalibrate batches at the same time (the runs of a
 * merge, each as it is read): a thread that finds every recalibrator busy gets a new one, up to
 * `most`, else waits for one. Each batch is recalibrated as QualityRecalibrator::apply_in_place
 * does; the first recalibrator is made here (its errors are the constructor's).
 */
class RecalibratorPool {
 public:
  /// Recalibrators a pool makes at most by default: enough that the batches' transfers, kernels
  /// and CPU passes overlap.
  static constexpr std::size_t kDefaultMost = 4;

  RecalibratorPool(const io::Header& header, RecalibrationReport report,
                   const ApplyOptions& options, kernels::Backend backend,
                   std::size_t most = kDefaultMost);

  /// How many recalibrators (1 to kDefaultMost) for batches of about `batch_bytes` (a
  /// ReadBatch's memory_bytes()) keep what they hold within a sixteenth of `memory_bytes`: each
  /// keeps its last batch's new qualities and aux fields, and on the GPU stages the bases,
  /// qualities and new qualities of two launches of up to 64 Mi bases in page-locked memory.
  static std::size_t most_within(std::uint64_t memory_bytes, std::uint64_t batch_bytes);
  ~RecalibratorPool();
  RecalibratorPool(const RecalibratorPool&) = delete;
  RecalibratorPool& operator=(const RecalibratorPool&) = delete;

  /// The most recalibrators the pool makes.
  std::size_t most() const { return most_; }

  /// QualityRecalibrator::apply_in_place with a recalibrator of the pool; from any thread.
  void apply_in_place(io::ReadBatch& reads, PhaseTimes* times = nullptr);

 private:
  std::unique_ptr<QualityRecalibrator> borrow();
  void give_back(std::unique_ptr<QualityRecalibrator> recalibrator);

  io::Header header_;
  RecalibrationReport report_;
  ApplyOptions options_;
  kernels::Backend backend_;
  std::size_t most_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<QualityRecalibrator>> idle_;
  std::size_t made_ = 0;
};

}  // namespace gpp::stages::bqsr
