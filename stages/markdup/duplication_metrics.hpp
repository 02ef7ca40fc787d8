// Picard's DuplicationMetrics: per-library counts, PERCENT_DUPLICATION, ESTIMATED_LIBRARY_SIZE,
// and the metrics file text (htsjdk MetricsFile layout: the same rows and histogram as Picard;
// only the two header comment lines, command line and start date, are ours).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpp::stages::markdup {

struct LibraryMetrics {
  std::string library;
  std::int64_t unpaired_reads_examined = 0;
  std::int64_t read_pairs_examined = 0;  ///< pairs (reads / 2) once finalised
  std::int64_t secondary_or_supplementary_reads = 0;
  std::int64_t unmapped_reads = 0;
  std::int64_t unpaired_read_duplicates = 0;
  std::int64_t read_pair_duplicates = 0;  ///< pairs once finalised
  std::int64_t read_pair_optical_duplicates = 0;
  double percent_duplication = 0;
  std::optional<std::int64_t> estimated_library_size = {};
};

/// Histograms keyed by set size (Picard's all_sets / optical_sets / non_optical_sets).
struct SetSizeHistograms {
  std::map<double, double> all_sets;
  std::map<double, double> optical_sets;
  std::map<double, double> non_optical_sets;
};

/// Picard DuplicationMetrics.estimateLibrarySize (Lander-Waterman by bisection); nothing when
/// there are no pairs or no duplicate pairs.
std::optional<std::int64_t> estimate_library_size(std::int64_t read_pairs,
                                                  std::int64_t unique_read_pairs);

/// Fills percent_duplication and estimated_library_size from the counts.
void calculate_derived_fields(LibraryMetrics& metrics);

/// Picard's ROI histogram (CoverageMult for x = 1..100), empty without a library size estimate.
std::map<double, double> coverage_multiple_histogram(const LibraryMetrics& metrics);

/// Java's DecimalFormat as htsjdk FormatUtil uses it: at most 6 fraction digits, half-even,
/// no trailing zeros, no grouping.
std::string format_picard_double(double value);

/**
 * @brief The metrics file text.
 * @param rows        library rows in output order
 * @param single_library  Picard adds the coverage (ROI) histogram only for a single library
 * @param histograms      set-size histograms, written whenever they hold anything
 */
std::string format_metrics_file(const std::string& command_line, const std::string& started_on,
                                const std::vector<LibraryMetrics>& rows, bool single_library,
                                const SetSizeHistograms& histograms);

}  // namespace gpp::stages::markdup
