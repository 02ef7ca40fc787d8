// ApplyBQSR set-up; see apply_setup.hpp.
#include "stages/bqsr/apply_setup.hpp"

#include <limits>
#include <string>
#include <unordered_map>

#include "core/error.hpp"
#include "stages/bqsr/quantization.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

constexpr int kMismatch = static_cast<int>(EventType::kMismatch);

void compute_posteriors(const RecalTables& tables, double global_prior, ApplySetup& p) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int rgs = tables.read_group_count();
  const std::size_t ctx_slots = p.context_slots;
  const std::size_t cycle_slots = p.cycle_slots;
  p.y1.assign(static_cast<std::size_t>(rgs), nan);
  p.y2.assign(static_cast<std::size_t>(rgs) * kQualCount, nan);
  p.context_delta.assign(static_cast<std::size_t>(rgs) * kQualCount * ctx_slots, nan);
  p.cycle_delta.assign(static_cast<std::size_t>(rgs) * kQualCount * cycle_slots, nan);
  for (int rg = 0; rg < rgs; ++rg) {
    const RecalBin& rg_bin = tables.read_group(rg, kMismatch);
    if (!rg_bin.present) continue;
    const double prior = global_prior > 0.0 ? global_prior : rg_bin.estimated_quality;
    const double y1 = empirical_quality(rg_bin.observations, rg_bin.errors(), prior);
    p.y1[static_cast<std::size_t>(rg)] = y1;
    for (int q = 0; q < kQualCount; ++q) {
      const RecalBin& q_bin = tables.quality(rg, q, kMismatch);
      const double y2 =
          q_bin.present ? empirical_quality(q_bin.observations, q_bin.errors(), y1) : y1;
      const std::size_t rq =
          static_cast<std::size_t>(rg) * kQualCount + static_cast<std::size_t>(q);
      p.y2[rq] = y2;
      for (std::size_t key = 0; key < ctx_slots; ++key) {
        const RecalBin& bin = tables.context(rg, q, static_cast<int>(key), kMismatch);
        if (bin.present)
          p.context_delta[rq * ctx_slots + key] =
              empirical_quality(bin.observations, bin.errors(), y2) - y2;
      }
      for (std::size_t key = 0; key < cycle_slots; ++key) {
        const RecalBin& bin = tables.cycle(rg, q, static_cast<int>(key), kMismatch);
        if (bin.present)
          p.cycle_delta[rq * cycle_slots + key] =
              empirical_quality(bin.observations, bin.errors(), y2) - y2;
      }
    }
  }
}

}  // namespace

ApplySetup prepare_apply(const io::Header& header, const RecalibrationReport& report,
                         const ApplyOptions& options) {
  const RecalTables& tables = report.tables;
  const CovariateOptions& covariate_options = tables.options();
  ApplySetup setup;
  setup.context_size = covariate_options.mismatches_context_size;
  setup.low_quality_tail = covariate_options.low_quality_tail;
  setup.maximum_cycle_value = covariate_options.maximum_cycle_value;
  setup.context_slots = static_cast<std::size_t>(context_key_count(setup.context_size));
  setup.cycle_slots = static_cast<std::size_t>(tables.cycle_slots());
  compute_posteriors(tables, options.global_qscore_prior, setup);
  setup.quantized.resize(kQualCount);
  if (options.quantize_quals == 0) {
    for (int q = 0; q < kQualCount; ++q) setup.quantized[static_cast<std::size_t>(q)] = q;
  } else if (options.quantize_quals > 0 &&
             options.quantize_quals != covariate_options.quantizing_levels) {
    setup.quantized = quantize_qualities(report.quantization_counts, options.quantize_quals);
  } else {
    setup.quantized = report.quantized_quals;
  }
  setup.static_map =
      static_quantization_map(options.static_quantized_quals, options.round_down_quantized);
  // Report read-group key of every header read group (-1 when the report lacks it).
  std::unordered_map<std::string, int> report_rg;
  for (std::size_t k = 0; k < report.read_groups.size(); ++k)
    report_rg.emplace(report.read_groups[k], static_cast<int>(k));
  for (const io::ReadGroup& rg : header.read_groups()) {
    const auto it = report_rg.find(read_group_identifier(rg));
    setup.rg_key.push_back(it == report_rg.end() ? -1 : it->second);
  }
  return setup;
}

void throw_missing_read_group(std::string_view read_name) {
  throw ReadError("read " + std::string(read_name) +
                  " has a read group that is not in the recalibration table (or none); use "
                  "--allow-missing-read-group to only quantize such reads");
}

}  // namespace gpp::stages::bqsr
