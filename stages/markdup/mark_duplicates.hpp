// Duplicate marking with Picard MarkDuplicates semantics (Picard 2.27, default arguments:
// SUM_OF_BASE_QUALITIES scores, optical duplicates from read names, pixel distance 100).
//
// Reads in any order are put in samtools coordinate order first; Picard's "index in file" then
// refers to that order, so the result equals `samtools sort` followed by Picard MarkDuplicates.
// Input grouped by read name can instead be marked as Picard marks queryname-sorted input
// (ASSUME_SORT_ORDER=queryname, or SO:queryname in the header): per template, in input order,
// every record of a duplicate template flagged (secondary, supplementary and unmapped mates too).
// Keys are sorted as packed integer words (kernels::stable_sort_permutation, CPU or GPU) and
// duplicate sets are the runs of equal keys; no hash map decides anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/phase_times.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "kernels/device/device.hpp"
#include "stages/markdup/duplication_metrics.hpp"
#include "stages/markdup/end_features.hpp"

namespace gpp::stages::markdup {

struct MarkDuplicatesOptions {
  int optical_pixel_distance = 100;
  std::string read_name_regex;     ///< empty: Picard's default parser; "null": no optical detection
  bool queryname_grouped = false;  ///< Picard's queryname semantics (input grouped by read name)
  PhaseTimes* times = nullptr;     ///< when set, receives the seconds of each phase
  /// The reads' EndFeatures, made with read_name_regex (as the reader's visitor, say); computed
  /// here when null or not of every read.
  const EndFeatures* features = nullptr;
};

/// Picard's choice of semantics: `assume_sort_order` when given, else the header's SO; true for
/// queryname.
bool uses_queryname_semantics(const io::Header& header, const std::string& assume_sort_order);

struct MarkDuplicatesResult {
  std::vector<std::uint32_t> order;  ///< coordinate order (samtools sort)
  std::vector<std::uint16_t> flags;  ///< new FLAG per record (input indexing): 0x400 set or cleared
  std::vector<LibraryMetrics> metrics;  ///< rows in Picard's output order
  bool single_library = false;          ///< exactly one library: Picard adds the coverage histogram
  SetSizeHistograms histograms;
};

/// Marks duplicates in `reads`; `header` gives read groups and libraries.
/// @throws gpp::Error when `queryname_grouped` is set and the records of a name are not adjacent
MarkDuplicatesResult mark_duplicates(const io::ReadBatch& reads, const io::Header& header,
                                     const MarkDuplicatesOptions& options,
                                     kernels::Backend backend);

}  // namespace gpp::stages::markdup
