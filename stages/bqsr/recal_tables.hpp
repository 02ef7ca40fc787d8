// The recalibration tables (GATK RecalibrationTables): counts per (read group, event),
// (read group, quality, event) and (read group, quality, covariate value, event) for the Context
// and Cycle covariates, held as dense arrays indexed by the integer covariate keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stages/bqsr/covariates.hpp"

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

  /// Bytes the tables of that shape hold (every bin of every covariate held is allocated).
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
  RecalBin& quality(int rg, int q, int event) { return quality_[quality_index(rg, q, event)]; }
  const RecalBin& quality(int rg, int q, int event) const {
    return event < event_count_ ? quality_[quality_index(rg, q, event)] : kAbsent;
  }
  RecalBin& context(int rg, int q, int key, int event) {
    return context_[context_index(rg, q, key, event)];
  }
  const RecalBin& context(int rg, int q, int key, int event) const {
    return event < event_count_ ? context_[context_index(rg, q, key, event)] : kAbsent;
  }
  RecalBin& cycle(int rg, int q, int key, int event) {
    return cycle_[cycle_index(rg, q, key, event)];
  }
  const RecalBin& cycle(int rg, int q, int key, int event) const {
    return event < event_count_ ? cycle_[cycle_index(rg, q, key, event)] : kAbsent;
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
  std::size_t quality_index(int rg, int q, int event) const {
    return (static_cast<std::size_t>(rg) * 94 + static_cast<std::size_t>(q)) *
               static_cast<std::size_t>(event_count_) +
           static_cast<std::size_t>(event);
  }
  std::size_t context_index(int rg, int q, int key, int event) const {
    return ((static_cast<std::size_t>(rg) * 94 + static_cast<std::size_t>(q)) * context_slots_ +
            static_cast<std::size_t>(key)) *
               static_cast<std::size_t>(event_count_) +
           static_cast<std::size_t>(event);
  }
  std::size_t cycle_index(int rg, int q, int key, int event) const {
    return ((static_cast<std::size_t>(rg) * 94 + static_cast<std::size_t>(q)) * cycle_slots_ +
            static_cast<std::size_t>(key)) *
               static_cast<std::size_t>(event_count_) +
           static_cast<std::size_t>(event);
  }

  static inline const RecalBin kAbsent{};  ///< a bin of an event not held

  CovariateOptions options_;
  int read_group_count_ = 0;
  int event_count_ = kEventCount;
  int context_slots_ = 0;
  int cycle_slots_ = 0;
  std::vector<RecalBin> read_group_;
  std::vector<RecalBin> quality_;
  std::vector<RecalBin> context_;
  std::vector<RecalBin> cycle_;
};

}  // namespace gpp::stages::bqsr
