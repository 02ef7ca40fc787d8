// Reference-confidence output of HaplotypeCaller: GATK's GVCFBlockCombiner and HomRefBlock
// (utils/variant/writers). In -ERC GVCF mode consecutive hom-ref sites whose GQ falls in one band
// of -GQB become one record with an END; calls pass through and end the block. In
// -ERC BP_RESOLUTION mode every site is its own record.
//
// @code
//   GvcfBlockCombiner combiner(contigs, GvcfOptions{});  // -ERC GVCF, GATK's default bands
//   std::string text = gvcf_header(contigs, "NA12878", command_line, combiner.bands());
//   for (const ReferenceSite& site : sites_before_the_call) combiner.add(site, text);
//   combiner.add(call, text);  // writes the finished block, then the call
//   combiner.finish(text);     // writes the last block
//   // 20 10000000 . T <NON_REF> . . END=10000116 GT:DP:GQ:MIN_DP:PL 0/0:84:99:64:0,120,1800
//   // 20 10000117 . C T,<NON_REF> 926.64 . ... GT:AD:DP:GQ:PL:SB 0/1:36,28,0:64:99:...
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stages/call/caller_options.hpp"
#include "stages/call/variant_call.hpp"
#include "stages/call/vcf_format.hpp"

namespace gpp::stages::call {

/// One GQ band of -GQB: lower <= GQ < upper.
struct GqBand {
  int lower = 0;
  int upper = 0;

  bool operator==(const GqBand&) const = default;
};

/// HaplotypeCaller's default -GQB (HaplotypeCallerArgumentCollection.GVCFGQBands): 1, 2, ..., 60,
/// 70, 80, 90, 99.
std::vector<int> default_gq_band_upper_bounds();

/**
 * @brief GVCFBlockCombiner.parsePartitions: the bands [0, b1), [b1, b2), ... of the exclusive
 *        upper bounds, plus [last, 100) when the last bound is at most 99.
 *
 * @throws gpp::Error (naming -GQB) when the list is empty or a bound is negative, above 100,
 *         smaller than the previous one or equal to it (so 0 is rejected too)
 *
 * @code
 *   gq_bands(std::vector{1, 10}) == {{0, 1}, {1, 10}, {10, 100}}
 *   gq_bands(std::vector{100}) == {{0, 100}}
 * @endcode
 */
std::vector<GqBand> gq_bands(std::span<const int> upper_bounds);

/// A finished hom-ref block, as GVCFBlock.toVariantContext makes it (ALT <NON_REF>, INFO END).
struct ReferenceBlock {
  std::int32_t contig = -1;
  std::int64_t start = 0;        ///< 0-based first position
  std::int64_t end = 0;          ///< one past the last position; INFO END (1-based inclusive)
  char ref_base = 'N';           ///< REF: the first site's base
  int ploidy = 2;                ///< GT: ploidy copies of the reference allele
  int depth = 0;                 ///< FORMAT DP: median of the sites' DPs
  std::optional<int> min_depth;  ///< FORMAT MIN_DP; absent with --floor-blocks
  int gq = 0;                    ///< FORMAT GQ before the writer's cap at 99
  std::vector<int> pls;          ///< FORMAT PL: per-genotype minimum; empty: none

  bool operator==(const ReferenceBlock&) const = default;
};

/**
 * @brief GATK HomRefBlock: a run of adjacent hom-ref sites of one contig, GQ band and ploidy.
 *
 * DP is the median of the sites' DPs (the mean of the two middle ones for an even count, rounded
 * half up: MathUtils.median + Math.round), MIN_DP their minimum, PL the per-genotype minimum of
 * their PLs, and GQ is recomputed from those minimum PLs (or the minimum GQ when no site has PLs).
 */
class HomRefBlock {
 public:
  /// @throws gpp::Error when the band is not 0 <= lower <= upper <= 100
  HomRefBlock(const ReferenceSite& first, GqBand band);

  /// Starts a new block at `first`, as the constructor does, keeping the buffers.
  /// @throws gpp::Error when the band is not 0 <= lower <= upper <= 100
  void restart(const ReferenceSite& first, GqBand band);

  std::int32_t contig() const { return contig_; }
  std::int64_t start() const { return start_; }
  std::int64_t end() const { return end_; }  ///< one past the last position
  const GqBand& band() const { return band_; }
  int ploidy() const { return ploidy_; }

  /// GVCFBlock.isContiguous: same contig and position in [start - 1, end] (adjacent or
  /// overlapping).
  bool is_contiguous(std::int32_t contig, std::int64_t position) const;

  /// GVCFBlockCombiner.genotypeCanBeMergedInCurrentBlock: min(GQ, 99) in the band, same ploidy and
  /// the same number of PLs (when both have PLs).
  bool can_merge(const ReferenceSite& site) const;

  /// HomRefBlock.add. @throws gpp::Error when the site is not at end() or cannot be merged.
  void add(const ReferenceSite& site);

  int min_depth() const;
  int median_depth() const;
  std::span<const int> min_pls() const { return min_pls_; }
  int gq() const { return gq_; }  ///< from min_pls(), uncapped

  /// HomRefBlock.createHomRefGenotype: with floor_blocks GQ is the band's lower bound and neither
  /// PL nor MIN_DP is kept.
  ReferenceBlock record(bool floor_blocks) const;

 private:
  std::int32_t contig_ = -1;
  std::int64_t start_ = 0;
  std::int64_t end_ = 0;
  char ref_base_ = 'N';
  GqBand band_;
  int ploidy_ = 0;
  std::vector<int> depths_;
  std::vector<int> min_pls_;
  int gq_ = 0;
  mutable std::vector<int> median_scratch_;
};

struct GvcfOptions {
  ReferenceConfidenceMode mode = ReferenceConfidenceMode::kGvcf;  ///< -ERC: kGvcf or kBpResolution
  std::vector<int> gq_band_upper_bounds = default_gq_band_upper_bounds();  ///< -GQB
  bool floor_blocks = false;                                               ///< --floor-blocks
};

/**
 * @brief GATK GVCFWriter / GVCFBlockCombiner: takes the sites and calls of one sample in genomic
 *        order and appends finished record lines (gvcf_format.hpp) to a string.
 *
 * GVCF mode: a site joins the open block when it is on the same contig right after it and
 * can_merge; otherwise the block is written and the site opens a new one in the band of
 * min(GQ, 99). A call writes the open block, then itself, and the sites that start within its
 * REF span (under a deletion) are dropped. BP_RESOLUTION mode writes every site and call as
 * given, as HaplotypeCaller does without a GVCFWriter.
 *
 * A call is always written as a call. GATK would fold a 0/0 call whose only ALT is <NON_REF>
 * into a block; HaplotypeCaller's calls always carry a real ALT, so the case does not arise.
 */
class GvcfBlockCombiner {
 public:
  /// @throws gpp::Error for a malformed -GQB list (GVCF mode only, as gq_bands), or for mode kNone
  GvcfBlockCombiner(std::vector<VcfContig> contigs, GvcfOptions options);

  /// The bands of GVCF mode (for gvcf_header); empty in BP_RESOLUTION mode.
  const std::vector<GqBand>& bands() const { return bands_; }

  /// @throws gpp::Error when the site overlaps the open block (sites out of order)
  void add(const ReferenceSite& site, std::string& out);
  /// @throws gpp::Error when the call has no <NON_REF> allele or an unknown contig
  void add(const VariantCall& call, std::string& out);
  /// Writes the open block, if any.
  void finish(std::string& out);

 private:
  const GqBand& band_of(int gq) const;
  void write_block(std::string& out);

  std::vector<VcfContig> contigs_;
  ReferenceConfidenceMode mode_;
  bool floor_blocks_;
  std::vector<GqBand> bands_;
  std::optional<HomRefBlock> block_;  ///< the open block's storage, kept between blocks
  bool block_open_ = false;
  std::int32_t covered_contig_ = -1;  ///< GVCFBlockCombiner.nextAvailableStart: the last call's
  std::int64_t covered_end_ = -1;     ///< contig and end (0-based exclusive)
};

}  // namespace gpp::stages::call
