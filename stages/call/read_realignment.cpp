// GATK AssemblyBasedCallerUtils.realignReadsToTheirBestHaplotype and
// AlignmentUtils.createReadAlignedToRef, with the Smith-Waterman of many regions as one batch.
#include "stages/call/read_realignment.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <string>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/bam_tags.hpp"
#include "stages/call/best_haplotype.hpp"
#include "stages/call/cigar_edit.hpp"
#include "stages/call/cigar_projection.hpp"
#include "stages/call/indel_left_alignment.hpp"

namespace gpp::stages::call {

namespace {

void check_region(const ReadRealignmentInput& region) {
  if (region.haplotypes.empty()) {
    if (region.reads.empty()) return;
    throw Error("read realignment: " + std::to_string(region.reads.size()) +
                " reads but no haplotype");
  }
  if (region.log10_likelihoods.size() != region.reads.size() * region.haplotypes.size()) {
    throw Error("read realignment: " + std::to_string(region.log10_likelihoods.size()) +
                " likelihoods for " + std::to_string(region.reads.size()) + " reads x " +
                std::to_string(region.haplotypes.size()) + " haplotypes");
  }
  if (region.reference_haplotype >= region.haplotypes.size()) {
    throw Error("read realignment: reference haplotype index " +
                std::to_string(region.reference_haplotype) + " out of range");
  }
  if (region.padded_reference_start < 0) {
    throw Error("read realignment: reference start must be >= 0 but got " +
                std::to_string(region.padded_reference_start));
  }
}

}  // namespace

std::string_view bases_without_soft_clips(const CallRead& read) {
  if (read.bases.empty()) return {};
  // ReadClipper.hardClipSoftClippedBases: the last base of the leading soft clips, and the first
  // base of the soft clip met last after an aligned element
  std::int64_t read_index = 0;
  std::int64_t cut_left = -1;
  std::int64_t cut_right = -1;
  bool right_tail = false;
  for (std::uint32_t e : read.cigar) {
    const CigarOp op = cigar_op(e);
    if (op == CigarOp::kSoftClip) {
      if (right_tail) {
        cut_right = read_index;
      } else {
        cut_left = read_index + cigar_length(e) - 1;
      }
    } else if (op != CigarOp::kHardClip) {
      right_tail = true;
    }
    if (consumes_query(op)) read_index += cigar_length(e);
  }
  const auto length = static_cast<std::int64_t>(read.bases.size());
  const std::int64_t begin = std::min(cut_left + 1, length);
  const std::int64_t end = cut_right >= 0 ? std::max(begin, std::min(cut_right, length)) : length;
  return std::string_view(read.bases)
      .substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
}

ReadRealignmentPlan add_read_realignment_pairs(const ReadRealignmentInput& region,
                                               kernels::SequencePairs& pairs) {
  check_region(region);
  ReadRealignmentPlan plan;
  plan.best = best_haplotypes_breaking_ties(region.log10_likelihoods, region.haplotypes);
  plan.pairs.assign(region.reads.size(), ReadRealignmentPlan::kNoPair);
  for (std::size_t r = 0; r < region.reads.size(); ++r) {
    const Haplotype& haplotype = region.haplotypes[static_cast<std::size_t>(plan.best[r].allele)];
    if (haplotype.cigar.empty()) throw Error("read realignment: best haplotype has no CIGAR");
    const std::string_view bases = bases_without_soft_clips(region.reads[r]);
    if (bases.empty() || haplotype.bases.empty()) continue;
    plan.pairs[r] = static_cast<std::int64_t>(pairs.size());
    pairs.add(haplotype.bases, bases);
  }
  return plan;
}

CallRead create_read_aligned_to_ref(const CallRead& read, const Haplotype& haplotype,
                                    std::string_view reference_haplotype_bases,
                                    std::int64_t padded_reference_start,
                                    std::int32_t read_to_haplotype_offset,
                                    std::span<const std::uint32_t> read_to_haplotype_cigar) {
  if (padded_reference_start < 0) {
    throw Error("reference start must be >= 0 but got " + std::to_string(padded_reference_start));
  }
  if (haplotype.cigar.empty()) throw Error("read realignment: haplotype has no CIGAR");
  if (read_to_haplotype_offset == -1 ||
      read_to_haplotype_offset == kernels::SwAlignments::kNoAlignment) {
    return read;  // GATK: the aligner failed, the read is not realigned
  }
  const std::string_view bases = bases_without_soft_clips(read);
  const std::size_t soft_clipped_bases = read.bases.size() - bases.size();
  const std::vector<std::uint32_t> read_to_haplotype =
      GatkCigarBuilder().add_all(read_to_haplotype_cigar).make();

  const std::vector<std::uint32_t> padded_haplotype_cigar =
      consolidated_padded_cigar(haplotype, kHaplotypeCigarPadding);
  const std::int64_t start_on_reference_haplotype =
      read_start_on_reference_haplotype(padded_haplotype_cigar, read_to_haplotype_offset);
  const std::int64_t start_on_reference =
      padded_reference_start + haplotype.alignment_start_wrt_ref + start_on_reference_haplotype;

  // the haplotype's alignment from the read's first base on (what follows the read is kept)
  const std::vector<std::uint32_t> haplotype_to_reference =
      trim_cigar_by_bases(padded_haplotype_cigar, read_to_haplotype_offset,
                          static_cast<std::int64_t>(cigar_query_length(padded_haplotype_cigar)) - 1)
          .cigar;
  const std::vector<std::uint32_t> read_to_reference =
      apply_cigar_to_cigar(read_to_haplotype, haplotype_to_reference);
  const CigarBuildResult left_aligned = left_align_indels(
      read_to_reference, reference_haplotype_bases, bases, start_on_reference_haplotype);

  CallRead realigned = read;
  // left alignment may have pushed a deletion to the front and dropped it
  realigned.start = start_on_reference + left_aligned.leading_deletions_removed;
  realigned.cigar = append_clipped_elements(left_aligned.cigar, read.cigar);
  if (cigar_query_length(left_aligned.cigar) + soft_clipped_bases != read.bases.size()) {
    throw Error(
        "read realignment of " + read.name + ": CIGAR " + cigar_to_string(left_aligned.cigar) +
        " does not cover the read's " + std::to_string(read.bases.size() - soft_clipped_bases) +
        " unclipped bases (haplotype to reference " + cigar_to_string(haplotype_to_reference) +
        ", read to haplotype " + cigar_to_string(read_to_haplotype) + ")");
  }
  return realigned;
}

std::vector<CallRead> apply_read_realignments(const ReadRealignmentInput& region,
                                              const ReadRealignmentPlan& plan,
                                              const kernels::SwAlignments& alignments) {
  check_region(region);
  if (plan.pairs.size() != region.reads.size() || plan.best.size() != region.reads.size()) {
    throw Error("read realignment: the plan does not match the region's reads");
  }
  if (region.reads.empty()) return {};
  const std::string_view reference_bases = region.haplotypes[region.reference_haplotype].bases;
  std::vector<CallRead> realigned;
  realigned.reserve(region.reads.size());
  for (std::size_t r = 0; r < region.reads.size(); ++r) {
    const std::int64_t pair = plan.pairs[r];
    if (pair == ReadRealignmentPlan::kNoPair) {
      realigned.push_back(region.reads[r]);
      continue;
    }
    if (pair < 0 || static_cast<std::size_t>(pair) >= alignments.size()) {
      throw Error("read realignment: pair " + std::to_string(pair) + " is not in the alignments");
    }
    const auto p = static_cast<std::size_t>(pair);
    const Haplotype& haplotype = region.haplotypes[static_cast<std::size_t>(plan.best[r].allele)];
    realigned.push_back(create_read_aligned_to_ref(region.reads[r], haplotype, reference_bases,
                                                   region.padded_reference_start,
                                                   alignments.offset(p), alignments.cigar(p)));
    // createReadAlignedToRef tags a copy it made for an informative read (-bamout's reads).
    const std::int32_t offset = alignments.offset(p);
    if (region.tag_best_haplotype && plan.best[r].informative && offset != -1 &&
        offset != kernels::SwAlignments::kNoAlignment) {
      set_integer_tag(realigned.back().aux, "HC", java_hash_code(haplotype.bases));
    }
  }
  return realigned;
}

std::vector<std::vector<CallRead>> realign_reads_to_best_haplotypes(
    std::span<const ReadRealignmentInput> regions, kernels::SmithWaterman& aligner,
    kernels::SwStats* stats) {
  kernels::SequencePairs pairs;
  std::vector<ReadRealignmentPlan> plans;
  plans.reserve(regions.size());
  for (const ReadRealignmentInput& region : regions) {
    plans.push_back(add_read_realignment_pairs(region, pairs));
  }
  const kernels::SwAlignments alignments =
      aligner.align(pairs, kernels::kSwReadToHaplotype, kReadToHaplotypeOverhang, stats);
  std::vector<std::vector<CallRead>> realigned(regions.size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, regions.size()),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              for (std::size_t i = range.begin(); i != range.end(); ++i) {
                                realigned[i] =
                                    apply_read_realignments(regions[i], plans[i], alignments);
                              }
                            });
  return realigned;
}

}  // namespace gpp::stages::call
