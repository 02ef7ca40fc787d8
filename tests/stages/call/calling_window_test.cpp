// Tests of stages/call/calling_window and stages/call/tandem_repeat: GATK
// GATKVariantContextUtilsUnitTest (testFindNumberOfRepetitions,
// testFindNumberOfRepetitionsFullArray through substrings, testRepeatAllele) ported with inputs and
// expected values; GATK has no AssemblyRegionTrimmer unit test at HEAD, so the window cases are
// derived by hand from AssemblyRegionTrimmer.trim.
#include "stages/call/calling_window.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/tandem_repeat.hpp"

namespace gpp::stages::call {
namespace {

// GATKVariantContextUtilsUnitTest.testFindNumberOfRepetitions
TEST(TandemRepeat, NumberOfRepetitions) {
  EXPECT_EQ(number_of_repetitions("AT", "GATAT", false), 2);
  EXPECT_EQ(number_of_repetitions("AT", "GATAT", true), 0);
  EXPECT_EQ(number_of_repetitions("A", "ATATG", true), 1);
  EXPECT_EQ(number_of_repetitions("AT", "ATATG", true), 2);
  EXPECT_EQ(number_of_repetitions("CCC", "CCCCCCCC", true), 2);
  EXPECT_EQ(number_of_repetitions("CCC", "CCCCCCCC", false), 2);
  EXPECT_EQ(number_of_repetitions("ATG", "ATGATGATGATG", true), 4);
  EXPECT_EQ(number_of_repetitions("G", "ATGATGATGATG", true), 0);
  EXPECT_EQ(number_of_repetitions("T", "T", true), 1);
  EXPECT_EQ(number_of_repetitions("AT", "ATGATGATCATG", true), 1);
  EXPECT_EQ(number_of_repetitions("CCCCCCCC", "CCC", true), 0);
  EXPECT_EQ(number_of_repetitions("AT", "AT", true), 1);
  EXPECT_EQ(number_of_repetitions("AT", "", true), 0);
  EXPECT_EQ(number_of_repetitions("ATG", "ATGATGATGATG", false), 4);
  EXPECT_EQ(number_of_repetitions("G", "ATGATGATGATG", false), 1);
  EXPECT_EQ(number_of_repetitions("T", "T", false), 1);
  EXPECT_EQ(number_of_repetitions("AT", "ATGATGATCATG", false), 0);
  EXPECT_EQ(number_of_repetitions("CCCCCCCC", "CCC", false), 0);
  EXPECT_EQ(number_of_repetitions("AT", "AT", false), 1);
  EXPECT_EQ(number_of_repetitions("AT", "", false), 0);
  EXPECT_THROW(number_of_repetitions("", "AT", false),
               Error);  // testFindNumberOfRepetitionsEmptyArg1
}

// GATKVariantContextUtilsUnitTest.testFindNumberOfRepetitionsFullArray, as substrings
TEST(TandemRepeat, NumberOfRepetitionsOfSubstrings) {
  const std::string_view a = "ATGATGATGATGYYY";
  EXPECT_EQ(number_of_repetitions(std::string_view("XXXATG").substr(3, 3), a.substr(0, 12), true),
            4);
  EXPECT_EQ(number_of_repetitions(std::string_view("GGGG").substr(0, 1),
                                  std::string_view("GGGGATGATGATGATG").substr(4, 12), true),
            0);
  EXPECT_EQ(number_of_repetitions("T", std::string_view("TTTTT").substr(0, 1), true), 1);
  EXPECT_EQ(number_of_repetitions(std::string_view("XXXAT").substr(3, 2),
                                  std::string_view("XXXGATAT").substr(4, 4), false),
            2);
  EXPECT_EQ(number_of_repetitions("ATG", std::string_view("ATGATGATGATGATG").substr(3, 12), false),
            4);
  EXPECT_EQ(number_of_repetitions("G", std::string_view("ATGATGATGATGATG").substr(0, 12), false),
            1);
}

// GATKVariantContextUtilsUnitTest.testRepeatAllele
TEST(TandemRepeat, RepeatUnitsPerAllele) {
  EXPECT_EQ(repeated_substring_length("ATG"), 3);
  EXPECT_EQ(repeated_substring_length("AAA"), 1);
  EXPECT_EQ(repeated_substring_length("CACACAC"), 7);
  EXPECT_EQ(repeated_substring_length("CACACA"), 2);
  EXPECT_EQ(repeated_substring_length("CATGCATG"), 4);
  EXPECT_EQ(repeated_substring_length("AATAATA"), 7);

  struct Case {
    const char* ref;
    std::vector<std::string> alts;
    const char* context;
    std::vector<int> repeats;
    std::size_t unit_length;
  };
  const Case cases[] = {
      {"A", {"AATC"}, "ATCATCATCGGA", {3, 4}, 3},
      {"AATC", {"A", "AATCATC"}, "ATCATCATCGGA", {3, 2, 4}, 3},
      {"ACCCC", {"A"}, "CCCCCCCCATG", {8, 4}, 1},
      {"ACCCC", {"ACC", "A", "ACCCCCC"}, "CCCCCCCAGAGAGAG", {7, 5, 3, 9}, 1},
      {"AGAGA", {"A", "AGAGAGAGA"}, "GAGAGAGAGATTT", {5, 3, 7}, 2},
  };
  for (const Case& c : cases) {
    const auto units = tandem_repeat_units(c.ref, c.alts, c.context);
    ASSERT_TRUE(units.has_value()) << c.ref;
    EXPECT_EQ(units->repeats_per_allele, c.repeats) << c.ref;
    EXPECT_EQ(units->repeat_unit.size(), c.unit_length) << c.ref;
  }
  // by hand: substitutions are not tandem repeats; a lone deleted base outside a homopolymer isn't
  EXPECT_FALSE(tandem_repeat_units("A", std::vector<std::string>{"G"}, "CGT").has_value());
  EXPECT_FALSE(tandem_repeat_units("CT", std::vector<std::string>{"C"}, "TAGG").has_value());
  // GATK's documented example: GATCCACCACCAGTCGA, TCCA -> T
  const auto cca = tandem_repeat_units("TCCA", std::vector<std::string>{"T"}, "CCACCACCAGTCGA");
  ASSERT_TRUE(cca.has_value());
  EXPECT_EQ(cca->repeat_unit, "CCA");
  EXPECT_EQ(cca->repeats_per_allele, (std::vector<int>{3, 2}));
}

// A 300-base reference at 900..1199: a fixed non-repetitive filler with motifs spliced in.
std::string region_reference() {
  std::string ref;
  std::uint32_t state = 12345;
  for (int i = 0; i < 300; ++i) {
    state = state * 1103515245u + 12345u;
    ref += "ACGT"[(state >> 16) & 3];
  }
  ref.replace(58, 5, "GCTAG");                // C at 958, T at 959 (outside the active region)
  ref.replace(95, 16, "ACGTTAGCATGGGGGG");    // A at 995, CGTTAGCATG at 996..1005
  ref.replace(150, 17, "GATCCACCACCAGTCGA");  // the CCA repeat, TCCA at 1052..1055
  ref.replace(170, 5, "CTTAG");               // C at 1070, TT at 1071..1072
  ref.replace(180, 5, "GCTAG");               // C at 1081, a single T at 1082
  return ref;
}

const ContigInterval kActive{1000, 1099};
const ContigInterval kPadded{900, 1199};

TEST(CallingWindow, NoEventInTheActiveRegion) {
  const std::string ref = region_reference();
  EXPECT_FALSE(compute_calling_window(kActive, kPadded, {}, {ref, 900}).variation_present);
  const std::vector<Event> outside = {{958, "CT", "C"}, {1150, "A", "G"}};
  EXPECT_FALSE(compute_calling_window(kActive, kPadded, outside, {ref, 900}).variation_present);
}

TEST(CallingWindow, SnpPaddedBy20) {
  const std::string ref = region_reference();
  const std::vector<Event> snp = {{1050, "G", "A"}};
  const CallingWindow w = compute_calling_window(kActive, kPadded, snp, {ref, 900});
  EXPECT_TRUE(w.variation_present);
  EXPECT_EQ(w.variant_span, (ContigInterval{1050, 1050}));
  EXPECT_EQ(w.padded_span, (ContigInterval{1030, 1070}));
}

TEST(CallingWindow, IndelsPaddedBy75OrByTheStr) {
  const std::string ref = region_reference();
  // TCCA -> T in (CCA)x3: 75 + 3 units x 3 bases = 84 on each side
  const std::vector<Event> str = {{1052, "TCCA", "T"}};
  CallingWindow w = compute_calling_window(kActive, kPadded, str, {ref, 900});
  EXPECT_EQ(w.variant_span, (ContigInterval{1052, 1055}));
  EXPECT_EQ(w.padded_span, (ContigInterval{1052 - 84, 1055 + 84}));
  // CT -> C with a single T: no STR, 75
  const std::vector<Event> plain = {{1081, "CT", "C"}};
  w = compute_calling_window(kActive, kPadded, plain, {ref, 900});
  EXPECT_EQ(w.padded_span, (ContigInterval{1081 - 75, 1082 + 75}));
  // CTT -> CT (one T of TT deleted): (T)x2 -> 75 + 2
  const std::vector<Event> homopolymer_del = {{1070, "CT", "C"}};
  w = compute_calling_window(kActive, kPadded, homopolymer_del, {ref, 900});
  EXPECT_EQ(w.padded_span, (ContigInterval{1070 - 77, 1071 + 77}));
}

TEST(CallingWindow, SpansEventsAndClipsToTheRegion) {
  const std::string ref = region_reference();
  // a SNP and a plain deletion: variant span over both, padded by the widest
  std::vector<Event> events = {{1010, "A", "G"}, {1070, "CT", "C"}, {1150, "A", "G"}};
  CallingWindow w = compute_calling_window(kActive, kPadded, events, {ref, 900});
  EXPECT_EQ(w.variant_span, (ContigInterval{1010, 1071}));
  EXPECT_EQ(w.padded_span, (ContigInterval{1010 - 20, 1071 + 77}));
  // a deletion starting before the active region: the variant span is clipped to the region,
  // the padding is not
  events = {{995, "ACGTTAGCATG", "A"}};
  w = compute_calling_window(kActive, kPadded, events, {ref, 900});
  EXPECT_EQ(w.variant_span, (ContigInterval{1000, 1005}));
  EXPECT_EQ(w.padded_span, (ContigInterval{995 - 75, 1005 + 75}));
  // padding clipped to the region's padded span, and never before the contig start
  events = {{1095, "A", "G"}};
  w = compute_calling_window(kActive, {900, 1100}, events, {ref, 900});
  EXPECT_EQ(w.padded_span, (ContigInterval{1075, 1100}));
  const std::string start_ref(300, 'A');
  events = {{5, "A", "G"}};
  w = compute_calling_window({0, 99}, {0, 199}, events, {start_ref, 0});
  EXPECT_EQ(w.padded_span, (ContigInterval{0, 25}));
  // custom paddings
  events = {{1050, "A", "G"}};
  w = compute_calling_window(kActive, kPadded, events, {ref, 900}, {5, 75, 75});
  EXPECT_EQ(w.padded_span, (ContigInterval{1045, 1055}));
  EXPECT_THROW(compute_calling_window(kActive, kPadded, events, {ref.substr(0, 200), 900}), Error);
}

}  // namespace
}  // namespace gpp::stages::call
