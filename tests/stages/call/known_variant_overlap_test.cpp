// The --dbsnp annotation: GATK's VariantOverlapAnnotatorUnitTest (its AnnotateRsIDData table, for
// annotateRsID and annotateOverlaps), the event splitting and trimming it relies on, and the
// alleles GATK compares before it reverse-trims a call.
#include "stages/call/annotations/known_variant_overlap.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stages/call/vcf_format.hpp"

namespace gpp::stages::call {
namespace {

constexpr std::int64_t kPosition = 9;  // GATK's makeVC: contig 20, POS 10

io::KnownVariant known(const std::string& id, std::vector<std::string> alleles) {
  return {kPosition, id, std::move(alleles), false};
}

VariantCall call_of(const std::string& id, std::vector<std::string> alleles) {
  VariantCall call;
  call.contig = 0;
  call.position = kPosition;
  call.id = id == "." ? "" : id;
  call.alleles = std::move(alleles);
  call.info = {{"AC", "1"}, {"DP", "10"}};
  return call;
}

struct RsIdCase {
  VariantCall call;
  std::vector<io::KnownVariant> records;
  std::string expected_id;  // "." when none
  bool expect_overlap;
};

std::vector<RsIdCase> annotate_rs_id_data() {
  const auto call_no_id_ac = call_of(".", {"A", "C"});
  const auto call_no_id_at = call_of(".", {"A", "T"});
  const auto call_id_ac = call_of("foo", {"A", "C"});
  const auto call_existing_id_ac = call_of("rsID1", {"A", "C"});
  const auto db_ac = known("rsID1", {"A", "C"});
  const auto db_at = known("rsID2", {"A", "T"});
  const auto db_ag = known("rsID3", {"A", "G"});
  const auto db_ac_at = known("rsID1;rsID2", {"A", "C", "T"});
  const auto db_ac_ag = known("rsID1;rsID3", {"A", "C", "G"});
  const auto call_no_id_act = call_of(".", {"A", "C", "T"});
  const auto call_t_c_tac = call_of(".", {"T", "C", "TAC"});
  const auto db_t_tac_tatac = known("rsID1", {"T", "TAC", "TATAC"});
  const auto db_t_c = known("rsID2", {"T", "C"});
  const auto call_t_ttcc = call_of(".", {"T", "TTCC"});
  const auto db_complex_mixed =
      known("rsID1", {"TTCCTCCTCCTCCTCCTCC", "T", "TTCCTCCTCCTCCTCCTCCTCC"});
  const auto call_complex_mixed =
      call_of(".", {"TTCCTCCTCCTCCTCCTCC", "T", "TTCCTCCTCCTCCTCCTCCTCC"});
  const auto db_t_ttcc = known("rsID1", {"T", "TTCC"});
  const auto call_deletion = call_of(".", {"TTTT", "T"});
  const auto db_deletion_other_length = known("rsID1", {"TTTTTT", "T"});
  const auto db_deletion_and_insertion = known("rsID2", {"TTTTTT", "T", "TTTTTTTTTTT"});
  const auto call_insertion = call_of(".", {"T", "TTTT"});
  const auto db_insertion_other_length = known("rsID1", {"T", "TTTTTT"});
  auto db_ac_fail = known("rsID1", {"A", "C"});
  db_ac_fail.filtered = true;

  return {
      {call_no_id_ac, {db_ac}, "rsID1", true},
      {call_no_id_ac, {db_at}, ".", false},
      {call_id_ac, {db_ac}, "foo;rsID1", true},
      {call_id_ac, {db_at}, "foo", false},
      {call_existing_id_ac, {db_ac}, "rsID1", true},
      {call_existing_id_ac, {db_at}, "rsID1", false},
      {call_no_id_act, {db_ac}, "rsID1", true},
      {call_no_id_act, {db_at}, "rsID2", true},
      {call_no_id_act, {db_ag}, ".", false},
      {call_no_id_act, {db_ac_at}, "rsID1;rsID2", true},
      {call_no_id_act, {db_ac_ag}, "rsID1;rsID3", true},
      // several records
      {call_no_id_ac, {db_ac, db_at}, "rsID1", true},
      {call_no_id_ac, {db_at, db_ac}, "rsID1", true},
      {call_no_id_ac, {db_ac_at}, "rsID1;rsID2", true},
      {call_no_id_at, {db_ac_at}, "rsID1;rsID2", true},
      {call_no_id_ac, {db_ac_ag}, "rsID1;rsID3", true},
      {call_no_id_at, {db_ac_ag}, ".", false},
      // several IDs matching a multi-allelic site, in the records' order
      {call_t_c_tac, {db_t_tac_tatac, db_t_c}, "rsID1;rsID2", true},
      {call_t_c_tac, {db_t_c, db_t_tac_tatac}, "rsID2;rsID1", true},
      // a multi-allelic mixed record, then a multi-allelic mixed call: split and trimmed
      {call_t_ttcc, {db_complex_mixed}, "rsID1", true},
      {call_complex_mixed, {db_t_ttcc}, "rsID1", true},
      // deletions and insertions of other lengths
      {call_deletion, {db_deletion_other_length, db_deletion_and_insertion}, ".", false},
      {call_insertion, {db_insertion_other_length, db_deletion_and_insertion}, ".", false},
      // a filtered record gives nothing
      {call_no_id_ac, {db_ac_fail}, ".", false},
  };
}

TEST(KnownVariantOverlap, AnnotateRsIdAsGatk) {
  int index = 0;
  for (RsIdCase& c : annotate_rs_id_data()) {
    SCOPED_TRACE("case " + std::to_string(index++));
    VariantCall call = c.call;
    annotate_known_variants(call, c.records);
    EXPECT_EQ(call.id.empty() ? "." : call.id, c.expected_id);
    // annotateOverlaps: the flag DB exactly when a record matched, INFO keys kept sorted.
    const std::vector<InfoField> flagged = {{"AC", "1"}, {"DB", ""}, {"DP", "10"}};
    const std::vector<InfoField> plain = {{"AC", "1"}, {"DP", "10"}};
    EXPECT_EQ(call.info, c.expect_overlap ? flagged : plain);
    // The ID the overlap test sees: matching_known_ids, whatever the call's own ID.
    EXPECT_EQ(matching_known_ids(kPosition, c.call.alleles, c.records).has_value(),
              c.expect_overlap);
  }
}

TEST(KnownVariantOverlap, RecordLinesWriteTheIdAndTheFlag) {
  VariantCall call = call_of(".", {"A", "C"});
  call.genotype.alleles = {0, 1};
  const std::vector<io::KnownVariant> records = {known("rs7287620", {"A", "C", "G"})};
  annotate_known_variants(call, records);
  const std::vector<VcfContig> contigs = {{"20", 1000}};
  EXPECT_EQ(vcf_record(call, contigs), "20\t10\trs7287620\tA\tC\t0\t.\tAC=1;DB;DP=10\tGT\t0/1\n");
  // Annotating twice keeps one ID and one flag (the ID is already there).
  annotate_known_variants(call, records);
  EXPECT_EQ(call.id, "rs7287620");
  EXPECT_EQ(call.info.size(), 3u);
}

// splitVariantContextToEvents(vc, trimLeft = true): a biallelic site is not trimmed; each ALT of a
// multi-allelic one is trimmed at both ends, one base kept, the start moved by what the front lost.
TEST(KnownVariantOverlap, SplitIntoEventsTrimsMultiAllelicSites) {
  EXPECT_TRUE(split_into_events(5, std::vector<std::string>{"A"}).empty());
  EXPECT_EQ(split_into_events(5, std::vector<std::string>{"ACT", "GCT"}),
            (std::vector<AlleleEvent>{{5, "ACT", "GCT"}}));
  EXPECT_EQ(split_into_events(5, std::vector<std::string>{"ACT", "GCT", "A"}),
            (std::vector<AlleleEvent>{{5, "A", "G"}, {5, "ACT", "A"}}));
  // A repeat deletion beside a longer one: CACACACACACA > CCACACACACA is CA > C.
  EXPECT_EQ(split_into_events(7, std::vector<std::string>{"CACACACACACA", "C", "CCACACACACA"}),
            (std::vector<AlleleEvent>{{7, "CACACACACACA", "C"}, {7, "CA", "C"}}));
  // Shared bases at the front move the event: ATG > ACG trims to T > C one base on, ATG > AT
  // to TG > T (one base kept before the deletion).
  EXPECT_EQ(split_into_events(5, std::vector<std::string>{"ATG", "ACG", "AT"}),
            (std::vector<AlleleEvent>{{6, "T", "C"}, {6, "TG", "T"}}));
  // An insertion after shared bases keeps one base before it: AT > ATTT is T > TTT.
  EXPECT_EQ(split_into_events(5, std::vector<std::string>{"AT", "ATTT", "GT"}),
            (std::vector<AlleleEvent>{{5, "A", "ATT"}, {5, "A", "G"}}));
  // <NON_REF> and '*' are not trimmed; REF beside them keeps its first base.
  EXPECT_EQ(split_into_events(5, std::vector<std::string>{"AC", "A", "<NON_REF>"}),
            (std::vector<AlleleEvent>{{5, "AC", "A"}, {5, "A", "<NON_REF>"}}));
  EXPECT_EQ(split_into_events(5, std::vector<std::string>{"AC", "*", "GC"}),
            (std::vector<AlleleEvent>{{5, "A", "*"}, {5, "A", "G"}}));
}

// GATK annotates a call before reverseTrimAlleles: a call genotyped as TTC > TC whose third
// allele was dropped is written TT > T (the shared C trimmed), but compared as TTC > TC: a record
// TT > T does not match it, a record TTC > TC does.
TEST(KnownVariantOverlap, CallsAreComparedAsGenotypedBeforeTheirTrim) {
  VariantCall call = call_of(".", {"TT", "T"});
  call.trimmed_suffix = "C";
  const std::vector<io::KnownVariant> trimmed = {known("rsTrimmed", {"TT", "T"})};
  annotate_known_variants(call, trimmed);
  EXPECT_EQ(call.id, "");
  const std::vector<io::KnownVariant> as_genotyped = {known("rsGenotyped", {"TTC", "TC"})};
  annotate_known_variants(call, as_genotyped);
  EXPECT_EQ(call.id, "rsGenotyped");
}

}  // namespace
}  // namespace gpp::stages::call
