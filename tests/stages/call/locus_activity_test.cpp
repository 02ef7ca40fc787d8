// The active-site probability: GATK ReferenceConfidenceModelUnitTest (RefVsAnyResult tests; the
// read depths of testDefaultRefConfidenceModelWithLowQualDels), AlignmentUtilsUnitTest
// .testSoftClipsData, and isActive values computed independently: a separate Java program (exact
// log10 sums, no lookup table; priors from Apache Commons Math 3.6.1 Gamma.logGamma and
// CombinatoricsUtils.binomialCoefficientLog; het 0.001, sd 0.01) gave the PLs and probabilities
// below. GATK's HaplotypeCallerEngineUnitTest.testIsActive needs a BAM that is not available here.
#include "stages/call/locus_activity.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/active_region_test_reads.hpp"

namespace gpp::stages::call {
namespace {

using test::make_read;

// Reads of 10M at 0 with quality `qual`; the alt ones carry C at position 5 (reference all A).
struct Pileup {
  std::vector<CallRead> reads;
  PileupWalker walker;
  std::vector<PileupElement> at(std::int64_t pos) {
    const auto span = walker.pileup_at(pos);
    return {span.begin(), span.end()};
  }
};
void fill(Pileup& p, int n_ref, int n_alt, std::uint8_t qual = 30) {
  p.reads.reserve(static_cast<std::size_t>(n_ref + n_alt));
  for (int i = 0; i < n_ref + n_alt; ++i) {
    p.reads.push_back(make_read("r" + std::to_string(i), 0, "10M",
                                i < n_ref ? "AAAAAAAAAA" : "AAAAACAAAA", qual));
  }
  for (const auto& r : p.reads) p.walker.add_read(r);
}

struct Expected {
  int n_ref, n_alt, sample_ploidy;
  std::vector<int> pls;
  double prob;
};

// The independent computation's cases (name: ref reads, alt reads, ploidy).
const std::vector<Expected> kCases = {
    {10, 0, 2, {0, 30, 348}, 0.0},
    {10, 1, 2, {2, 0, 315}, 0.0},  // het most likely, but not after the prior
    {10, 2, 2, {33, 0, 312}, 0.78391225267218780},
    {10, 3, 2, {65, 0, 309}, 0.99982610497343040},
    {5, 5, 2, {144, 0, 144}, 0.99999999999781040},
    {0, 4, 2, {139, 12, 0}, 0.99999999993904620},
    {10, 2, 3, {42, 0, 24, 321}, 0.97539177109448260},
    {20, 3, 4, {61, 0, 26, 81, 652}, 0.99974199175133470},
};

TEST(LocusActivity, MatchesTheIndependentComputation) {
  for (const Expected& c : kCases) {
    Pileup p;
    fill(p, c.n_ref, c.n_alt);
    const auto pileup = p.at(5);
    ASSERT_EQ(static_cast<int>(pileup.size()), c.n_ref + c.n_alt);
    const int ploidy = std::max(2, c.sample_ploidy);
    const RefVsAnyLikelihoods gl = ref_vs_any_likelihoods(pileup, 'A', ploidy, 10, 30);
    EXPECT_EQ(gl.ref_depth, c.n_ref);
    EXPECT_EQ(gl.non_ref_depth, c.n_alt);
    const std::vector<double> rounded = round_trip_through_pls(gl.genotype_likelihoods);
    ASSERT_EQ(rounded.size(), c.pls.size());
    for (std::size_t i = 0; i < rounded.size(); ++i) EXPECT_EQ(rounded[i], c.pls[i] / -10.0);

    LocusActivityOptions options;
    options.sample_ploidy = c.sample_ploidy;
    const ActivityProfileState state = locus_activity(5, pileup, 'A', options);
    EXPECT_EQ(state.position, 5);
    EXPECT_NEAR(state.active_prob, c.prob, 1e-13) << c.n_ref << " ref, " << c.n_alt << " alt";
    EXPECT_EQ(state.type, ActivityProfileState::Type::kNone);
  }
}

// Exact genotype likelihoods for 10 ref + 2 alt Q30 reads (the independent computation): the
// homozygous ones need no lookup table, the het one is within the table's precision.
TEST(LocusActivity, RefVsAnyGenotypeLikelihoods) {
  Pileup p;
  fill(p, 10, 2);
  const RefVsAnyLikelihoods gl = ref_vs_any_likelihoods(p.at(5), 'A', 2, 10, 30);
  ASSERT_EQ(gl.genotype_likelihoods.size(), 3u);
  EXPECT_NEAR(gl.genotype_likelihoods[0], -6.958587627179501, 1e-12);
  EXPECT_NEAR(gl.genotype_likelihoods[1], -3.615835462456596, 1e-4);
  EXPECT_NEAR(gl.genotype_likelihoods[2], -34.77208157074466, 1e-12);
  EXPECT_EQ(gl.depth(), 12);
}

// A mixed pileup: Q10 and Q2 bases are skipped (<= 10), Q11 counts (independent computation:
// PLs 84 0 113).
TEST(LocusActivity, LowQualityBasesAreSkipped) {
  const std::vector<std::pair<std::uint8_t, bool>> reads = {{40, false}, {40, false}, {40, false},
                                                            {20, true},  {20, true},  {10, true},
                                                            {11, true},  {35, true},  {2, false}};
  std::vector<CallRead> storage;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    storage.push_back(make_read("m" + std::to_string(i), 0, "10M",
                                reads[i].second ? "AAAAACAAAA" : "AAAAAAAAAA", reads[i].first));
  }
  PileupWalker walker;
  for (const auto& r : storage) walker.add_read(r);
  const auto pileup = walker.pileup_at(5);
  const RefVsAnyLikelihoods gl = ref_vs_any_likelihoods(pileup, 'A', 2, 10, 30);
  EXPECT_EQ(gl.ref_depth, 3);
  EXPECT_EQ(gl.non_ref_depth, 4);
  const std::vector<double> rounded = round_trip_through_pls(gl.genotype_likelihoods);
  EXPECT_EQ(rounded, (std::vector<double>{-8.4, -0.0, -11.3}));
  EXPECT_NEAR(locus_activity(5, pileup, 'A', {}).active_prob, 0.99999781041535630, 1e-13);
}

TEST(LocusActivity, EmptyOrUninformativePileupsAreInactive) {
  const ActivityProfileState empty = locus_activity(7, {}, 'A', {});
  EXPECT_EQ(empty.active_prob, 0.0);
  EXPECT_EQ(empty.type, ActivityProfileState::Type::kNone);
  Pileup p;
  fill(p, 0, 5, 10);  // every base at the minimum quality: nothing counted
  EXPECT_EQ(locus_activity(5, p.at(5), 'A', {}).active_prob, 0.0);
}

// All-reference pileups: the state is what the likelihoods, their PLs and the posterior give,
// 0 for every quality the default minimum counts; a Q1 base favours a non-ref genotype (error
// 0.79 > 0.75), so with --min-base-quality-score 0 a hundred of them make the site active.
TEST(LocusActivity, AllReferencePileupsAreInactiveExceptOnQualityOneBases) {
  for (const std::uint8_t qual :
       {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{11}, std::uint8_t{30}, std::uint8_t{60}}) {
    for (const int min_base_quality : {0, 1, 10}) {
      Pileup p;
      fill(p, 100, 0, qual);
      const auto pileup = p.at(5);
      LocusActivityOptions options;
      options.min_base_quality = static_cast<std::uint8_t>(min_base_quality);
      const RefVsAnyLikelihoods gl = ref_vs_any_likelihoods(
          pileup, 'A', 2, options.min_base_quality, options.deletion_quality);
      const double expected =
          gl.ref_depth == 0
              ? 0.0
              : single_sample_non_ref_posterior(round_trip_through_pls(gl.genotype_likelihoods),
                                                ref_pseudocount(options), snp_pseudocount(options));
      const double prob = locus_activity(5, pileup, 'A', options).active_prob;
      EXPECT_EQ(prob, expected) << "Q" << int{qual} << ", minimum " << min_base_quality;
      if (qual == 1 && min_base_quality == 0) {
        EXPECT_GT(prob, 0.5);
      } else {
        EXPECT_EQ(prob, 0.0) << "Q" << int{qual} << ", minimum " << min_base_quality;
      }
    }
  }
}

TEST(LocusActivity, ReferenceBaseIsReadAsGatkReadsTheFasta) {
  Pileup lower;
  fill(lower, 10, 3);
  EXPECT_NEAR(locus_activity(5, lower.at(5), 'a', {}).active_prob, 0.99982610497343040, 1e-13);
  Pileup iupac;
  fill(iupac, 10, 0);  // reference R reads as N: every A base is a mismatch
  EXPECT_GT(locus_activity(5, iupac.at(5), 'R', {}).active_prob, 0.99);
}

TEST(LocusActivity, HaploidSamplesAreTreatedAsDiploid) {
  Pileup p;
  fill(p, 10, 2);
  LocusActivityOptions haploid;
  haploid.sample_ploidy = 1;
  EXPECT_NEAR(locus_activity(5, p.at(5), 'A', haploid).active_prob, 0.78391225267218780, 1e-13);
}

// ReferenceConfidenceModel.isAltBeforeAssembly.
TEST(LocusActivity, AltBeforeAssembly) {
  const CallRead read = make_read("r", 0, "3M1I3M2D3M1S", "AAAAAAAACAA");
  const auto elements = pileup_elements_of_read(read);
  std::vector<bool> alt;
  for (const auto& e : elements) alt.push_back(is_alt_before_assembly(e, 'A'));
  // A A A(before I) | A(after I) A A(before D) | D D | A(after D) C A(before S)
  EXPECT_EQ(alt, (std::vector<bool>{false, false, true, true, false, true, true, true, true, true,
                                    true}));
  EXPECT_FALSE(is_alt_before_assembly(elements[9], 'C'));  // the C matches a C reference
}

// The positions marked as possibly alt are those AltBeforeAssembly finds alt on an all-A
// reference, and no others: the bases next to the insertion, deletion and soft clip, the
// deletion, the mismatching C.
TEST(LocusActivity, PossibleAltPositionsOfOneRead) {
  const CallRead read = make_read("r", 0, "3M1I3M2D3M1S", "AAAAAAAACAA");
  const std::string reference(20, 'A');
  std::vector<char> marks(20, 0);
  mark_possible_alt_positions(read, reference, 0, marks);
  EXPECT_EQ(marks, (std::vector<char>{0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // A window of positions 4-8 only: the marks there.
  std::vector<char> window(5, 0);
  mark_possible_alt_positions(read, reference, 4, window);
  EXPECT_EQ(window, (std::vector<char>{0, 1, 1, 1, 1}));
  // A read whose CIGAR does not match its bases marks nothing.
  std::vector<char> none(20, 0);
  mark_possible_alt_positions(make_read("bad", 0, "3M2D3M", "AAAAAAAA"), reference, 0, none);
  EXPECT_EQ(none, std::vector<char>(20, 0));
}

// On random reads (every CIGAR operation, empty elements, clips at both ends, mismatches) every
// element is_alt_before_assembly calls alt lies on a marked position, and most positions of a
// read without an event are not marked.
TEST(LocusActivity, PossibleAltPositionsHoldEveryAltElement) {
  std::mt19937 random(11);
  std::string reference;
  for (int i = 0; i < 400; ++i) reference += "ACGT"[random() % 4];
  std::size_t alt_elements = 0, unmarked = 0;
  for (int r = 0; r < 2000; ++r) {
    std::string cigar;
    if (random() % 4 == 0) cigar += std::to_string(1 + random() % 3) + "H";
    if (random() % 3 == 0) cigar += std::to_string(1 + random() % 5) + "S";
    const int blocks = 1 + static_cast<int>(random() % 4);
    for (int b = 0; b < blocks; ++b) {
      if (b > 0) {
        const char event = "IDN"[random() % 3];
        cigar += std::to_string(random() % 6 == 0 ? 0 : 1 + random() % 3) + event;
      }
      cigar += std::to_string(1 + random() % 12) + "M=X"[random() % 3];
      if (random() % 8 == 0) cigar += "0M" + std::to_string(1 + random() % 4) + "M";
    }
    if (random() % 3 == 0) cigar += std::to_string(1 + random() % 5) + "S";
    if (random() % 4 == 0) cigar += std::to_string(1 + random() % 3) + "H";
    CallRead read =
        make_read("r" + std::to_string(r), static_cast<std::int64_t>(random() % 300), cigar);
    for (char& base : read.bases) base = random() % 10 == 0 ? "ACGTN"[random() % 5] : 'X';
    // Mostly the reference's bases along the alignment, so that most positions are plain.
    std::int64_t position = read.start;
    std::size_t query = 0;
    std::vector<std::int64_t> element_start;  // reference start of each CIGAR element
    for (const std::uint32_t element : read.cigar) {
      element_start.push_back(position);
      const CigarOp op = cigar_op(element);
      for (std::uint32_t i = 0; i < cigar_length(element); ++i) {
        if (consumes_query(op) && read.bases[query] == 'X') {
          read.bases[query] = consumes_reference(op) && position < 400
                                  ? reference[static_cast<std::size_t>(position)]
                                  : 'A';
        }
        if (consumes_query(op)) ++query;
        if (consumes_reference(op)) ++position;
      }
    }
    std::vector<char> marks(400, 0);
    mark_possible_alt_positions(read, reference, 0, marks);
    for (const PileupElement& e : pileup_elements_of_read(read)) {
      const std::int64_t at = element_start[e.cigar_index] + e.offset_in_cigar;
      if (at >= 400) continue;
      if (is_alt_before_assembly(e, reference[static_cast<std::size_t>(at)])) {
        ++alt_elements;
        ASSERT_EQ(marks[static_cast<std::size_t>(at)], 1)
            << "read " << cigar << " at " << read.start << ": element at " << at;
      } else {
        unmarked += marks[static_cast<std::size_t>(at)] == 0;
      }
    }
  }
  EXPECT_GT(alt_elements, 2000u);
  EXPECT_GT(unmarked, 20000u);
}

// testDefaultRefConfidenceModelWithLowQualDels: 10 reads 5M1D42M on a 48 bp reference whose base
// after the deletion has quality 0; depth 10 everywhere but there (the deletion itself counts,
// with REF_MODEL_DELETION_QUAL, even above the minimum base quality).
TEST(LocusActivity, DeletionsCountAndLowQualityBasesDoNot) {
  const std::string ref = "ACGTACCCGGTTACGTAACCGGTTACGTAACCGGTTACGTAACCGGTT";
  std::vector<CallRead> reads;
  for (int i = 0; i < 10; ++i) {
    CallRead r =
        make_read("del" + std::to_string(i), 0, "5M1D42M", ref.substr(0, 5) + ref.substr(6));
    r.quals[5] = 0;
    reads.push_back(r);
  }
  PileupWalker walker;
  for (const auto& r : reads) walker.add_read(r);
  for (std::int64_t pos = 0; pos < 48; ++pos) {
    const auto pileup = walker.pileup_at(pos);
    const RefVsAnyLikelihoods gl = ref_vs_any_likelihoods(pileup, ref[pos], 2, 6, 30);
    EXPECT_EQ(gl.depth(), pos == 6 ? 0 : 10) << pos;
    const bool alt_site = pos == 4 || pos == 5;  // before the deletion start, the deletion
    EXPECT_EQ(gl.non_ref_depth, alt_site ? 10 : 0) << pos;
  }
  // With a minimum base quality above the deletion quality the deletion still counts.
  PileupWalker strict;
  for (const auto& r : reads) strict.add_read(r);
  EXPECT_EQ(ref_vs_any_likelihoods(strict.pileup_at(5), ref[5], 2, 40, 30).depth(), 10);
}

// AlignmentUtilsUnitTest.testSoftClipsData over its data provider.
TEST(LocusActivity, CountHighQualitySoftClips) {
  for (int left_length : {0, 1, 10}) {
    for (int right_length : {0, 1, 10}) {
      for (int threshold : {10, 20, 30}) {
        for (char middle_op : {'M', 'D'}) {
          for (int match_size : {0, 1, 10}) {
            const auto quals = [&](int length) {
              std::vector<std::uint8_t> q;
              for (int i = 0; i < length; ++i) {
                q.push_back(static_cast<std::uint8_t>(threshold + (i % 2 == 0 ? 1 : -1)));
              }
              return q;
            };
            const auto left = quals(left_length), right = quals(right_length);
            int expected = 0;
            for (auto q : left) expected += q > threshold;
            for (auto q : right) expected += q > threshold;
            CallRead read;
            std::string cigar;
            if (left_length > 0) cigar += std::to_string(left_length) + "S";
            if (match_size > 0) cigar += std::to_string(match_size) + middle_op;
            if (right_length > 0) cigar += std::to_string(right_length) + "S";
            read.cigar = test::parse_cigar(cigar);
            read.quals = left;
            if (middle_op == 'M') read.quals.insert(read.quals.end(), match_size, 30);
            read.quals.insert(read.quals.end(), right.begin(), right.end());
            read.bases.assign(read.quals.size(), 'A');
            EXPECT_EQ(count_high_quality_soft_clips(read, static_cast<std::uint8_t>(threshold)),
                      expected)
                << cigar;
          }
        }
      }
    }
  }
}

// HaplotypeCallerEngine.isActive: alt evidence next to soft clips with more than 6 high-quality
// (> Q28) clipped bases on average marks the state HIGH_QUALITY_SOFT_CLIPS with that average.
TEST(LocusActivity, HighQualitySoftClipsMarkTheState) {
  std::vector<CallRead> reads;
  for (int i = 0; i < 4; ++i)
    reads.push_back(make_read("s" + std::to_string(i), 5, "10S20M", "", 30));
  reads.push_back(make_read("t", 5, "3S20M", "", 30));
  for (int i = 0; i < 6; ++i) reads.push_back(make_read("m" + std::to_string(i), 0, "30M"));
  PileupWalker walker;
  // Coordinate order: the 30M reads start first.
  for (int i = 5; i < 11; ++i) walker.add_read(reads[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 5; ++i) walker.add_read(reads[static_cast<std::size_t>(i)]);
  const ActivityProfileState state = locus_activity(5, walker.pileup_at(5), 'A', {});
  EXPECT_EQ(state.type, ActivityProfileState::Type::kHighQualitySoftClips);
  EXPECT_DOUBLE_EQ(state.result_value, (4 * 10 + 3) / 5.0);  // 8.6
  EXPECT_GT(state.active_prob, 0.99);                        // 5 alt (next-to-clip) against 6 ref
  const ActivityProfileState inside = locus_activity(6, walker.pileup_at(6), 'A', {});
  EXPECT_EQ(inside.type, ActivityProfileState::Type::kNone);
  EXPECT_EQ(inside.active_prob, 0.0);
}

// ReferenceConfidenceModelUnitTest.testRefVsAnyResult*: zeroed result, AD, capping by hom-ref.
TEST(RefVsAnyLikelihoods, ResultBehavesAsGatks) {
  RefVsAnyLikelihoods res;
  res.genotype_likelihoods.assign(3, 0.0);
  EXPECT_EQ(res.allele_depths(), (std::vector<int>{0, 0}));
  EXPECT_EQ(res.depth(), 0);
  EXPECT_EQ(res.capped_by_hom_ref_likelihood(), (std::vector<double>{0.0, 0.0, 0.0}));
  res.ref_depth += 2;
  res.non_ref_depth += 3;
  EXPECT_EQ(res.allele_depths(), (std::vector<int>{2, 3}));
  res.genotype_likelihoods = {100, 200, 60};
  EXPECT_EQ(res.capped_by_hom_ref_likelihood(), (std::vector<double>{100.0, 100.0, 60.0}));
  EXPECT_THROW(ref_vs_any_likelihoods({}, 'A', 0, 10, 30), Error);  // testRefVsAnyResultNotNegative
}

// AlleleFrequencyCalculator.calculateSingleSampleBiallelicNonRefPosterior edge rules.
TEST(LocusActivity, NonRefPosteriorRules) {
  const LocusActivityOptions options;
  EXPECT_DOUBLE_EQ(ref_pseudocount(options), 10.0);
  EXPECT_DOUBLE_EQ(snp_pseudocount(options), 0.01);
  const double ref_max[] = {0.0, -1.0, -2.0};
  EXPECT_EQ(single_sample_non_ref_posterior(ref_max, 10.0, 0.01), 0.0);
  const double tie[] = {-1.0, -1.0, -5.0};  // first maximum is hom-ref
  EXPECT_EQ(single_sample_non_ref_posterior(tie, 10.0, 0.01), 0.0);
  const double one[] = {0.0};
  EXPECT_THROW(single_sample_non_ref_posterior(one, 10.0, 0.01), Error);
  const double inf_pl[] = {-std::numeric_limits<double>::infinity(), 0.0, -1.0};
  EXPECT_EQ(round_trip_through_pls(inf_pl)[0], INT32_MAX / -10.0);
}

}  // namespace
}  // namespace gpp::stages::call
