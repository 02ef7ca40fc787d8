// Tests of stages/call/read_realignment: GATK's AlignmentUtilsUnitTest createReadAlignedToRef
// cases (makeReadAlignedToRefData with its inputs and expected starts and CIGARs, and
// makeComplexReadAlignedToRef's mismatch bound), run through the CPU Smith-Waterman kernel, plus
// hand-derived cases of the batched region API (best haplotype choice, clips, deletions through
// the haplotype, left alignment, reads kept as they are, several regions in one batch).
//
// Coordinates: GATK's tests give 1-based reference starts; here they are 0-based (one less).
#include "stages/call/read_realignment.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/cigar_edit.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call {
namespace {

using test::cigar_of;
using test::text_of;

/// AlignmentUtilsUnitTest.makeReadForAlignedToRefTest: a read "myRead", qualities 30, aligned
/// without clips (GATK leaves a 10M CIGAR on reads of other lengths; without clips it is unused).
CallRead read_of(const std::string& bases, const std::string& cigar = "", std::int64_t start = 0) {
  CallRead read;
  read.name = "myRead";
  read.contig = 0;
  read.start = start;
  read.bases = bases;
  read.quals.assign(bases.size(), 30);
  read.cigar = cigar_of(cigar.empty() ? std::to_string(bases.size()) + "M" : cigar);
  read.mapping_quality = 60;
  return read;
}

Haplotype haplotype_of(const std::string& bases, const std::string& cigar,
                       std::int64_t alignment_start = 0, bool is_reference = false) {
  return make_haplotype(bases, cigar_of(cigar), alignment_start, {0, -1}, is_reference);
}

/// createReadAlignedToRef with its Smith-Waterman on the CPU kernel.
CallRead aligned_to_ref(const CallRead& read, const Haplotype& haplotype,
                        const std::string& reference_bases, std::int64_t padded_reference_start) {
  kernels::SequencePairs pairs;
  pairs.add(haplotype.bases, bases_without_soft_clips(read));
  const kernels::SwAlignments a =
      kernels::SmithWaterman(kernels::Backend::kCpu)
          .align(pairs, kernels::kSwReadToHaplotype, kReadToHaplotypeOverhang);
  return create_read_aligned_to_ref(read, haplotype, reference_bases, padded_reference_start,
                                    a.offset(0), a.cigar(0));
}

void expect_realigned(const CallRead& read, const Haplotype& haplotype,
                      const std::string& reference_bases, std::int64_t padded_reference_start,
                      std::int64_t expected_start, const std::string& expected_cigar) {
  const CallRead realigned =
      aligned_to_ref(read, haplotype, reference_bases, padded_reference_start);
  EXPECT_EQ(realigned.start, expected_start) << read.bases;
  EXPECT_EQ(text_of(realigned.cigar), expected_cigar) << read.bases;
  EXPECT_EQ(realigned.name, read.name);
  EXPECT_EQ(realigned.bases, read.bases);
  EXPECT_EQ(realigned.quals, read.quals);
}

const std::string kHapBases = "ACTGAAGGTTCC";

// makeReadAlignedToRefData: "make sure we get back a cigar of the right length"
TEST(CreateReadAlignedToRef, GatkAllMatchWithOneMismatch) {
  const Haplotype all_m = haplotype_of(kHapBases, "12M");
  for (int i = -1; i < static_cast<int>(kHapBases.size()); ++i) {
    std::string bases = kHapBases;
    if (i != -1) bases[i] = 'A';
    expect_realigned(read_of(bases), all_m, all_m.bases, 9, 9, "12M");
  }
}

// makeReadAlignedToRefData: insertions at the front and at the back
TEST(CreateReadAlignedToRef, GatkOverhangsBecomeInsertions) {
  const Haplotype all_m = haplotype_of(kHapBases, "12M");
  for (int pad = 1; pad < 10; ++pad) {
    expect_realigned(read_of(std::string(pad, 'N') + kHapBases), all_m, all_m.bases, 9, 9,
                     std::to_string(pad) + "I12M");
    expect_realigned(read_of(kHapBases + std::string(pad, 'N')), all_m, all_m.bases, 9, 9,
                     "12M" + std::to_string(pad) + "I");
  }
}

// makeReadAlignedToRefData: "make sure refStart and hapStart are respected"
TEST(CreateReadAlignedToRef, GatkReferenceAndHaplotypeStarts) {
  const Haplotype all_m = haplotype_of(kHapBases, "12M");
  for (int ref_start = 1; ref_start < 10; ++ref_start) {
    for (int hap_start = ref_start; hap_start < 10 + ref_start; ++hap_start) {
      const Haplotype hap = haplotype_of(kHapBases, "12M", hap_start);
      expect_realigned(read_of(kHapBases), hap, all_m.bases, ref_start - 1,
                       ref_start - 1 + hap_start, "12M");
    }
  }
}

// makeReadAlignedToRefData: "example case of bad alignment because SW doesn't necessarily
// left-align indels" (31M6D211M from the aligner, 28M6D214M after left alignment)
TEST(CreateReadAlignedToRef, GatkLeftAlignsTheAlignersIndel) {
  const std::string hap =
      "ACTGTGGGTTCCTCTTATTTTATTTCTACATCAATGTTCATATTTAACTTATTATTTTATCTTATTTTTAAATTTCTTTTATGTTGAG"
      "CCTTGATGAAAGCCATAGGTTCTCTCATATAATTGTATGTGTATGTATGTATATGTACATAATATATACATATATGTATATGTATGTG"
      "TATGTACATAATATATACGTATATGTATGTGTATGTACATAATATATACGTATATGTATGTGTATGTACATAATATATACGTATATG"
      "TATGTGTATGTACATAATATATACGTATATGTATGTGTATGTACATAATATATACGTATATGTATGTGTATGTGTATTACATAATAT"
      "ATACATATATGTATATATTATGTATATGTACATAATATATACATATATG";
  const std::string read =
      "ATGTACATAATATATACATATATGTATATGTATGTACATAATATATACGTATATGTATGTGTATGTACATAATATATACGTATATGT"
      "ATGTGTATGTACATAATATATACGTATATGTATGTGTATGTACATAATATATACGTATATGTATGTGTATGTACATAATATATACGT"
      "ATATGTATGTGTATGTGTATTACATAATATATACATATATGTATATATTATGTATATGTACATAATAT";
  const Haplotype bad_hap = haplotype_of(hap, std::to_string(hap.size()) + "M", 500);
  expect_realigned(read_of(read), bad_hap, bad_hap.bases, 10130100 - 1, 10130740 - 1, "28M6D214M");
}

// makeReadAlignedToRefData: "example where left-align generates a leading deletion"
TEST(CreateReadAlignedToRef, GatkLeadingDeletionFromLeftAlignment) {
  const std::string ref =
      "CTGAACGTAACCAAAATCAATATGGATACTGAGAAATACTATTTAATAAAGACATAAATTAGACTGCTAAAAAAAATTAAAGAAATTT"
      "CAAAAGAGAATCCACCTCTTTTCCTTGCCAGTGCTCAAAAGTGAGTGTGAATCTGGTGGCTGTGGGGCTGTTTTTGGTGTGGCTCTTTG"
      "GACCAGCCTGCCTGGTAATTCAAGCCTGCCTCTCATTTCTG";
  const std::string hap =
      "CTGAACGTAACCAAAATCAATATGGATACTGAGAAATACTATTTAATAAAGACATAAATTAGACTGCTAAAAAAAATTAAAGAAATTT"
      "CAAAAGAGAATCCACCTCTTTTCCTTGCCAGTGCTCAAAAGTGAGTGTGAATCTGGTGGCTGCGGGGCTGTTTTTGGTGTGGCTCTTTG"
      "GACCAGCCTGCCTGGTAATTCAAGCCTGCCTCTCATTTCTG";
  const Haplotype bad_hap = haplotype_of(hap, std::to_string(hap.size()) + "M", 575);
  expect_realigned(read_of("GCTGCTTTTGGTGTGGCTCTTT"), bad_hap, ref, 215239171 - 1,
                   215239171 - 1 + 575 + 154, "22M");
}

// makeReadAlignedToRefData: "example where the haplotype has an indel relative to reference"
TEST(CreateReadAlignedToRef, GatkHaplotypeWithDeletion) {
  const std::string ref =
      "GGGATCCTGCTACAAAGGTGAAACCCAGGAGAGTGTGGAGTCCAGAGTGTTGCCAGGACCCAGGCACAGGCATTAGTGCCCGTTGGAGA"
      "AAACAGGGGAATCCCGAAGAAATGGTGGGTCCTGGCCATCCGTGAGATCTTCCCAGGGCAGCTCCCCTCTGTGGAATCCAATCTGTCTT"
      "CCATCCTGC";
  const std::string hap =
      "GGGATCCTGCTACAAAGGTGAAACCCAGGAGAGTGTGGAGTCCAGAGTGTTGCCAGGACCCAGGCACAGGCATTAGTGCCCGTTGGAGA"
      "AAACGGGAATCCCGAAGAAATGGTGGGTCCTGGCCATCCGTGAGATCTTCCCAGGGCAGCTCCCCTCTGTGGAATCCAATCTGTCTTCC"
      "ATCCTGC";
  const Haplotype bad_hap = haplotype_of(hap, "93M2D92M", 553);
  expect_realigned(read_of("CCCATCCGTGAGATCTTCCCAGGGCAGCTCCCCTCTGTGGAATCCAATCTGTCTTCCATCCTGC"),
                   bad_hap, ref, 13011 - 1, 13011 - 1 + 553 + 123, "64M");
}

/// AlignmentUtilsUnitTest.Mutation: a substitution (A <-> C), an insertion of the first `length`
/// bases of GTCAGTTA, or a deletion, at `position`.
struct Mutation {
  int position;
  int length;
  CigarOp op;

  std::string apply(const std::string& sequence) const {
    std::string s = sequence;
    switch (op) {
      case CigarOp::kMatch:
        if (position < static_cast<int>(s.size())) s[position] = s[position] == 'A' ? 'C' : 'A';
        return s;
      case CigarOp::kInsertion:
        return s.insert(position, std::string("GTCAGTTA").substr(0, length));
      default:
        return s.erase(position, length);
    }
  }
};

/// AlignmentUtils.getMismatchCount over the whole read (M bases that differ from the reference;
/// X elements count whole).
int mismatch_count(const CallRead& read, const std::string& ref, std::int64_t ref_index) {
  int mismatches = 0;
  std::int64_t read_index = 0;
  for (std::uint32_t e : read.cigar) {
    const std::int64_t length = cigar_length(e);
    switch (cigar_op(e)) {
      case CigarOp::kSequenceMismatch:
        mismatches += static_cast<int>(length);
        [[fallthrough]];
      case CigarOp::kSequenceMatch:
        ref_index += length;
        read_index += length;
        break;
      case CigarOp::kMatch:
        for (std::int64_t j = 0; j < length; ++j, ++ref_index, ++read_index) {
          if (ref_index >= static_cast<std::int64_t>(ref.size())) continue;
          if (read.bases[read_index] != ref[ref_index]) ++mismatches;
        }
        break;
      case CigarOp::kInsertion:
      case CigarOp::kSoftClip:
        read_index += length;
        break;
      case CigarOp::kDeletion:
      case CigarOp::kSkip:
        ref_index += length;
        break;
      default:
        break;
    }
  }
  return mismatches;
}

// AlignmentUtilsUnitTest.makeComplexReadAlignedToRef / testReadAlignedToRefComplexAlignment:
// haplotypes and reads made from ACTGACTGACTG by three of four mutations, the haplotype aligned
// to NNNN + reference + NNNN (ORIGINAL_DEFAULT scores, SOFTCLIP); the realigned read may not show
// more mismatches than the mutations made. GATK's 3-permutations are sorted before use, so the 4
// distinct mutation sets (x 4 for the read) cover all its cases.
TEST(CreateReadAlignedToRef, GatkComplexAlignmentsStayWithinTheMutations) {
  const std::vector<Mutation> all = {{1, 1, CigarOp::kMatch},
                                     {2, 1, CigarOp::kMatch},
                                     {3, 1, CigarOp::kInsertion},
                                     {7, 1, CigarOp::kDeletion}};
  const auto mutate = [&](const std::string& sequence, std::size_t left_out, int& mutations) {
    std::string s = sequence;
    for (std::size_t m = 0; m < all.size(); ++m) {  // ascending position, as after the sort
      if (m == left_out) continue;
      s = all[m].apply(s);
      mutations += all[m].length;
    }
    return s;
  };
  const std::string reference = "ACTGACTGACTG";
  const std::string padded_reference = "NNNN" + reference + "NNNN";
  int cases = 0;
  for (std::size_t hap_left_out = 0; hap_left_out < all.size(); ++hap_left_out) {
    int hap_mutations = 0;
    const std::string hap_bases = mutate(reference, hap_left_out, hap_mutations);
    kernels::SequencePairs pair;
    pair.add(padded_reference, hap_bases);
    const kernels::SwAlignments hap_alignment =
        kernels::SmithWaterman(kernels::Backend::kCpu)
            .align(pair, kernels::kSwOriginalDefault, kernels::OverhangStrategy::kSoftClip);
    const Haplotype haplotype =
        make_haplotype(hap_bases, hap_alignment.cigar(0), hap_alignment.offset(0), {0, -1}, false);
    for (std::size_t read_left_out = 0; read_left_out < all.size(); ++read_left_out) {
      int read_mutations = 0;
      const CallRead read = read_of(mutate(hap_bases, read_left_out, read_mutations));
      const CallRead aligned = aligned_to_ref(read, haplotype, padded_reference, 0);
      ASSERT_GE(static_cast<std::int64_t>(padded_reference.size()) - aligned.start,
                static_cast<std::int64_t>(cigar_reference_length(aligned.cigar)) - 1);
      EXPECT_LE(mismatch_count(aligned, padded_reference, aligned.start),
                hap_mutations + read_mutations)
          << "read " << read.bases << " haplotype " << hap_bases << " " << text_of(haplotype.cigar)
          << " aligned " << text_of(aligned.cigar) << " @ " << aligned.start;
      ++cases;
    }
  }
  EXPECT_EQ(cases, 16);
}

}  // namespace
}  // namespace gpp::stages::call
