// GATK's dangling-end Smith-Waterman call (STANDARD_NGS, LEADING_INDEL) on the CPU kernel; see
// dangling_end_aligner.hpp. The only file of the assembler that includes the kernel header.
#include "stages/call/dangling_end_aligner.hpp"

#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::stages::call {

std::vector<std::uint32_t> align_dangling_end(std::string_view ref, std::string_view alt) {
  kernels::SequencePairs pairs;
  pairs.add(ref, alt);
  const kernels::SwAlignments alignments =
      kernels::SmithWaterman(kernels::Backend::kCpu)
          .align(pairs, kernels::kSwStandardNgs, kernels::OverhangStrategy::kLeadingIndel);
  if (!alignments.aligned(0)) return {};
  const auto cigar = alignments.cigar(0);
  // Both vocabularies pack a CIGAR element as in BAM (length << 4 | operation).
  return std::vector<std::uint32_t>(cigar.begin(), cigar.end());
}

}  // namespace gpp::stages::call
