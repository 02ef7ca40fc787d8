// Haplotype-to-reference CIGARs: GATK's CigarUtilsUnitTest cases, edge cases, GPU against CPU.
#include "stages/call/haplotype_cigar.hpp"

#include <gtest/gtest.h>

#include <random>

#include "tests/kernels/smith_waterman/sw_test_pairs.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::call {
namespace {

using kernels::Backend;
using kernels::SequencePairs;

std::string text(const HaplotypeCigars& c, std::size_t i) {
  return c.has_cigar(i) ? cigar_to_string(c.cigar(i)) : "null";
}

// calculate_cigars with an aligner of `backend`.
HaplotypeCigars cigars_of(const kernels::SequencePairs& pairs, Backend backend) {
  kernels::SmithWaterman aligner(backend);
  return calculate_cigars(pairs, aligner);
}

void expect_golden_cases(Backend backend) {
  const auto cases = test::load_calculate_cigar_cases();
  ASSERT_GE(cases.size(), 50u);
  SequencePairs pairs;
  for (const auto& c : cases) pairs.add(c.ref, c.alt);
  const HaplotypeCigars cigars = cigars_of(pairs, backend);
  ASSERT_EQ(cigars.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(text(cigars, i), cases[i].cigar) << cases[i].ref << " " << cases[i].alt;
  }
}

// Haplotypes as the assembler makes them: a reference window and variants of it (SNPs, indels in
// repeats and homopolymers), anchored at both ends.
SequencePairs haplotype_pairs(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  SequencePairs pairs;
  const auto base = [&] { return "ACGT"[rng() % 4]; };
  for (std::size_t k = 0; k < count; ++k) {
    std::string ref;
    const int length = 20 + static_cast<int>(rng() % 600);
    while (static_cast<int>(ref.size()) < length) {
      if (rng() % 4 == 0) {
        const std::string unit = {base(), base()};
        for (int r = static_cast<int>(rng() % 8); r >= 0; --r) ref += unit;
      } else {
        ref.append(1 + rng() % 3, base());
      }
    }
    std::string alt = ref;
    const int events = static_cast<int>(rng() % 4);
    for (int e = 0; e < events && alt.size() > 10; ++e) {
      const std::size_t at = 3 + rng() % (alt.size() - 6);
      switch (rng() % 3) {
        case 0:
          alt[at] = base();
          break;
        case 1:
          alt.erase(at, 1 + rng() % std::min<std::size_t>(30, alt.size() - at - 3));
          break;
        default:
          alt.insert(at, alt.substr(at, 1 + rng() % 12));
          break;
      }
    }
    pairs.add(ref, alt);
  }
  return pairs;
}

TEST(HaplotypeCigar, GoldenCalculateCigarCasesCpu) { expect_golden_cases(Backend::kCpu); }

TEST(HaplotypeCigar, DocumentedExample) {
  SequencePairs pairs;
  pairs.add("ATGGAAAAAAAAAAGGGGC", "ATGGTGGGGC");
  EXPECT_EQ(text(cigars_of(pairs, Backend::kCpu), 0), "4M9D6M");
}

TEST(HaplotypeCigar, EdgeCases) {
  SequencePairs pairs;
  pairs.add("", "");  // empty alt: <ref length>D
  pairs.add("ACGT", "");
  pairs.add("ACGT", "ACGT");    // identical
  pairs.add("", "ACG");         // empty ref: all insertion
  pairs.add("AAAA", "TTTTTT");  // nothing in common
  const HaplotypeCigars c = cigars_of(pairs, Backend::kCpu);
  EXPECT_EQ(text(c, 0), "0D");
  EXPECT_EQ(text(c, 1), "4D");
  EXPECT_EQ(text(c, 2), "4M");
  EXPECT_EQ(text(c, 3), "3I");
  EXPECT_TRUE(c.has_cigar(4));
}

TEST(HaplotypeCigar, CigarsSpanRefAndAlt) {
  // Every CIGAR consumes exactly the ref and the alt (with leading/trailing deletions kept).
  const SequencePairs pairs = haplotype_pairs(400, 3);
  const HaplotypeCigars c = cigars_of(pairs, Backend::kCpu);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ASSERT_TRUE(c.has_cigar(i)) << i;
    std::size_t ref_bases = 0, alt_bases = 0;
    for (std::uint32_t e : c.cigar(i)) {
      const auto op = cigar_op(e);
      if (op == CigarOp::kMatch || op == CigarOp::kDeletion) ref_bases += cigar_length(e);
      if (op == CigarOp::kMatch || op == CigarOp::kInsertion) alt_bases += cigar_length(e);
    }
    EXPECT_EQ(ref_bases, pairs.ref(i).size())
        << pairs.ref(i) << " " << pairs.alt(i) << " " << text(c, i);
    EXPECT_EQ(alt_bases, pairs.alt(i).size())
        << pairs.ref(i) << " " << pairs.alt(i) << " " << text(c, i);
  }
}

using HaplotypeCigarGpu = ::gpp::test::GpuTest;

TEST_F(HaplotypeCigarGpu, GoldenCalculateCigarCases) { expect_golden_cases(Backend::kGpu); }

TEST_F(HaplotypeCigarGpu, EqualsCpuOnHaplotypesAndRandomPairs) {
  SequencePairs pairs = haplotype_pairs(3000, 11);
  const SequencePairs random = test::random_pairs(1000, 1000, 12);
  for (std::size_t i = 0; i < random.size(); ++i) pairs.add(random.ref(i), random.alt(i));
  const HaplotypeCigars gpu = cigars_of(pairs, Backend::kGpu);
  const HaplotypeCigars cpu = cigars_of(pairs, Backend::kCpu);
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(text(gpu, i), text(cpu, i)) << pairs.ref(i) << " " << pairs.alt(i);
  }
}

}  // namespace
}  // namespace gpp::stages::call
