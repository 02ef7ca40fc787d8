// The sample's sex and the ploidy of its sex chromosomes, as Parabricks' haplotypecaller takes
// them (--sample-sex, --range-male, --range-female, --use-GRCh37-regions): a male sample is
// called haploid on X and Y outside their pseudo-autosomal regions (PARs), diploid elsewhere; a
// female sample diploid everywhere. The sex is given, or read from the ratio of the reads mapped
// to X to those mapped to Y: male within --range-male (default 1-10), female within
// --range-female (default 150-250), inclusive; otherwise undetermined (diploid everywhere).
//
// The PARs (GRC, 1-based inclusive):
//   GRCh38 chrX 10,001-2,781,479 and 155,701,383-156,030,895; chrY 10,001-2,781,479 and
//          56,887,903-57,217,415
//   GRCh37 (and hg19) X 60,001-2,699,520 and 154,931,044-155,260,560; Y 10,001-2,649,520 and
//          59,034,050-59,363,566
// X is the contig named "chrX" or "X", Y "chrY" or "Y".
//
// @code
//   const SampleSex sex = sex_from_read_ratio(5'200'000, 1'000'000, parse_ratio_range("1-10",
//       "--range-male"), parse_ratio_range("150-250", "--range-female"));   // kMale (5.2)
//   std::vector<PloidyRegion> haploid = haploid_sex_chromosome_regions(header.contigs(), false);
//   // chrX [0, 10000) [2781479, 155701382) [156030895, 156040895) at ploidy 1, chrY likewise
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/reads/header.hpp"
#include "stages/call/ploidy_regions.hpp"

namespace gpp::stages::call {

enum class SampleSex { kUndetermined, kMale, kFemale };

/// "male", "female" or "undetermined".
std::string_view sex_name(SampleSex sex);

/// Parabricks' --sample-sex value, "male" or "female" (any case).
/// @throws gpp::Error naming the option for anything else
SampleSex parse_sample_sex(std::string_view text);

/// An inclusive range of X/Y read ratios, "LOW-HIGH".
struct RatioRange {
  double low = 0;
  double high = 0;
  bool contains(double ratio) const { return low <= ratio && ratio <= high; }
};

/// "1-10" -> {1, 10}. @throws gpp::Error naming `option` unless two non-negative numbers with
/// low <= high
RatioRange parse_ratio_range(std::string_view text, std::string_view option);

/// The sex the ratio `x_reads / y_reads` falls in (male first where the ranges overlap); no read
/// on Y is a ratio above every range (undetermined), and so is no read on X or Y.
SampleSex sex_from_read_ratio(std::uint64_t x_reads, std::uint64_t y_reads, RatioRange male,
                              RatioRange female);

/// The indexes in `contigs` of X and Y (-1 where the header has none).
struct SexContigs {
  std::int32_t x = -1;
  std::int32_t y = -1;
};
SexContigs find_sex_contigs(std::span<const io::Contig> contigs);

/// X and Y of `contigs` outside their PARs (GRCh37's with `grch37`, else GRCh38's), at ploidy 1,
/// for a male sample's --ploidy-regions; a PAR beyond a contig's end is cut to it.
std::vector<PloidyRegion> haploid_sex_chromosome_regions(std::span<const io::Contig> contigs,
                                                         bool grch37);

/// Whether X's or Y's length is that of the other assembly's (GRCh37 where `grch37` is false,
/// GRCh38 where true): the PARs asked for are then likely the wrong ones.
bool sex_contigs_of_other_assembly(std::span<const io::Contig> contigs, bool grch37);

}  // namespace gpp::stages::call
