// Tests of sequence-graph simplification: port of GATK SeqGraphUnitTest (merge nodes with no
// variation, isDiamond, merging, bubble with same bases, linear zip, infinite cycle).
#include "stages/call/seq_graph.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

using testing::add_edges;

/// GATK TestGraph: a k-mer graph whose vertices are unique by sequence.
struct TestGraph {
  BaseGraph graph;
  std::map<std::string, VertexId> vertices;
  explicit TestGraph(int k) : graph(k, VertexKind::kKmer) {}
  VertexId vertex(const std::string& kmer) {
    auto [it, inserted] = vertices.emplace(kmer, kNoVertex);
    if (inserted) it->second = graph.add_vertex(kmer);
    return it->second;
  }
  void add_kmers_to_graph(const std::string& k1, const std::string& k2, bool is_ref, int mult) {
    const VertexId v1 = vertex(k1);
    const VertexId v2 = vertex(k2);
    graph.add_or_update_edge(v1, v2, AssemblyEdge(is_ref, mult));
  }
};

// SeqGraphUnitTest.testMergeNodesWithNoVariation
TEST(SeqGraph, MergeNodesWithNoVariation) {
  const std::string long_seq =
      "AATACCATTGGAGTTTTTTTCCAGGTTAAGATGGTGCATTGAATCCACCCATCTACTTTTGCTCCTCCCAAAACTCACTAAAACTAT"
      "TATAAAGGGATTTTGTTTAAAGACACAAACTCATGAGGACAGAGAGAACAGAGTAGACAATAGTGGGGGAAAAATAAGTTGGAAGAT"
      "AGAAAACAGATGGGTGAGTGGTAATCGACTCAGCAGCCCCAAGAAAGCTGAAACCCAGGGAAAGTTAAGAGTAGCCCTATTTTCAT"
      "GGCAAAATCCAAGGGGGGGTGGGGAAAGAAAGAAAAACAGAAAAAAAAATGGGAATTGGCAGTCCTAGATATCTCTGGTACTGGGC"
      "AAGCCAAAGAATCAGGATAACTGGGTGAAAGGTGATTGGGAAGCAGTTAAAATCTTAGTTCCCCTCTTCCACTCTCCGAGCAGCAG"
      "GTTTCTCTCTCTCATCAGGCAGAGGGCTGGAGAT";
  const std::vector<std::pair<std::string, int>> cases = {
      {"GGTTAACC", 3}, {"GGTTAACC", 4}, {"GGTTAACC", 5},
      {"GGTTAACC", 6}, {"GGTTAACC", 7}, {"GGTTAACCATGCAGACGGGAGGCTGAGCGAGAGTTTT", 6},
      {long_seq, 66},  {long_seq, 76}};
  for (const auto& [sequence, k] : cases) {
    TestGraph de_bruijn(11);
    const int kmers = static_cast<int>(sequence.size()) - k + 1;
    for (int i = 0; i < kmers - 1; ++i) {
      de_bruijn.add_kmers_to_graph(sequence.substr(i, k), sequence.substr(i + 1, k), false, 1);
    }
    SeqGraph seq_graph = to_sequence_graph(de_bruijn.graph);
    seq_graph.simplify_graph();
    ASSERT_EQ(seq_graph.vertex_count(), 1u) << sequence << " k=" << k;
    EXPECT_EQ(seq_graph.sequence(seq_graph.vertex_set().front()), sequence);
  }
}

// SeqGraphUnitTest.makeIsDiamondData / testIsDiamond
struct DiamondGraph {
  SeqGraph graph{11};
  VertexId pre1 = graph.add_vertex("ACT"), pre2 = graph.add_vertex("AGT"),
           top = graph.add_vertex("A"), middle1 = graph.add_vertex("CT"),
           middle2 = graph.add_vertex("CG"), middle3 = graph.add_vertex("CA"),
           bottom = graph.add_vertex("AA"), tail1 = graph.add_vertex("GC"),
           tail2 = graph.add_vertex("GC");
  DiamondGraph() {
    add_edges(graph, {pre1, top, middle1, bottom, tail1});
    add_edges(graph, {pre2, top, middle2, bottom, tail1});
    add_edges(graph, {top, middle3, bottom});
    add_edges(graph, {bottom, tail2});
  }
};

TEST(SeqGraph, IsDiamond) {
  DiamondGraph d;
  for (VertexId no :
       {d.pre1, d.pre2, d.middle1, d.middle2, d.middle3, d.bottom, d.tail1, d.tail2}) {
    EXPECT_FALSE(try_merge_diamond(d.graph, no, true));
  }
  EXPECT_TRUE(try_merge_diamond(d.graph, d.top, true));

  SeqGraph dangling_middle = d.graph;
  dangling_middle.add_edge(d.top, dangling_middle.add_vertex("A"));
  EXPECT_FALSE(try_merge_diamond(dangling_middle, d.top, true));

  SeqGraph stranger_to_bottom = d.graph;
  stranger_to_bottom.add_edge(stranger_to_bottom.add_vertex("A"), d.bottom);
  EXPECT_FALSE(try_merge_diamond(stranger_to_bottom, d.top, true));

  SeqGraph stranger_to_middle = d.graph;
  stranger_to_middle.add_edge(stranger_to_middle.add_vertex("A"), d.middle1);
  EXPECT_FALSE(try_merge_diamond(stranger_to_middle, d.top, true));

  SeqGraph middle_extra_out = d.graph;
  middle_extra_out.add_edge(d.middle1, middle_extra_out.add_vertex("A"));
  EXPECT_FALSE(try_merge_diamond(middle_extra_out, d.top, true));

  SeqGraph top_connects_to_bottom(11);
  const VertexId top2 = top_connects_to_bottom.add_vertex("A");
  const VertexId middle4 = top_connects_to_bottom.add_vertex("C");
  const VertexId bottom2 = top_connects_to_bottom.add_vertex("G");
  add_edges(top_connects_to_bottom, {top2, middle4, bottom2});
  add_edges(top_connects_to_bottom, {top2, bottom2});
  EXPECT_FALSE(try_merge_diamond(top_connects_to_bottom, top2, true));
}

/// Builds `expected` graphs from sequences and chains of indices.
SeqGraph make_graph(const std::vector<std::string>& sequences,
                    const std::vector<std::vector<int>>& chains) {
  SeqGraph g(11);
  std::vector<VertexId> ids;
  for (const auto& s : sequences) ids.push_back(g.add_vertex(s));
  for (const auto& chain : chains) {
    for (std::size_t i = 1; i < chain.size(); ++i) g.add_edge(ids[chain[i - 1]], ids[chain[i]]);
  }
  return g;
}

void expect_simplified_once(const SeqGraph& graph, const SeqGraph& expected) {
  SeqGraph merged = graph;
  merged.simplify_graph(1);
  EXPECT_TRUE(BaseGraph::graph_equals(merged, expected));
}

// SeqGraphUnitTest.makeMergingData / testMerging
TEST(SeqGraph, Merging) {
  const std::string a10 = "AAAAAAAAAA";
  SeqGraph graph(11);
  const VertexId pre1 = graph.add_vertex(a10 + "CT");
  expect_simplified_once(graph, graph);

  const VertexId top = graph.add_vertex("A");
  add_edges(graph, {pre1, top});
  expect_simplified_once(graph, make_graph({a10 + "CTA"}, {}));

  const VertexId middle1 = graph.add_vertex("GC");
  add_edges(graph, {top, middle1});
  expect_simplified_once(graph, make_graph({a10 + "CTAGC"}, {}));

  const VertexId middle2 = graph.add_vertex("TC");
  add_edges(graph, {top, middle2});
  expect_simplified_once(graph, make_graph({a10 + "CTA", "GC", "TC"}, {{0, 1}, {0, 2}}));

  // An actual diamond to merge.
  const VertexId bottom = graph.add_vertex("AA");
  add_edges(graph, {middle1, bottom});
  add_edges(graph, {middle2, bottom});
  expect_simplified_once(graph, make_graph({a10 + "CTA", "G", "T", "CAA"}, {{0, 1, 3}, {0, 2, 3}}));

  const VertexId middle3 = graph.add_vertex("AC");
  add_edges(graph, {top, middle3, bottom});
  expect_simplified_once(
      graph, make_graph({a10 + "CTA", "G", "T", "CAA", "A"}, {{0, 1, 3}, {0, 2, 3}, {0, 4, 3}}));

  const VertexId middle4 = graph.add_vertex("GCAC");
  add_edges(graph, {top, middle4, bottom});
  expect_simplified_once(graph, make_graph({a10 + "CTA", "G", "T", "CAA", "A", "GCA"},
                                           {{0, 1, 3}, {0, 2, 3}, {0, 4, 3}, {0, 5, 3}}));

  // All the nodes: lots of merging and motion of nodes.
  const SeqGraph all = make_graph({a10 + "CT", a10 + "GT", "A", "GC", "TC", "AA", "GC", "GC"},
                                  {{0, 2, 3, 5, 6}, {1, 2, 4, 5, 7}});
  expect_simplified_once(all, make_graph({a10 + "C", a10 + "G", "TA", "G", "T", "CAA", "GC", "GC"},
                                         {{0, 2, 3, 5, 6}, {1, 2, 4, 5, 7}}));

  // A middle node that is all common sequence disappears.
  expect_simplified_once(make_graph({"A", "AC", "C", "G"}, {{0, 1, 3}, {0, 2, 3}}),
                         make_graph({"A", "A", "CG"}, {{0, 1, 2}, {0, 2}}));
}

// SeqGraphUnitTest.testBubbleSameBasesWithRef
TEST(SeqGraph, BubbleSameBasesWithRef) {
  SeqGraph graph(11);
  const VertexId top = graph.add_vertex("A"), mid1 = graph.add_vertex("ACT"),
                 mid2 = graph.add_vertex("ACT"), bot = graph.add_vertex("C");
  add_edges(graph, {top, mid2, bot});
  graph.add_edge(top, mid1, AssemblyEdge(true, 1));
  graph.add_edge(mid1, bot, AssemblyEdge(true, 1));
  SeqGraph actual = graph;
  actual.simplify_graph();
  EXPECT_TRUE(BaseGraph::graph_equals(actual, make_graph({"AACTC"}, {})));
}

void expect_zipped(const SeqGraph& graph, const SeqGraph& expected) {
  SeqGraph merged = graph;
  merged.zip_linear_chains();
  EXPECT_TRUE(BaseGraph::graph_equals(merged, expected));
}

// SeqGraphUnitTest.makeLinearZipData / testLinearZip
TEST(SeqGraph, LinearZip) {
  expect_zipped(SeqGraph(11), SeqGraph(11));
  expect_zipped(make_graph({"A", "C"}, {}), make_graph({"A", "C"}, {}));
  expect_zipped(make_graph({"A", "C"}, {{0, 1}}), make_graph({"AC"}, {}));
  expect_zipped(make_graph({"A", "C", "G"}, {{0, 1, 2}}), make_graph({"ACG"}, {}));
  expect_zipped(make_graph({"A", "C", "G", "T"}, {{0, 1, 2}}), make_graph({"ACG", "T"}, {}));
  // a1 -> c1 -> g1 -> t1 -> a2 and g1 -> c2
  expect_zipped(make_graph({"A", "C", "G", "T", "A", "C"}, {{0, 1, 2, 3, 4}, {2, 5}}),
                make_graph({"ACG", "TA", "C"}, {{0, 1}, {0, 2}}));
  // chains with loops
  expect_zipped(make_graph({"A", "C", "G"}, {{0, 1, 2}, {0, 0}}),
                make_graph({"A", "CG"}, {{0, 1}, {0, 0}}));
  const SeqGraph c_loop = make_graph({"A", "C", "G"}, {{0, 1, 2}, {1, 1}});
  expect_zipped(c_loop, c_loop);
  expect_zipped(make_graph({"A", "C", "G"}, {{0, 1, 2}, {2, 2}}),
                make_graph({"AC", "G"}, {{0, 1}, {1, 1}}));

  // n-element long chains
  const std::vector<std::string> bases = {"A", "C", "G", "T", "TT", "GG", "CC", "AA"};
  for (int len : {1, 2, 10, 100, 1000}) {
    SeqGraph graph(11);
    std::string expected_bases;
    VertexId last = kNoVertex;
    for (int i = 0; i < len; ++i) {
      expected_bases += bases[i % bases.size()];
      const VertexId a = graph.add_vertex(bases[i % bases.size()]);
      if (last != kNoVertex) graph.add_edge(last, a);
      last = a;
    }
    expect_zipped(graph, make_graph({expected_bases}, {}));
  }

  // edge connections are maintained
  int edge_weight = 1;
  for (int n_incoming : {0, 2, 5, 10}) {
    for (int n_outgoing : {0, 2, 5, 10}) {
      SeqGraph graph(11);
      SeqGraph expected(11);
      const VertexId a1 = graph.add_vertex("A"), c1 = graph.add_vertex("C"),
                     g1 = graph.add_vertex("G");
      add_edges(graph, {a1, c1, g1});
      const VertexId acg = expected.add_vertex("ACG");
      for (int i = 0; i < n_incoming; ++i) {
        const AssemblyEdge e(false, edge_weight++);
        graph.add_edge(graph.add_vertex(bases[i % bases.size()]), a1, e);
        expected.add_edge(expected.add_vertex(bases[i % bases.size()]), acg, e);
      }
      for (int i = 0; i < n_outgoing; ++i) {
        const AssemblyEdge e(false, edge_weight++);
        graph.add_edge(g1, graph.add_vertex(bases[i % bases.size()]), e);
        expected.add_edge(acg, expected.add_vertex(bases[i % bases.size()]), e);
      }
      expect_zipped(graph, expected);
    }
  }
}

// SeqGraphUnitTest.testInfiniteCycleFromEmpiricalRuns: terminates without throwing.
TEST(SeqGraph, InfiniteCycleFromEmpiricalRuns) {
  SeqGraph graph(11);
  const VertexId v1 = graph.add_vertex("CCCT");
  const VertexId v2 = graph.add_vertex(
      "CATCCTCCCTTCTAGACTTCTCCTCCTCCTCCACCATCCTCCCCTCTAGACTTCTCCTCCTCCTCCACCATCCTCCCCTCTAGACTTC"
      "TCCTCCTCCTCC");
  const VertexId v3 = graph.add_vertex("CTAGACTTCTCCTCCTCCTCC");
  const VertexId v4 = graph.add_vertex("ACCATC");
  const VertexId v5 = graph.add_vertex(
      "CCTCCACCATCCTCCCCTCTAGGCTTCTCCTCCTCCTCCACCATCCTCCCCTCTAGACTTCTCCTCCTCCTCCACCATCCTCCCCTC"
      "TAGACTTCTCCTCCTCCTCCACCATC");
  const VertexId v6 = graph.add_vertex("CTCCCCT");
  add_edges(graph, {v1, v3, v4, v6, v3});
  add_edges(graph, {v2, v4});
  add_edges(graph, {v5, v6});
  EXPECT_NO_THROW(graph.simplify_graph());
  EXPECT_TRUE(graph.has_cycles());
}

}  // namespace
}  // namespace gpp::stages::call
