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
#include <map>
#include <string>
#include <vector>

#include "core/phase_times.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "kernels/device/device.hpp"
#include "stages/markdup/duplication_metrics.hpp"
#include "stages/markdup/end_features.hpp"
#include "stages/markdup/read_ends.hpp"

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

/// Picard's list of duplicate indexes in file (coordinate order, or templates): one entry per
/// end that loses, its mate's index too when different; and optical duplicates per library.
struct Duplicates {
  std::vector<std::int64_t> indexes;
  std::map<std::int32_t, std::int64_t> optical_by_library;
};

/// Sorts the ends of `lists` and walks their duplicate sets (pairs, then fragments): the
/// duplicates, with every set's size added to `histograms`. Sets are independent: ends cut into
/// parts by key, each part holding whole sets, give together what all of them give at once.
Duplicates find_duplicates(ReadEndLists& lists, const ReadNameParser& parser,
                           int optical_pixel_distance, kernels::Backend backend,
                           SetSizeHistograms& histograms, PhaseTimes* times = nullptr);

/// A record in Picard's read counts of its library: its input flag says what kind of record it
/// is, its new flag whether it is a duplicate.
void count_record(std::uint16_t input_flag, std::uint16_t flag, LibraryMetrics& m);
/// Adds the read counts count_record made in `from` to `to`.
void add_counts(const LibraryMetrics& from, LibraryMetrics& to);

/// Appends the metrics rows: every library Picard knows, sorted by name (its TreeMap), from the
/// counts per library key (`by_library`, keys naming `library_names` as library_keys gives them)
/// and the optical duplicates per key: each header read group's LB (or "Unknown Library"
/// without one) and the library of every counted record. Returns how many rows.
std::size_t add_library_rows(const io::Header& header,
                             const std::vector<std::string>& library_names,
                             const std::vector<LibraryMetrics>& by_library,
                             const std::map<std::int32_t, std::int64_t>& optical_by_library,
                             std::vector<LibraryMetrics>& rows);

/// Marks duplicates in `reads`; `header` gives read groups and libraries.
/// @throws gpp::Error when `queryname_grouped` is set and the records of a name are not adjacent
MarkDuplicatesResult mark_duplicates(const io::ReadBatch& reads, const io::Header& header,
                                     const MarkDuplicatesOptions& options,
                                     kernels::Backend backend);

}  // namespace gpp::stages::markdup
