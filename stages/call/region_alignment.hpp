// The haplotype-to-reference alignments of many regions as one Smith-Waterman batch (the GPU sees
// every region's paths at once).
#pragma once

#include <span>

#include "kernels/device/device.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"
#include "stages/call/region_work.hpp"

namespace gpp::stages::call {

/**
 * @brief Aligns the assembled paths of every region with work to its reference haplotype, as
 * ReadThreadingAssembler.findBestPaths does, and fills work.haplotypes: the reference haplotype
 * first, then the kept paths in assembly order, each with its CIGAR, alignment start within
 * work.full_reference and location (the padded span). A region left with the reference alone gets
 * has_work = false.
 * @throws gpp::Error as kernels::SmithWaterman::align does
 */
void align_haplotypes(std::span<RegionWork> works, kernels::SmithWaterman& aligner,
                      kernels::SwStats* stats = nullptr);

/**
 * @brief After trim_to_calling_window: the given alleles of every region with work spliced into
 * its trimmed haplotypes (given_allele_haplotypes.hpp), the new ones aligned in one
 * Smith-Waterman batch and appended to work.genotyping_haplotypes.
 * @throws gpp::Error as kernels::SmithWaterman::align does
 */
void add_given_allele_haplotypes(std::span<RegionWork> works, kernels::SmithWaterman& aligner,
                                 int max_mnp_distance, kernels::SwStats* stats = nullptr);

}  // namespace gpp::stages::call
