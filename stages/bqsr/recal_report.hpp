// The recalibration report (GATK RecalUtils.generateReportTables, QuantizationInfo,
// RecalibrationReport): RecalTables to GATKReport text and back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stages/bqsr/covariates.hpp"
#include "stages/bqsr/recal_tables.hpp"

namespace gpp::stages::bqsr {

/// A recalibration report as ApplyBQSR needs it.
struct RecalibrationReport {
  std::vector<std::string>
      read_groups;     ///< identifiers (PU or ID); a read group's key is its index
  RecalTables tables;  ///< options() holds the report's Arguments
  std::vector<std::int64_t> quantization_counts;  ///< Quantized table Count, qualities 0..93
  std::vector<int> quantized_quals;  ///< Quantized table QuantizedScore, qualities 0..93
};

/// Observation counts per fastRound(empirical quality) of the quality table (QuantizationInfo).
std::vector<std::int64_t> empirical_quality_histogram(const RecalTables& tables);

/**
 * @brief The report GATK BaseRecalibrator writes for finalized `tables`: Arguments, Quantized
 * (quantizing_levels bins), RecalTable0 (read group), RecalTable1 (quality), RecalTable2 (Context
 * and Cycle), rows sorted by every column left to right (strings lexicographically, numbers
 * numerically), empirical qualities from each bin's own reported quality.
 */
std::string format_recalibration_report(const RecalTables& tables,
                                        const std::vector<std::string>& read_groups);

/**
 * @brief Reads a report written by GATK 3 or 4 or by format_recalibration_report (M, I and D
 * rows; Observations written as integers or decimals).
 * @param max_table_bytes  the most memory the tables may take (every covariate's bins are held:
 *        read groups x contexts x cycles); default: this host's physical memory
 * @throws gpp::Error naming `source` when a table is missing or malformed, an argument is outside
 *         the range GATK (and `bqsr`) accept, or the tables would exceed max_table_bytes
 */
RecalibrationReport parse_recalibration_report(const std::string& text, const std::string& source,
                                               std::uint64_t max_table_bytes = 0);

}  // namespace gpp::stages::bqsr
