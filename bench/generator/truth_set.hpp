// The simulated sample's small variants: a diploid, phased truth set drawn per contig, and a
// known-sites set (most of the truth plus a few sites the sample does not carry) for BQSR.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace gpp::bench {

/// One variant in VCF form: `ref` and `alt` share their first base for indels (the anchor), are
/// single bases for SNPs. Indels are left-aligned and parsimonious (what `bcftools norm` keeps).
struct Variant {
  std::int64_t pos = 0;  ///< 0-based position of the first base of `ref`
  std::string ref;
  std::string alt;
  std::uint8_t haplotypes = 0;  ///< bit 0: haplotype 1 carries `alt`; bit 1: haplotype 2

  bool is_snp() const { return ref.size() == 1 && alt.size() == 1; }
  std::int64_t ref_end() const { return pos + static_cast<std::int64_t>(ref.size()); }
  /// Phased VCF genotype: "0|1", "1|0" or "1|1".
  std::string genotype() const;
};

struct VariantRates {
  double snp = 0.001;         ///< SNPs per reference base
  double indel = 0.000125;    ///< insertions and deletions (1-10 bp) per reference base
  double known = 0.7;         ///< fraction of the truth listed among the known sites
  double novel_known = 0.05;  ///< known sites the sample does not carry, per truth variant
};

/// Variants of one contig (upper-case `bases`), sorted by position, at least kMinVariantGap bases
/// apart and never touching an N: about 60% heterozygous (half 0|1, half 1|0), 40% 1|1; SNPs
/// twice as often transitions as transversions; indel lengths 1-10, shorter ones likelier.
std::vector<Variant> draw_truth(std::string_view bases, const VariantRates& rates,
                                std::mt19937_64& rng);

/// Known sites for `truth` (of the contig `bases`): each truth variant with probability
/// rates.known, plus rates.novel_known SNPs per truth variant at sites away from every truth
/// variant; sorted by position. Sites only: `haplotypes` is 0.
std::vector<Variant> draw_known_sites(std::string_view bases, const std::vector<Variant>& truth,
                                      const VariantRates& rates, std::mt19937_64& rng);

/// Reference bases kept between two variants, so that no two are adjacent or share a read's
/// indel representation.
inline constexpr std::int64_t kMinVariantGap = 10;

}  // namespace gpp::bench
