// GATK's standard BQSR covariates as integer keys: ReadGroup, QualityScore, Context, Cycle
// (GATK ReadGroupCovariate, QualityScoreCovariate, ContextCovariate, CycleCovariate).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/reads/header.hpp"
#include "kernels/bqsr/bqsr_rules.hpp"

namespace gpp::stages::bqsr {

/// BaseUtils.simpleBaseToBaseIndex, as the kernels define it (one rule for both backends).
using kernels::bqsr::base_code;

/// GATK EventType ordinals: BASE_SUBSTITUTION "M", BASE_INSERTION "I", BASE_DELETION "D".
enum class EventType : int { kMismatch = 0, kInsertion = 1, kDeletion = 2 };
inline constexpr int kEventCount = 3;
inline constexpr char kEventNames[kEventCount] = {'M', 'I', 'D'};

/// RecalibrationArgumentCollection values that shape the covariates and the report.
struct CovariateOptions {
  int mismatches_context_size = 2;
  int indels_context_size = 3;
  int low_quality_tail = 2;
  int maximum_cycle_value = 500;
  int quantizing_levels = 16;
  int mismatches_default_quality = -1;
  int insertions_default_quality = 45;
  int deletions_default_quality = 45;
};

/// ReadGroupCovariate.getReadGroupIdentifier: the @RG PU when present, else its ID.
std::string read_group_identifier(const io::ReadGroup& read_group);

/// Distinct read-group identifiers of `header` in header order, and for every header read group
/// the index of its identifier (the covariate key).
struct ReadGroupKeys {
  std::vector<std::string> identifiers;
  std::vector<int> key_of_header_read_group;
};
ReadGroupKeys read_group_keys(const io::Header& header);

/// Bases of a read in read orientation and its strand/pair flags: what covariates depend on.
struct CovariateRead {
  std::string_view bases;
  std::span<const std::uint8_t> quals;
  bool reverse = false;
  bool second_of_pair = false;  ///< paired and second of pair
};

/// Number of distinct context keys for a context size (4^size); key -1 means "no context".
inline int context_key_count(int size) { return 1 << (2 * size); }

/**
 * @brief ContextCovariate keys for every base of `read` (indexed by read offset).
 *
 * Bases in the low-quality tails (leading and trailing runs with quality <= low_quality_tail,
 * ReadClipper.clipLowQualEnds WRITE_NS) count as N; the read is reverse-complemented when on the
 * negative strand; the key of stranded position i is the `size` bases ending at i, encoded with
 * A=0, C=1, G=2, T=3, first base most significant, or -1 when fewer than `size` bases precede or
 * any base is not ACGT. Keys are stored at the original offset of the stranded position.
 */
void context_keys(const CovariateRead& read, int size, int low_quality_tail,
                  std::vector<int>& keys);

/// The bases of a context key, e.g. "AC".
std::string format_context(int key, int size);
/// Parses a context string; -1 when it is not `size` ACGT letters.
int parse_context(std::string_view text, int size);

/**
 * @brief CycleCovariate keys: cycle = offset + 1 on the forward strand, length - offset on the
 * reverse strand, negated for the second read of a pair; key = |cycle| << 1 | (cycle < 0).
 * `indel_keys` receives -1 within 4 bases (CUSHION_FOR_INDELS) of either end.
 * Throws gpp::Error when |cycle| exceeds maximum_cycle_value (GATK's UserException).
 */
void cycle_keys(const CovariateRead& read, int maximum_cycle_value, std::vector<int>& keys,
                std::vector<int>* indel_keys);

/// Signed cycle of a key, as the report prints it.
inline int cycle_from_key(int key) { return (key & 1) ? -(key >> 1) : (key >> 1); }
inline int key_from_cycle(int cycle) { return kernels::bqsr::cycle_key(cycle); }
/// Number of cycle keys for a maximum cycle value.
inline int cycle_key_count(int maximum_cycle_value) { return 2 * maximum_cycle_value + 2; }

}  // namespace gpp::stages::bqsr
