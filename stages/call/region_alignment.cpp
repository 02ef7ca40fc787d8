// align_haplotypes: ReadThreadingAssembler.findBestPaths' alignment of every assembled path to the
// reference haplotype (CigarUtils.calculateCigar, SOFTCLIP overhangs, then INDEL overhangs for
// paths that do not span the reference), for many regions in one Smith-Waterman batch.
#include "stages/call/region_alignment.hpp"

#include <optional>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/assembled_haplotypes.hpp"
#include "stages/call/given_allele_haplotypes.hpp"
#include "stages/call/haplotype_cigar.hpp"

namespace gpp::stages::call {

namespace {

struct PathRef {
  std::size_t region;
  std::size_t path;
};

std::optional<std::span<const std::uint32_t>> cigar_of(const HaplotypeCigars& cigars,
                                                       std::size_t i) {
  if (!cigars.has_cigar(i)) return std::nullopt;
  return cigars.cigar(i);
}

Haplotype reference_haplotype(const RegionWork& work) {
  const AssemblyRegion& region = work.region;
  const auto length = static_cast<std::uint32_t>(work.ref_haplotype.size());
  const std::uint32_t cigar = cigar_element(CigarOp::kMatch, length);
  return make_haplotype(work.ref_haplotype, {&cigar, 1},
                        region.padded_start - work.full_reference.start,
                        {region.padded_start, region.padded_end - 1}, true);
}

}  // namespace

void align_haplotypes(std::span<RegionWork> works, kernels::SmithWaterman& aligner,
                      kernels::SwStats* stats) {
  kernels::SequencePairs pairs;
  std::vector<PathRef> paths;
  for (std::size_t w = 0; w < works.size(); ++w) {
    if (!works[w].has_work) continue;
    for (std::size_t p = 0; p < works[w].assembled.size(); ++p) {
      if (works[w].assembled[p].is_reference) continue;
      pairs.add(works[w].ref_haplotype, works[w].assembled[p].bases);
      paths.push_back({w, p});
    }
  }
  const HaplotypeCigars soft = calculate_cigars(pairs, aligner, kernels::kSwNewParameters,
                                                kernels::OverhangStrategy::kSoftClip, stats);
  std::vector<HaplotypeAlignmentVerdict> verdicts(paths.size());
  kernels::SequencePairs recheck;
  std::vector<std::size_t> rechecked;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const RegionWork& work = works[paths[i].region];
    verdicts[i] = judge_haplotype_alignment(cigar_of(soft, i),
                                            static_cast<std::int64_t>(work.ref_haplotype.size()));
    if (verdicts[i] == HaplotypeAlignmentVerdict::kCheckWithIndelStrategy) {
      recheck.add(work.ref_haplotype, work.assembled[paths[i].path].bases);
      rechecked.push_back(i);
    }
  }
  if (!rechecked.empty()) {
    const HaplotypeCigars indel = calculate_cigars(recheck, aligner, kernels::kSwNewParameters,
                                                   kernels::OverhangStrategy::kIndel, stats);
    for (std::size_t k = 0; k < rechecked.size(); ++k) {
      const RegionWork& work = works[paths[rechecked[k]].region];
      try {
        verdicts[rechecked[k]] = judge_indel_strategy_alignment(
            cigar_of(indel, k), static_cast<std::int64_t>(work.ref_haplotype.size()));
      } catch (const Error&) {
        // GATK stops the run here; the path is dropped instead (the region is still called).
        verdicts[rechecked[k]] = HaplotypeAlignmentVerdict::kAlignmentFailed;
      }
    }
  }
  // Haplotypes in the order of the assembly result set (GATK appends the reference after the
  // first graph's paths); the order decides which CIGAR survives when trimming merges two.
  std::size_t next_path = 0;
  for (std::size_t w = 0; w < works.size(); ++w) {
    RegionWork& work = works[w];
    work.haplotypes.clear();
    if (!work.has_work) continue;
    for (std::size_t p = 0; p < work.assembled.size(); ++p) {
      const AssembledHaplotype& path = work.assembled[p];
      if (path.is_reference) {
        work.haplotypes.push_back(reference_haplotype(work));
        continue;
      }
      const std::size_t i = next_path++;
      if (verdicts[i] != HaplotypeAlignmentVerdict::kKeep) continue;
      Haplotype haplotype = make_haplotype(
          path.bases, soft.cigar(i), work.region.padded_start - work.full_reference.start,
          {work.region.padded_start, work.region.padded_end - 1}, false);
      haplotype.score = path.score;
      haplotype.kmer_size = path.kmer_size;
      work.haplotypes.push_back(std::move(haplotype));
    }
  }
  for (RegionWork& work : works) {
    // A region with given events goes on with the reference alone: they are added to it.
    if (work.has_work && work.haplotypes.size() < 2 && work.given_events.empty()) {
      work.has_work = false;
    }
  }
}

void add_given_allele_haplotypes(std::span<RegionWork> works, kernels::SmithWaterman& aligner,
                                 int max_mnp_distance, kernels::SwStats* stats) {
  kernels::SequencePairs pairs;
  std::vector<std::vector<std::string>> added(works.size());
  for (std::size_t w = 0; w < works.size(); ++w) {
    RegionWork& work = works[w];
    if (!work.has_work || work.given_events.empty()) continue;
    added[w] = haplotypes_with_given_events(work.genotyping_haplotypes, work.given_events,
                                            work.full_reference, max_mnp_distance);
    const std::string& reference = work.genotyping_haplotypes[work.reference_haplotype].bases;
    for (const std::string& bases : added[w]) pairs.add(reference, bases);
  }
  if (pairs.size() == 0) return;
  const HaplotypeCigars cigars = calculate_cigars(pairs, aligner, kernels::kSwNewParameters,
                                                  kernels::OverhangStrategy::kIndel, stats);
  std::size_t first = 0;
  for (std::size_t w = 0; w < works.size(); ++w) {
    if (added[w].empty()) continue;
    add_given_haplotypes(works[w].genotyping_haplotypes, works[w].reference_haplotype, added[w],
                         cigars, first);
    first += added[w].size();
  }
}

}  // namespace gpp::stages::call
