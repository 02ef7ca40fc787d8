// BQSR per-base work as batch kernels over plain arrays: ApplyBQSR's new qualities and
// BaseRecalibrator's covariate counts. The stage code (stages/bqsr/) does the per-read transforms
// (read filters, CIGAR consolidation, adaptor and soft-clip clipping, known-site masks, the
// empirical qualities of the table) and hands the kernels compact per-read descriptors.
//
// Two backends run the same per-base rules (kernels/bqsr_core.hpp): a host model (oneTBB) used by
// tests on machines without a GPU, and CUDA (one warp per read). Results are identical: integer
// counts, and qualities from the same double additions in the same order.
//
// @code
//   // ApplyBQSR: qualities of reads [0, n) recalibrated into `out` (same layout as `quals`)
//   recalibrate_qualities(model, {bases, quals, offsets, read_group, strand}, out, Backend::kGpu);
//   // BaseRecalibrator: counts accumulated over chunks of reads
//   CovariateCounter counter(shape, contig_count, Backend::kGpu, CountingMethod::kDense);
//   counter.set_contig(t, bases);  // before the first chunk with a read on contig t
//   for (const CountingChunk& chunk : chunks) counter.count(chunk);
//   CovariateCounts counts = counter.finish();
// @endcode
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/bqsr/bqsr_rules.hpp"
#include "kernels/device/device.hpp"

namespace gpp::kernels::bqsr {

/// Read-group value of ApplyReads for a read whose qualities are only quantized (its read group is
/// not in the table and --allow-missing-read-group was given).
inline constexpr std::int32_t kQuantizeOnly = -1;
/// Read-group value of ApplyReads for a read left as it is (no qualities, or no M bin).
inline constexpr std::int32_t kKeepQualities = -2;

/// What ApplyBQSR needs of the recalibration table, flattened (see PosteriorTables).
struct RecalibrationModel {
  int read_groups = 0;
  int context_size = 2;                      ///< --mismatches-context-size of the table
  int low_quality_tail = 2;                  ///< --low-quality-tail of the table
  int preserve_below = 6;                    ///< --preserve-qscores-less-than
  int context_slots = 0;                     ///< 4^context_size
  int cycle_slots = 0;                       ///< 2 * maximum_cycle_value + 2
  std::span<const double> y2;                ///< read_groups * 94
  std::span<const double> context_delta;     ///< read_groups * 94 * context_slots, NaN = absent
  std::span<const double> cycle_delta;       ///< read_groups * 94 * cycle_slots, NaN = absent
  std::span<const std::int32_t> quantized;   ///< 94 entries
  std::span<const std::int32_t> static_map;  ///< 254 entries
};

/// Reads to recalibrate: read i spans [offsets[i], offsets[i + 1]) of `bases` and `quals`.
struct ApplyReads {
  std::span<const char> bases;
  std::span<const std::uint8_t> quals;  ///< qualities to recalibrate (OQ already substituted)
  std::span<const std::uint64_t> offsets;
  std::span<const std::int32_t> read_group;  ///< table key, kQuantizeOnly or kKeepQualities
  std::span<const std::uint8_t> strand;      ///< kReverseStrand | kSecondOfPair bits
};

/**
 * @brief New qualities of every base of `reads`, written to `out` (same layout as reads.quals).
 *
 * Per read with a table key: the low-quality tails, then per base the context and cycle keys and
 * recalibrated_quality(). kQuantizeOnly reads: quantized[min(q, 93)]. kKeepQualities: copied.
 * Every read must be at most (cycle_slots - 2) / 2 bases long (the caller checks the cycle bound).
 * @throws gpp::Error for kGpu without CUDA or on a CUDA failure
 */
void recalibrate_qualities(const RecalibrationModel& model, const ApplyReads& reads,
                           std::span<std::uint8_t> out, Backend backend);

/// recalibrate_qualities for batch after batch with one model: the GPU backend copies the model
/// to the device once and keeps its page-locked and device buffers from one call to the next.
/// The model's arrays must outlive this object; one caller at a time.
class QualityRecalibration {
 public:
  QualityRecalibration(const RecalibrationModel& model, Backend backend);
  ~QualityRecalibration();
  QualityRecalibration(const QualityRecalibration&) = delete;
  QualityRecalibration& operator=(const QualityRecalibration&) = delete;

  /// As recalibrate_qualities(model, reads, out, backend).
  void recalibrate(const ApplyReads& reads, std::span<std::uint8_t> out);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Shape of the count tables: event M only, mismatch context size.
struct CountingShape {
  int read_groups = 0;
  int context_size = 2;
  int low_quality_tail = 2;
  int context_slots = 0;  ///< 4^context_size
  int cycle_slots = 0;    ///< 2 * maximum_cycle_value + 2
};

/// How counts are accumulated; both give identical counts.
enum class CountingMethod {
  kDense,       ///< atomic increments of dense tables (block-private quality/context tables)
  kSortReduce,  ///< one key per count, radix-sorted, runs counted
};

/**
 * @brief A chunk of clipped reads to count (BaseRecalibrator after the read transforms). Read i's
 * bases are bases[first_base[i], first_base[i] + length[i]), aligned at reference position
 * ref_start[i] (0-based) of contig contig[i] with clipped CIGAR cigar[cigar_offset[i],
 * cigar_offset[i + 1]) (BAM-packed, no clips). Known sites mask the half-open read-offset ranges
 * known[2j], known[2j + 1] for j in [known_offset[i], known_offset[i + 1]).
 */
struct CountingChunk {
  std::span<const char> bases;
  std::span<const std::uint8_t> quals;
  std::span<const std::uint64_t> first_base;
  std::span<const std::uint32_t> length;
  std::span<const std::int32_t> read_group;
  std::span<const std::uint8_t> strand;
  std::span<const std::int32_t> contig;
  std::span<const std::int64_t> ref_start;
  std::span<const std::uint32_t> cigar_offset;  ///< reads + 1
  std::span<const std::uint32_t> cigar;
  std::span<const std::uint32_t> known_offset;  ///< reads + 1
  std::span<const std::uint32_t> known;
  std::size_t size() const { return length.size(); }
};

/// Observations and mismatches per bin: quality [rg * 94 + q], context [(rg * 94 + q) *
/// context_slots + key], cycle [(rg * 94 + q) * cycle_slots + key].
struct CovariateCounts {
  std::vector<std::uint64_t> quality_observations, quality_errors;
  std::vector<std::uint64_t> context_observations, context_errors;
  std::vector<std::uint64_t> cycle_observations, cycle_errors;
};

/**
 * @brief Counts the bases of chunks of reads: every base that is ACGT, has quality >= 6 and is not
 * masked counts once in its quality, context (when the key exists) and cycle bins, with an error
 * when it is aligned (M/=/X) to a different reference base (IUPAC and bases past the contig end:
 * mismatch).
 */
class CovariateCounter {
 public:
  /// A counter for reads on contigs [0, contig_count), whose bases come with set_contig.
  CovariateCounter(const CountingShape& shape, std::size_t contig_count, Backend backend,
                   CountingMethod method);
  ~CovariateCounter();
  CovariateCounter(const CovariateCounter&) = delete;
  CovariateCounter& operator=(const CovariateCounter&) = delete;

  /// The reference bases of contig t, given before the first chunk with a read on it (once per
  /// contig). The GPU backend copies them to the device; the CPU backend keeps the span, so the
  /// bases must outlive the counter.
  void set_contig(std::size_t t, std::span<const char> bases);

  /// Adds the counts of `chunk` (at most 2^32 - 1 bases in all).
  void count(const CountingChunk& chunk);
  /// The counts so far.
  CovariateCounts finish();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpp::kernels::bqsr
