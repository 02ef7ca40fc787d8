// Synthetic alignments for duplicate-marking conformance: every situation Picard MarkDuplicates
// treats specially, in random order, as SAM text (no reference needed: Picard does not look at
// one).
#pragma once

#include <string>

namespace gpp::test {

struct MarkdupCaseOptions {
  unsigned seed = 1;
  int positions = 40;    ///< distinct start positions per contig (fewer = more duplicates)
  int templates = 3000;  ///< read pairs and fragments generated
  bool multiple_libraries = true;
  bool single_end_only = false;
};

/// SAM text (header + records in random order) with pairs in FR/RF/FF/RR, soft and hard clips,
/// mates on other contigs, unmapped mates, secondary and supplementary records, QC-fail reads,
/// QUAL '*' and SEQ '*', missing mate records, tied scores, Illumina-style names (5 and 7 fields,
/// some unparsable, x/y beyond 32767) with optical clusters, several read groups and libraries,
/// reads without read group. The same options give the same bytes on every build (the Picard
/// goldens in tests/data/picard_golden/ are made from them): std::mt19937 draws only, one a
/// statement, no distributions or std::shuffle, whose results the standard leaves open.
std::string make_markdup_case(const MarkdupCaseOptions& options);

}  // namespace gpp::test
