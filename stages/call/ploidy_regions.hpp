// GATK's --ploidy-regions: a BED whose name column is a ploidy. HaplotypeCallerEngine
// (getPloidyToUseAtThisSite) genotypes an assembly region with the largest ploidy of the regions
// overlapping its active span, and evaluates a locus's activity with that of the regions
// overlapping it (at least 2 there, as the activity always is); elsewhere --sample-ploidy.
//
// @code
//   // chrX outside its pseudo-autosomal regions haploid (a male sample, GRCh38):
//   std::vector<PloidyRegion> regions = parse_ploidy_regions(
//       "chrX\t2781479\t155701382\t1\n", "male.bed");
//   ContigPloidy x(regions, "chrX", 2);
//   x.at(3000000, 3000300);  // 1
//   x.at(100, 400);          // 2 (PAR1)
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpp::stages::call {

/// The largest ploidy the caller takes (--sample-ploidy and --ploidy-regions).
inline constexpr int kMaxSamplePloidy = 8;

struct PloidyRegion {
  std::string contig;
  std::int64_t start = 0;  ///< 0-based
  std::int64_t end = 0;    ///< exclusive
  int ploidy = 2;
};

/**
 * @brief The regions of a BED (contig, 0-based start, end, ploidy; '#', track and browser lines
 * skipped), as GATK's SimpleCount reads its name column.
 * @throws gpp::Error naming `path` and the line for fewer than four columns, bad coordinates, or
 *         a ploidy that is not an integer from 1 to kMaxSamplePloidy
 */
std::vector<PloidyRegion> parse_ploidy_regions(std::string_view text, const std::string& path);

/// The ploidy at any span of one contig.
class ContigPloidy {
 public:
  ContigPloidy(std::span<const PloidyRegion> regions, std::string_view contig, int default_ploidy);

  /// The largest ploidy of the regions overlapping [start, end), else the default.
  int at(std::int64_t start, std::int64_t end) const;
  /// Whether some region of the contig has a ploidy other than the default.
  bool varies() const { return varies_; }

 private:
  std::vector<PloidyRegion> regions_;  ///< of this contig, by start
  std::int64_t longest_ = 0;           ///< the longest region's length
  int default_ploidy_;
  bool varies_ = false;
};

}  // namespace gpp::stages::call
