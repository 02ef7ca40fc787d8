// Tests of dangling head / tail recovery with GATK's Smith-Waterman (STANDARD_NGS,
// LEADING_INDEL): port of GATK ReadThreadingGraphUnitTest's DanglingTails, DanglingHeads,
// testForkedDanglingEnds, testForkedDanglingEndsWithSuffixCode and testWholeTailIsInsertion.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/dangling_end_aligner.hpp"
#include "stages/call/kbest_haplotype_finder.hpp"
#include "stages/call/read_threading_graph.hpp"
#include "stages/call/seq_graph.hpp"
#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

const std::string kCommonPrefix = "AAAAAAAAAACCCCCCCCCCGGGGGGGGGGTTTTTTTTTT";

void add_read(ReadThreadingGraph& g, const std::string& bases) {
  g.add_read(bases, std::vector<std::uint8_t>(bases.size(), 30));
}

// makeDanglingTailsData / testDanglingTails
TEST(DanglingChainRecovery, DanglingTails) {
  // ref end, alt end, CIGAR, CIGAR good, merge point distance from sink, matching bases
  const std::vector<std::tuple<std::string, std::string, std::string, bool, int, int>> cases = {
      {"AAAAAAAAAA", "CAAA", "5M", true, 3, -1},
      {"AAAAAAAAAA", "CAAAAAAAAAA", "1M1I10M", true, 10, -1},
      {"CCAAAAAAAAAA", "AAAAAAAAAA", "1M2D10M", true, 10, -1},
      {"AAAAAAAA", "CAAAAAAA", "9M", true, 7, -1},
      {"AAAAAAAA", "CAAGATAA", "9M", true, 2, -1},
      {"AAAAAAAA", "CAAGATAA", "9M", true, 2, 0},
      {"AAAAAAAA", "CAAGATAA", "9M", true, 2, 1},
      {"AAAAAAAA", "CAAGATAA", "9M", true, 2, 2},
      {"AAAAAAAA", "CAAGATAA", "9M", true, -1, 3},
      {"AAAAAAAA", "CAAGATAA", "9M", true, -1, 4},
      {"AAAAA", "C", "1M4D1M", false, -1, -1},
      {"AAAAA", "CA", "1M3D2M", false, 1, -1},
      {"AAAAAAA", "CAAAAAC", "8M", true, -1, -1},
      {"AAAAAA", "CGAAAACGAA", "1M2I4M2I2M", false, 0, -1},
      {"AAAAA", "XXXXX", "1M5I", false, -1, -1}};
  for (const auto& [ref_end, alt_end, cigar, cigar_is_good, merge_distance, matching] : cases) {
    SCOPED_TRACE(ref_end + " / " + alt_end + " / " + std::to_string(matching));
    ReadThreadingGraph g(15);
    g.add_sequence(kCommonPrefix + ref_end, true);
    add_read(g, kCommonPrefix + alt_end);
    g.set_min_matching_bases_to_dangling_end_recovery(matching);
    g.build_graph_if_necessary();

    VertexId alt_sink = kNoVertex;
    for (VertexId v : g.vertex_set()) {
      if (g.is_sink(v) && !g.is_reference_node(v)) {
        ASSERT_EQ(alt_sink, kNoVertex) << "more than one non-reference sink";
        alt_sink = v;
      }
    }
    ASSERT_NE(alt_sink, kNoVertex);
    const auto result = g.generate_cigar_against_downwards_reference_path(alt_sink, 0, 4, false,
                                                                          align_dangling_end);
    if (!result) {
      EXPECT_FALSE(cigar_is_good);
      continue;
    }
    EXPECT_EQ(cigar_to_string(result->cigar), cigar);
    EXPECT_EQ(ReadThreadingGraph::cigar_is_okay_to_merge(result->cigar, false, true),
              cigar_is_good);
    if (!cigar_is_good) continue;
    const int merged = g.merge_dangling_tail(*result);
    EXPECT_TRUE(merged == 1 || merge_distance == -1);
    if (merge_distance >= 0) {
      VertexId v = alt_sink;
      for (int i = 0; i < merge_distance; ++i) {
        ASSERT_EQ(g.in_degree(v), 1u) << "encountered a vertex with multiple edges";
        v = g.edge_source(g.incoming_edge_of(v));
      }
      EXPECT_GT(g.out_degree(v), 1u);
    }
  }
}

// testForkedDanglingEndsWithSuffixCode
TEST(DanglingChainRecovery, ForkedDanglingEndsWithSuffixCode) {
  const std::string ref = kCommonPrefix + "GCTAGCTAATCGTTAAGCTTTAAC";
  const std::string alt1 = kCommonPrefix + "GCTAGCTAA" + "GGCG";
  const std::string alt2 = kCommonPrefix + "GCTAGCTAA" + "GCCGATGGCT";
  ReadThreadingGraph g(15);
  g.add_sequence(ref, true);
  g.set_min_matching_bases_to_dangling_end_recovery(1);
  add_read(g, alt2);
  add_read(g, alt1);
  g.build_graph_if_necessary();
  ASSERT_EQ(g.sinks().size(), 3u);
  int checked = 0;
  for (VertexId sink : g.sinks()) {
    if (g.is_reference_node(sink) || g.sequence(sink) != "GCTAAGCCGATGGCT") continue;
    const auto result =
        g.generate_cigar_against_downwards_reference_path(sink, 0, 2, false, align_dangling_end);
    ASSERT_TRUE(result.has_value());
    EXPECT_TRUE(ReadThreadingGraph::cigar_is_okay_to_merge(result->cigar, false, true));
    EXPECT_EQ(std::min(ReadThreadingGraph::longest_suffix_match(
                           result->reference_path_string, result->dangling_path_string,
                           static_cast<int>(cigar_reference_length(result->cigar)) - 1),
                       static_cast<int>(cigar_length(result->cigar.front()))),
              0);
    EXPECT_EQ(g.merge_dangling_tail(*result), 0);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

// testForkedDanglingEnds
TEST(DanglingChainRecovery, ForkedDanglingEnds) {
  const std::string ref = kCommonPrefix + "GCTAGCTAATCG";
  const std::string alt1 = kCommonPrefix + "ACTAGCTAATCG";
  const std::string alt2 = kCommonPrefix + "ACTAGATAATCG";
  ReadThreadingGraph g(15);
  g.add_sequence(ref, true);
  add_read(g, alt1);
  add_read(g, alt2);
  g.build_graph_if_necessary();
  ASSERT_EQ(g.sinks().size(), 3u);
  for (VertexId sink : g.sinks()) {
    if (g.is_reference_node(sink)) continue;
    const auto result =
        g.generate_cigar_against_downwards_reference_path(sink, 0, 4, true, align_dangling_end);
    ASSERT_TRUE(result.has_value());
    EXPECT_TRUE(ReadThreadingGraph::cigar_is_okay_to_merge(result->cigar, false, true));
    EXPECT_EQ(g.merge_dangling_tail(*result), 1);
  }
  SeqGraph seq_graph = to_sequence_graph(g);
  seq_graph.simplify_graph();
  const auto paths = testing::sorted_distinct(
      testing::path_bases(GraphBasedKBestHaplotypeFinder(seq_graph).find_best_haplotypes()));
  EXPECT_EQ(paths, testing::sorted_distinct({ref, alt1, alt2}));
}

// testWholeTailIsInsertion
TEST(DanglingChainRecovery, WholeTailIsInsertion) {
  ReadThreadingGraph g(10);
  DanglingChainMergeHelper helper;
  helper.dangling_path_string = "AXXXXX";
  helper.reference_path_string = "AAAAAA";
  helper.cigar = {cigar_element(CigarOp::kInsertion, 5), cigar_element(CigarOp::kMatch, 1)};
  EXPECT_EQ(g.merge_dangling_tail(helper), 0);
}

// makeDanglingHeadsData / testDanglingHeads
TEST(DanglingChainRecovery, DanglingHeads) {
  // ref, alt, CIGAR, should be merged, matching bases (-1: legacy merge)
  const std::vector<std::tuple<std::string, std::string, std::string, bool, int>> cases = {
      {"XXXXXXXAACCGGTTACGT", "AAYCGGTTACGT", "8M", true, -1},
      {"XXXXXXXAACCGGTTACGT", "AAYCGGTTACGT", "8M", true, 0},
      {"XXXXXXXAACCGGTTACGT", "AAYCGGTTACGT", "8M", true, 1},
      {"XXXXXXXAACCGGTTACGT", "AAYCGGTTACGT", "8M", true, 2},
      {"XXXXXXXAACCGGTTACGT", "AAYCGGTTACGT", "8M", false, 3},
      {"XXXAACCGGTTACGT", "XAAACCGGTTACGT", "7M", false, -1},
      {"XXXAACCGGTTACGT", "XAAACCGGTTACGT", "7M", false, 0},
      {"XXXXXXXAACCGGTTACGT", "XAACGGTTACGT", "4M1D4M", false, -1},
      {"XXXXXXXAACCGGTTACGT", "XAACGGTTACGT", "4M1D4M", true, 1},
      {"XXXXXXXAACCGGTTACGT", "XAACYCGGTTACGT", "5M1I4M", false, -1},
      {"XXXXXXXAACCGGTTACGT", "XAACYCGGTTACGT", "5M1I4M", true, 1},
      {"XXXXXXXAACCGGTTACGT", "AYYCGGTTACGT", "8M", false, -1},
      {"XXXXXXXAACCGGTTACGT", "AYYCGGTTACGT", "8M", true, 1},
      {"XXXXXXXAACCGGTTACGTAA", "AYCYGGTTACGTAA", "9M", false, -1},
      {"XXXXXXXAACCGGTTACGTAA", "AYCYGGTTACGTAA", "9M", true, 1},
      {"XXXXXXXAACCGGTTACGT", "AYCGGTTACGT", "7M", true, -1},
      {"XXXXXXXAACCGGTTACGT", "YCCGGTTACGT", "6M", true, -1},
      {"XXXXXXXAACBBBBBBCGGTTACGT", "AACCGGTTACGT", "5M6D3M", true, 1},
      {"XXXXXXXAACCBBBBBBGGTTACGT", "ATCCGGTTACGT", "5M6D4M", true, 1},
      {"XXXXXXXAACCGGTTACGT", "XAACYYYYYYYCGGTTACGT", "5M7I4M", true, 1},
      {"XXXXXXXAACCGGTTACGT", "XTACYYYYYYYCGGTTACGT", "5M7I4M", true, 1}};
  for (const auto& [ref, alt, cigar, should_be_merged, matching] : cases) {
    SCOPED_TRACE(ref + " / " + alt + " / " + std::to_string(matching));
    ReadThreadingGraph g(5);
    g.add_sequence(ref, true);
    add_read(g, alt);
    g.set_min_matching_bases_to_dangling_end_recovery(matching);
    g.build_graph_if_necessary();

    VertexId alt_source = kNoVertex;
    for (VertexId v : g.vertex_set()) {
      if (g.is_source(v) && !g.is_reference_node(v)) {
        ASSERT_EQ(alt_source, kNoVertex) << "more than one non-reference source";
        alt_source = v;
      }
    }
    ASSERT_NE(alt_source, kNoVertex);
    auto result = g.generate_cigar_against_upwards_reference_path(alt_source, 0, 1, false,
                                                                  align_dangling_end);
    if (!result) {
      EXPECT_FALSE(should_be_merged);
      continue;
    }
    EXPECT_EQ(cigar_to_string(result->cigar), cigar);
    const int merged =
        matching >= 0 ? g.merge_dangling_head(*result) : g.merge_dangling_head_legacy(*result);
    EXPECT_TRUE(merged > 0 || !should_be_merged);

    g.clean_non_ref_paths();
    const SeqGraph seq_graph = to_sequence_graph(g);
    const auto paths = testing::path_bases(
        GraphBasedKBestHaplotypeFinder(seq_graph, {seq_graph.reference_source_vertex()},
                                       {seq_graph.reference_sink_vertex()})
            .find_best_haplotypes());
    EXPECT_EQ(paths.size(), should_be_merged ? 2u : 1u);
    EXPECT_NE(std::find(paths.begin(), paths.end(), ref), paths.end());
    if (should_be_merged) {
      EXPECT_TRUE(std::any_of(paths.begin(), paths.end(), [&alt = alt](const std::string& p) {
        return p.find(alt) != std::string::npos;
      }));
    }
  }
}

// Ours: the whole recovery pass on the DanglingTails "1 snp" case joins the tail back, so the
// sequence graph spells both haplotypes.
TEST(DanglingChainRecovery, RecoverDanglingTailsPass) {
  const std::string ref = kCommonPrefix + "AAAAAAAAGGTCA";
  const std::string alt = kCommonPrefix + "CAAAAAAA";
  ReadThreadingGraph g(15);
  g.add_sequence(ref, true);
  add_read(g, alt);
  add_read(g, alt);
  g.build_graph_if_necessary();
  EXPECT_EQ(g.recover_dangling_heads(2, 4, false, align_dangling_end), 0);
  EXPECT_EQ(g.recover_dangling_tails(2, 4, false, align_dangling_end), 1);
  g.remove_paths_not_connected_to_ref();
  SeqGraph seq_graph = to_sequence_graph(g);
  seq_graph.simplify_graph();
  const auto paths = testing::sorted_distinct(testing::path_bases(
      GraphBasedKBestHaplotypeFinder(seq_graph, {seq_graph.reference_source_vertex()},
                                     {seq_graph.reference_sink_vertex()})
          .find_best_haplotypes()));
  EXPECT_EQ(paths, testing::sorted_distinct({ref, kCommonPrefix + "CAAAAAAAGGTCA"}));
  EXPECT_THROW(ReadThreadingGraph(5).recover_dangling_tails(2, 4, false, align_dangling_end),
               Error);
}

}  // namespace
}  // namespace gpp::stages::call
