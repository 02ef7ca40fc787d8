// The recalibration tables (GATK RecalibrationTables): counts per (read group, event),
// (read group, quality, event) and (read group, quality, covariate value, event) for the Context
// and Cycle covariates, indexed by the integer covariate keys. The Context and Cycle bins of a
// (read group, quality) are allocated when a bin of theirs is first written (GATK's
// NestedIntegerArray allocates per value too): a read group's reads use a few of the 94 qualities
// (four with binned qualities), so many read groups fit where dense tables (3.2 MB a read group)
// would not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stages/bqsr/covariates.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

/// One bin (GATK RecalDatum). Errors are kept multiplied by 100000 as RecalDatum does
/// (MULTIPLIER), so sums of fractional BAQ errors round the way GATK's do.
struct RecalBin {
  std::int64_t observations = 0;
  double scaled_errors = 0.0;
  double estimated_quality = 0.0;  ///< EstimatedQReported (read-group table) or the bin's quality
  bool present = false;

  static constexpr double kMultiplier = 100000.0;
  double errors() const { return scaled_errors / kMultiplier; }
  void add(std::int64_t observations_delta, double errors_delta) {
    observations += observations_delta;
    scaled_errors += errors_delta * kMultiplier;
    present = true;
  }
};

class RecalTables {
 public:
  RecalTables() = default;
  /// Tables of events [0, event_count): kEventCount with the indel tables, 1 (mismatches only)
  /// without; the bins of an event not held read as absent.
  RecalTables(int read_group_count, const CovariateOptions& options, int event_count);

  /// Bytes the tables of that shape hold at most (every quality of every read group written).
  static std::uint64_t memory_bytes(int read_group_count, const CovariateOptions& options,
                                    int event_count);

  int read_group_count() const { return read_group_count_; }
  int event_count() const { return event_count_; }
  int context_slots() const { return context_slots_; }
  int cycle_slots() const { return cycle_slots_; }
  const CovariateOptions& options() const { return options_; }

  RecalBin& read_group(int rg, int event) {
    return read_group_[static_cast<std::size_t>(rg * event_count_ + event)];
  }
  const RecalBin& read_group(int rg, int event) const {
    return event < event_count_ ? read_group_[static_cast<std::size_t>(rg * event_count_ + event)]
                                : kAbsent;
  }
  RecalBin& quality(int rg, int q, int event) {
    return quality_[rq_index(rg, q) * static_cast<std::size_t>(event_count_) +
                    static_cast<std::size_t>(event)];
  }
  const RecalBin& quality(int rg, int q, int event) const {
    return event < event_count_
               ? quality_[rq_index(rg, q) * static_cast<std::size_t>(event_count_) +
                          static_cast<std::size_t>(event)]
               : kAbsent;
  }
  RecalBin& context(int rg, int q, int key, int event) { return block(rg, q)[slot(key, event)]; }
  const RecalBin& context(int rg, int q, int key, int event) const {
    return held(rg, q, key, event);
  }
  RecalBin& cycle(int rg, int q, int key, int event) {
    return block(rg, q)[slot(context_slots_ + key, event)];
  }
  const RecalBin& cycle(int rg, int q, int key, int event) const {
    return held(rg, q, context_slots_ + key, event);
  }

  /// Adds every bin of `other` (same shape) to this one.
  void merge(const RecalTables& other);

  /**
   * @brief BaseRecalibrationEngine.finalizeRecalibrationTables: builds the read-group table by
   * RecalDatum.combine of the quality bins in quality order (observations and errors summed,
   * EstimatedQReported = -10 log10(sum of expected errors / observations)), then rounds errors to
   * 2 and reported qualities to 4 decimals (roundTableValues).
   */
  void finalize();

 private:
  std::size_t rq_index(int rg, int q) const {
    return static_cast<std::size_t>(rg) * kQualCount + static_cast<std::size_t>(q);
  }
  /// A bin's place in its (read group, quality) block: the Context keys, then the Cycle keys.
  std::size_t slot(int key, int event) const {
    return static_cast<std::size_t>(key) * static_cast<std::size_t>(event_count_) +
           static_cast<std::size_t>(event);
  }
  std::vector<RecalBin>& block(int rg, int q) {
    std::vector<RecalBin>& bins = blocks_[rq_index(rg, q)];
    if (bins.empty()) {
      bins.resize(static_cast<std::size_t>(context_slots_ + cycle_slots_) *
                  static_cast<std::size_t>(event_count_));
    }
    return bins;
  }
  const RecalBin& held(int rg, int q, int key, int event) const {
    const std::vector<RecalBin>& bins = blocks_[rq_index(rg, q)];
    return event < event_count_ && !bins.empty() ? bins[slot(key, event)] : kAbsent;
  }

  static inline const RecalBin kAbsent{};  ///< a bin not held

  CovariateOptions options_;
  int read_group_count_ = 0;
  int event_count_ = kEventCount;
  int context_slots_ = 0;
  int cycle_slots_ = 0;
  std::vector<RecalBin> read_group_;
  std::vector<RecalBin> quality_;
  /// Per (read group, quality): its Context and Cycle bins, empty until one is written.
  std::vector<std::vector<RecalBin>> blocks_;
};

}  // namespace gpp::stages::bqsr
