// Recalibration tables; see recal_tables.hpp.
#include "stages/bqsr/recal_tables.hpp"

#include <algorithm>
#include <cmath>

#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

RecalTables::RecalTables(int read_group_count, const CovariateOptions& options, int event_count)
    : options_(options),
      read_group_count_(read_group_count),
      event_count_(event_count),
      context_slots_(context_key_count(
          std::max(options.mismatches_context_size, options.indels_context_size))),
      cycle_slots_(cycle_key_count(options.maximum_cycle_value)) {
  const std::size_t rq = static_cast<std::size_t>(read_group_count) * kQualCount;
  read_group_.resize(static_cast<std::size_t>(read_group_count) *
                     static_cast<std::size_t>(event_count));
  quality_.resize(rq * static_cast<std::size_t>(event_count));
  blocks_.resize(rq);
}

std::uint64_t RecalTables::memory_bytes(int read_group_count, const CovariateOptions& options,
                                        int event_count) {
  const std::uint64_t slots =
      1 +
      static_cast<std::uint64_t>(context_key_count(
          std::max(options.mismatches_context_size, options.indels_context_size))) +
      static_cast<std::uint64_t>(cycle_key_count(options.maximum_cycle_value));
  return static_cast<std::uint64_t>(read_group_count) * kQualCount *
         static_cast<std::uint64_t>(event_count) * slots * sizeof(RecalBin);
}

namespace {
void merge_bins(std::vector<RecalBin>& into, const std::vector<RecalBin>& from) {
  for (std::size_t i = 0; i < into.size(); ++i) {
    if (!from[i].present) continue;
    into[i].observations += from[i].observations;
    into[i].scaled_errors += from[i].scaled_errors;
    into[i].present = true;
  }
}

void round_bins(std::vector<RecalBin>& bins) {
  for (RecalBin& bin : bins) {
    if (!bin.present) continue;
    bin.scaled_errors = round_to_decimals(bin.errors(), 2) * RecalBin::kMultiplier;
    bin.estimated_quality = round_to_decimals(bin.estimated_quality, 4);
  }
}
}  // namespace

void RecalTables::merge(const RecalTables& other) {
  merge_bins(read_group_, other.read_group_);
  merge_bins(quality_, other.quality_);
  for (std::size_t rq = 0; rq < blocks_.size(); ++rq) {
    if (other.blocks_[rq].empty()) continue;
    const int rg = static_cast<int>(rq / kQualCount);
    const int q = static_cast<int>(rq % kQualCount);
    merge_bins(block(rg, q), other.blocks_[rq]);
  }
}

void RecalTables::finalize() {
  for (int rg = 0; rg < read_group_count_; ++rg) {
    for (int q = 0; q < kQualCount; ++q) {
      for (int event = 0; event < event_count_; ++event) {
        quality(rg, q, event).estimated_quality = q;
      }
    }
  }
  for (std::size_t rq = 0; rq < blocks_.size(); ++rq) {
    for (RecalBin& bin : blocks_[rq]) bin.estimated_quality = static_cast<double>(rq % kQualCount);
  }
  for (int rg = 0; rg < read_group_count_; ++rg) {
    for (int event = 0; event < event_count_; ++event) {
      RecalBin& combined = read_group(rg, event);
      combined = RecalBin{};
      for (int q = 0; q < kQualCount; ++q) {
        const RecalBin& bin = quality(rg, q, event);
        if (!bin.present) continue;
        if (!combined.present) {
          combined = bin;
          continue;
        }
        // RecalDatum.combine
        const double sum_errors =
            static_cast<double>(combined.observations) *
                qual_to_error_prob(combined.estimated_quality) +
            static_cast<double>(bin.observations) * qual_to_error_prob(bin.estimated_quality);
        combined.add(bin.observations, bin.errors());
        combined.estimated_quality =
            -10.0 * std::log10(sum_errors / static_cast<double>(combined.observations));
      }
    }
  }
  round_bins(read_group_);
  round_bins(quality_);
  for (std::vector<RecalBin>& bins : blocks_) round_bins(bins);
}

}  // namespace gpp::stages::bqsr
