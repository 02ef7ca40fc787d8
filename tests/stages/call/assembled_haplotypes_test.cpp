// Tests of stages/call/assembled_haplotypes, derived by hand from GATK
// ReadThreadingAssembler.findBestPaths and AssemblyResultSet.trimTo (GATK's
// AssemblyResultSetUnitTest builds its haplotypes from a random assembly graph and only checks
// locations and lengths; the length/location checks are repeated here on hand-made haplotypes, with
// exact expectations).
#include "stages/call/assembled_haplotypes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;
using test::text_of;
using Verdict = HaplotypeAlignmentVerdict;

TEST(JudgeHaplotypeAlignment, FindBestPathsRules) {
  const auto judge = [](const char* cigar, std::int64_t ref_length) {
    const auto packed = cigar_of(cigar);
    return judge_haplotype_alignment(std::span<const std::uint32_t>(packed), ref_length);
  };
  EXPECT_EQ(judge_haplotype_alignment(std::nullopt, 100), Verdict::kAlignmentFailed);
  EXPECT_EQ(judge("50M1I50M", 100), Verdict::kKeep);
  EXPECT_EQ(judge("40M5D55M", 100), Verdict::kKeep);
  EXPECT_EQ(judge("40M5N55M", 100), Verdict::kTooDivergent);
  EXPECT_EQ(judge("29M", 100), Verdict::kTooShortOnReference);  // checked before the length match
  EXPECT_EQ(judge("30M", 30), Verdict::kKeep);
  EXPECT_EQ(judge("80M", 100), Verdict::kCheckWithIndelStrategy);
  EXPECT_THROW(judge("", 100), Error);

  const auto indel = cigar_of("40M20D40M");
  EXPECT_EQ(judge_indel_strategy_alignment(std::span<const std::uint32_t>(indel), 100),
            Verdict::kAlignmentFailed);
  EXPECT_THROW(judge_indel_strategy_alignment(std::span<const std::uint32_t>(indel), 90), Error);
  EXPECT_THROW(judge_indel_strategy_alignment(std::nullopt, 100), Error);
}

// Reference haplotype: 40 bases at 100..139, 50 bases into the assembly reference.
const std::string kRef = "ACGTAACGTCGATTACAGGCTTAGCATCGGATCCATGCAT";
const ContigInterval kLocation{100, 139};
const ContigInterval kSpan{105, 134};

Haplotype hap(std::string bases, const char* cigar, bool is_reference = false) {
  Haplotype h = make_haplotype(bases, cigar_of(cigar), 50, kLocation, is_reference);
  h.score = is_reference ? 0.0 : -1.0;
  h.kmer_size = 25;
  return h;
}

std::string with_base(std::string bases, std::size_t index, char base) {
  bases[index] = base;
  return bases;
}

struct Inputs {
  Haplotype ref = hap(kRef, "40M", true);
  Haplotype snp = hap(with_base(kRef, 10, 'T'), "40M");         // G->T at 110
  Haplotype snp_outside = hap(with_base(kRef, 2, 'A'), "40M");  // at 102: trims to the ref
  Haplotype deletion_at_start =                                 // 104..106 deleted
      hap(kRef.substr(0, 4) + kRef.substr(7), "4M3D33M");
  Haplotype insertion = hap(kRef.substr(0, 20) + "TTT" + kRef.substr(20), "20M3I20M");
  Haplotype snp_twice = hap(with_base(with_base(kRef, 10, 'T'), 36, 'A'), "40M");  // + 136
};

TEST(TrimHaplotypesTo, TrimsMergesAndSorts) {
  const Inputs in;
  const std::vector<Haplotype> haplotypes = {
      in.snp, in.ref, in.snp_outside, in.deletion_at_start, in.insertion, in.snp_twice};
  const TrimmedHaplotypes t = trim_haplotypes_to(haplotypes, kSpan);
  ASSERT_EQ(t.haplotypes.size(), 3u);
  // 30-base ones first (ref before the SNP: G < T at offset 5), then the 33-base insertion
  EXPECT_EQ(t.haplotypes[0].bases, kRef.substr(5, 30));
  EXPECT_EQ(t.haplotypes[1].bases, with_base(kRef, 10, 'T').substr(5, 30));
  EXPECT_EQ(t.haplotypes[2].bases, kRef.substr(5, 15) + "TTT" + kRef.substr(20, 15));
  EXPECT_EQ(text_of(t.haplotypes[2].cigar), "15M3I15M");
  EXPECT_EQ(t.original, (std::vector<std::size_t>{1, 0, 4}));  // snp_twice merged into snp
  EXPECT_EQ(t.reference_index, 0u);
  EXPECT_TRUE(t.haplotypes[0].is_reference);
  EXPECT_FALSE(t.haplotypes[1].is_reference);
  EXPECT_TRUE(t.variation_present);
  for (const Haplotype& h : t.haplotypes) {
    EXPECT_EQ(h.location, kSpan);
    EXPECT_EQ(h.alignment_start_wrt_ref, 55);
  }
  EXPECT_EQ(t.haplotypes[0].kmer_size, 0);  // a new Haplotype in GATK: k-mer size not copied
  EXPECT_EQ(t.haplotypes[1].kmer_size, 25);
  EXPECT_EQ(t.haplotypes[1].score, -1.0);
}

TEST(TrimHaplotypesTo, ReferenceWinsAMergeWhateverItsPlace) {
  const Inputs in;
  // the non-reference haplotype trimming to the reference's bases comes first
  const std::vector<Haplotype> haplotypes = {in.snp_outside, in.snp, in.ref};
  const TrimmedHaplotypes t = trim_haplotypes_to(haplotypes, kSpan);
  ASSERT_EQ(t.haplotypes.size(), 2u);
  EXPECT_EQ(t.original, (std::vector<std::size_t>{2, 1}));
  EXPECT_TRUE(t.haplotypes[0].is_reference);
  EXPECT_EQ(t.reference_index, 0u);
}

TEST(TrimHaplotypesTo, VariationAndErrors) {
  const Inputs in;
  // everything trims to the reference: one haplotype left, no variation
  const TrimmedHaplotypes only_ref =
      trim_haplotypes_to(std::vector<Haplotype>{in.ref, in.snp_outside}, kSpan);
  EXPECT_EQ(only_ref.haplotypes.size(), 1u);
  EXPECT_FALSE(only_ref.variation_present);
  EXPECT_THROW(trim_haplotypes_to(std::vector<Haplotype>{in.snp}, kSpan), Error);  // no ref
  // a reference haplotype that trimming would drop
  Haplotype gapped_ref = in.deletion_at_start;
  gapped_ref.is_reference = true;
  EXPECT_THROW(trim_haplotypes_to(std::vector<Haplotype>{gapped_ref, in.snp}, kSpan), Error);
  EXPECT_THROW(trim_haplotypes_to(std::vector<Haplotype>{in.ref}, {95, 120}), Error);
}

}  // namespace
}  // namespace gpp::stages::call
