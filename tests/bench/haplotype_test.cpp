// The generator's sample: haplotype sequences and the alignments of their stretches to the
// reference (exact CIGARs), and the truth and known-sites draws (spacing, normalisation, rates).
#include "bench/generator/haplotype.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "bench/generator/truth_set.hpp"

namespace gpp::test {
namespace {

using bench::Haplotype;
using bench::ReadAlignment;
using bench::Variant;

std::string cigar_text(const ReadAlignment& a) {
  std::string text;
  for (std::uint32_t op : a.cigar) text += std::to_string(op >> 4) + "MIDNSHP=X"[op & 0xf];
  return text;
}

// 60 bases; haplotype 1 carries a SNP at 5, a 3 bp deletion after base 20 and a 3 bp insertion
// after base 40; haplotype 2 carries none of them.
const std::string kReference = "ACGTACGTACGGTTCCAAGGTTAACCGGTTACGATCGATCGGCATGCATGCAATTGGCCA";
std::vector<Variant> sample_variants() {
  return {{.pos = 5, .ref = "C", .alt = "T", .haplotypes = 1},
          {.pos = 20,
           .ref = kReference.substr(20, 4),
           .alt = kReference.substr(20, 1),
           .haplotypes = 1},
          {.pos = 40,
           .ref = kReference.substr(40, 1),
           .alt = kReference.substr(40, 1) + "TTT",
           .haplotypes = 1}};
}

TEST(GeneratorHaplotype, CarriesItsVariants) {
  const Haplotype alt(kReference, sample_variants(), 0);
  const Haplotype ref(kReference, sample_variants(), 1);
  EXPECT_EQ(ref.bases(), kReference);
  const std::string expected = kReference.substr(0, 5) + "T" + kReference.substr(6, 15) +
                               kReference.substr(24, 17) + "TTT" + kReference.substr(41);
  EXPECT_EQ(alt.bases(), expected);
  EXPECT_EQ(alt.from_reference(10), 10);
  EXPECT_EQ(alt.from_reference(22), 21);  // deleted on this haplotype: the next kept base
  EXPECT_EQ(alt.from_reference(30), 27);
  EXPECT_EQ(alt.from_reference(41), 41);  // after the insertion: shifted back by 3
}

TEST(GeneratorHaplotype, AlignsStretchesAsAPerfectAligner) {
  const Haplotype alt(kReference, sample_variants(), 0);
  ReadAlignment a = alt.align(0, 30);
  EXPECT_EQ(cigar_text(a), "21M3D9M");
  EXPECT_EQ(a.pos, 0);
  EXPECT_EQ(a.end, 33);
  a = alt.align(10, 40);
  EXPECT_EQ(cigar_text(a), "11M3D17M3I9M");
  EXPECT_EQ(a.pos, 10);
  EXPECT_EQ(a.end, 50);
  a = alt.align(39, 10);  // starts inside the insertion: those bases are clipped
  EXPECT_EQ(cigar_text(a), "2S8M");
  EXPECT_EQ(a.pos, 41);
  a = alt.align(30, 10);  // ends inside it
  EXPECT_EQ(cigar_text(a), "8M2S");
  EXPECT_EQ(a.pos, 33);
  EXPECT_EQ(a.end, 41);
  const Haplotype ref(kReference, sample_variants(), 1);
  a = ref.align(5, 40);
  EXPECT_EQ(cigar_text(a), "40M");
  EXPECT_EQ(a.pos, 5);
}

TEST(GeneratorHaplotype, SoftClipsAbsorbIndelsAtTheClip) {
  const Haplotype alt(kReference, sample_variants(), 0);
  ReadAlignment a = alt.align(0, 30);
  bench::soft_clip(a, 21, true);  // up to the deletion: an alignment never starts with D
  EXPECT_EQ(cigar_text(a), "21S9M");
  EXPECT_EQ(a.pos, 24);
  EXPECT_EQ(a.end, 33);
  a = alt.align(0, 30);
  bench::soft_clip(a, 5, true);
  EXPECT_EQ(cigar_text(a), "5S16M3D9M");
  EXPECT_EQ(a.pos, 5);
  a = alt.align(10, 40);
  bench::soft_clip(a, 9, false);  // the insertion next to the clip joins it
  EXPECT_EQ(cigar_text(a), "11M3D17M12S");
  EXPECT_EQ(a.pos, 10);
  EXPECT_EQ(a.end, 41);
  a = alt.align(39, 10);
  bench::soft_clip(a, 4, true);  // two clipped inserted bases count towards the four
  EXPECT_EQ(cigar_text(a), "4S6M");
  EXPECT_EQ(a.pos, 43);
}

std::string random_contig(std::size_t length, std::mt19937_64& rng) {
  std::string bases(length, 'A');
  for (char& b : bases) b = "ACGT"[rng() & 3];
  std::fill(bases.begin() + 100000, bases.begin() + 120000, 'N');  // a gap, as in assemblies
  std::fill(bases.begin() + 150000, bases.begin() + 150040, 'A');  // a homopolymer
  return bases;
}

TEST(GeneratorTruthSet, SpacedNormalisedAndAtTheRequestedRates) {
  std::mt19937_64 rng(11);
  const std::string bases = random_contig(400000, rng);
  const bench::VariantRates rates{.snp = 0.001, .indel = 0.0005};
  const std::vector<Variant> truth = bench::draw_truth(bases, rates, rng);
  int snps = 0;
  int indels = 0;
  int genotypes[4] = {0, 0, 0, 0};
  for (std::size_t k = 0; k < truth.size(); ++k) {
    const Variant& v = truth[k];
    ASSERT_EQ(bases.substr(v.pos, v.ref.size()), v.ref) << v.pos;
    if (!v.is_snp()) {  // an insertion or a deletion after a shared anchor base
      ASSERT_EQ(v.ref[0], v.alt[0]) << v.pos;
      ASSERT_TRUE((v.ref.size() == 1) != (v.alt.size() == 1)) << v.pos;
    }
    if (k > 0) {
      ASSERT_GE(v.pos, truth[k - 1].ref_end() + bench::kMinVariantGap) << v.pos;
    }
    // Never on or next to an N.
    ASSERT_EQ(bases.substr(v.pos, v.ref.size() + 1).find('N'), std::string::npos) << v.pos;
    ASSERT_GE(v.haplotypes, 1);
    ASSERT_LE(v.haplotypes, 3);
    ++genotypes[v.haplotypes];
    if (v.is_snp()) {
      ++snps;
      EXPECT_NE(v.ref, v.alt);
      continue;
    }
    ++indels;
    // Left-aligned: shifting one base left would give the same haplotype exactly when the last
    // base of the indel's sequence equals the anchor.
    const std::string indel = v.ref.size() > 1 ? v.ref.substr(1) : v.alt.substr(1);
    EXPECT_LE(indel.size(), 10u);
    EXPECT_NE(indel.back(), bases[v.pos]) << "not left-aligned at " << v.pos;
  }
  // 380 kb of bases without N: about 380 SNPs and 190 indels (less what spacing rejects).
  EXPECT_GT(snps, 300);
  EXPECT_LT(snps, 420);
  EXPECT_GT(indels, 140);
  EXPECT_LT(indels, 230);
  const double het =
      static_cast<double>(genotypes[1] + genotypes[2]) / static_cast<double>(truth.size());
  EXPECT_NEAR(het, 0.6, 0.07);
  EXPECT_NEAR(static_cast<double>(genotypes[1]) / (genotypes[1] + genotypes[2]), 0.5, 0.08);

  const std::vector<Variant> known = bench::draw_known_sites(bases, truth, rates, rng);
  std::set<std::pair<std::int64_t, std::string>> truth_alleles;
  for (const Variant& v : truth) truth_alleles.insert({v.pos, v.ref + ">" + v.alt});
  int shared = 0;
  int novel = 0;
  for (std::size_t k = 0; k < known.size(); ++k) {
    const Variant& v = known[k];
    if (k > 0) {
      ASSERT_GT(v.pos, known[k - 1].pos);
    }
    if (truth_alleles.count({v.pos, v.ref + ">" + v.alt}) > 0) {
      ++shared;
      continue;
    }
    ++novel;
    ASSERT_TRUE(v.is_snp());
    ASSERT_EQ(bases.substr(v.pos, 1), v.ref);
    for (const Variant& t : truth)
      ASSERT_TRUE(v.pos < t.pos - 5 || v.pos >= t.ref_end() + 5) << v.pos;
  }
  EXPECT_NEAR(static_cast<double>(shared) / static_cast<double>(truth.size()), 0.7, 0.06);
  EXPECT_GT(novel, 0.02 * static_cast<double>(truth.size()));
  EXPECT_LE(novel, 0.05 * static_cast<double>(truth.size()) + 1);
}

}  // namespace
}  // namespace gpp::test
