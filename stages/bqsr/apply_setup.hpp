// What ApplyBQSR derives from the recalibration report before it touches a read: the posterior
// tables (empirical qualities of every bin, with the prior the hierarchy gives it), the quality
// maps and the read-group keys. Shared by the CPU path and the kernel path of apply_bqsr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "stages/bqsr/apply_bqsr.hpp"
#include "stages/bqsr/read_transform.hpp"  // substitute_original_qualities
#include "stages/bqsr/recal_report.hpp"

namespace gpp::stages::bqsr {

struct ApplySetup {
  /// Empirical qualities per bin (each bin is always reached with the same prior, so GATK's
  /// per-datum cache holds exactly these values).
  std::vector<double> y1;             ///< per read group; NaN when the read group has no M bin
  std::vector<double> y2;             ///< per (rg, q)
  std::vector<double> context_delta;  ///< per (rg, q, key): EmpQ(bin | y2) - y2; NaN when absent
  std::vector<double> cycle_delta;    ///< per (rg, q, key); NaN when absent
  std::vector<int> quantized;         ///< 94 entries: --quantize-quals map (identity when 0)
  std::vector<int> static_map;        ///< 254 entries: --static-quantized-quals map
  std::vector<int> rg_key;            ///< per header read group: report key, -1 when absent
  int context_size = 2;
  int low_quality_tail = 2;
  int maximum_cycle_value = 500;
  std::size_t context_slots = 0;
  std::size_t cycle_slots = 0;
};

ApplySetup prepare_apply(const io::Header& header, const RecalibrationReport& report,
                         const ApplyOptions& options);

/// The error a read whose read group is not in the table gets without --allow-missing-read-group.
[[noreturn]] void throw_missing_read_group(std::string_view read_name);

}  // namespace gpp::stages::bqsr
