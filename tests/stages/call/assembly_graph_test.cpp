// Tests of the assembly graph core: ports of GATK BaseGraphUnitTest, BaseEdgeUnitTest and
// MultiSampleEdgeUnitTest, plus insertion-order checks of our own.
#include "stages/call/assembly_graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "stages/call/seq_graph.hpp"
#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

using testing::add_edges;

// BaseGraphUnitTest.setUp: A -> C(v2) -> C(v4) -> C(v5), v2 <-> v3.
struct BaseGraphFixture : ::testing::Test {
  SeqGraph graph{11};
  VertexId v1 = graph.add_vertex("A"), v2 = graph.add_vertex("C"), v3 = graph.add_vertex("C"),
           v4 = graph.add_vertex("C"), v5 = graph.add_vertex("C");
  BaseGraphFixture() {
    graph.add_edge(v1, v2);
    graph.add_edge(v2, v4);
    graph.add_edge(v3, v2);
    graph.add_edge(v2, v3);
    graph.add_edge(v4, v5);
  }
};

// BaseGraphUnitTest.sequenceGraph
TEST_F(BaseGraphFixture, SequenceGraphCopiesVerticesAndEdges) {
  const SeqGraph copy = to_sequence_graph(graph);
  EXPECT_EQ(copy.vertex_count(), 5u);
  EXPECT_EQ(copy.edge_count(), 5u);
}

// BaseGraphUnitTest.sourcesAndSinksAndNeighbors (the parts our graph has)
TEST_F(BaseGraphFixture, SourcesSinksAndCycles) {
  EXPECT_EQ(graph.sources(), std::vector<VertexId>{v1});
  EXPECT_EQ(graph.sinks(), std::vector<VertexId>{v5});
  EXPECT_TRUE(graph.has_cycles());
  EXPECT_EQ(graph.reference_source_vertex(), kNoVertex);
}

// BaseGraphUnitTest.testIncomingAndOutgoingVertices
TEST_F(BaseGraphFixture, IncomingAndOutgoingVertices) {
  using V = std::vector<VertexId>;
  EXPECT_EQ(graph.outgoing_vertices(v1), V{v2});
  EXPECT_EQ(graph.incoming_vertices(v1), V{});
  EXPECT_EQ(graph.outgoing_vertices(v2), (V{v4, v3}));  // edge insertion order
  EXPECT_EQ(graph.incoming_vertices(v2), (V{v1, v3}));
  EXPECT_EQ(graph.outgoing_vertices(v3), V{v2});
  EXPECT_EQ(graph.incoming_vertices(v3), V{v2});
  EXPECT_EQ(graph.outgoing_vertices(v4), V{v5});
  EXPECT_EQ(graph.incoming_vertices(v4), V{v2});
  EXPECT_EQ(graph.outgoing_vertices(v5), V{});
  EXPECT_EQ(graph.incoming_vertices(v5), V{v4});
}

// BaseGraphUnitTest.testRemoveSingletonOrphanVertices
TEST_F(BaseGraphFixture, RemoveSingletonOrphanVertices) {
  const VertexId rm1 = graph.add_vertex("CAGT");
  const VertexId rm2 = graph.add_vertex("AGTC");
  EXPECT_EQ(graph.vertex_count(), 7u);
  const EdgeId rm12 = graph.add_edge(rm1, rm2, AssemblyEdge(false, 1));
  const SeqGraph original = graph;
  graph.remove_singleton_orphan_vertices();
  EXPECT_TRUE(BaseGraph::graph_equals(original, graph));
  graph.remove_edge(rm12);
  graph.remove_singleton_orphan_vertices();
  EXPECT_EQ(graph.vertex_set(), (std::vector<VertexId>{v1, v2, v3, v4, v5}));
}

// BaseGraphUnitTest.testRemoveSingletonOrphanVerticesOnSingleRefNode
TEST(BaseGraph, SingleVertexIsAReferenceSourceAndStays) {
  SeqGraph graph(11);
  const VertexId v = graph.add_vertex("A");
  graph.remove_singleton_orphan_vertices();
  EXPECT_TRUE(graph.contains_vertex(v));
  EXPECT_EQ(graph.vertex_count(), 1u);
}

// BaseGraphUnitTest.testIsRefSourceAndSink
TEST(BaseGraph, IsRefSourceAndSink) {
  SeqGraph g(11);
  EXPECT_EQ(g.kmer_size(), 11);
  const VertexId v1 = g.add_vertex("A");
  EXPECT_TRUE(g.is_ref_source(v1));
  EXPECT_TRUE(g.is_ref_sink(v1));
  EXPECT_TRUE(g.is_reference_node(v1));
  const VertexId v2 = g.add_vertex("C"), v3 = g.add_vertex("C"), v4 = g.add_vertex("C"),
                 v5 = g.add_vertex("C");
  g.add_edge(v1, v2);
  g.add_edge(v2, v3);
  const std::size_t edges_way_before = g.edge_count();
  g.add_or_update_edge(v3, v4, AssemblyEdge(true, 1));
  EXPECT_EQ(g.edge_count(), edges_way_before + 1);
  g.add_or_update_edge(v3, v4, AssemblyEdge(true, 1));
  EXPECT_EQ(g.edge_count(), edges_way_before + 1);
  EXPECT_EQ(g.edge(g.get_edge(v3, v4)).multiplicity(), 2);
  const EdgeId v4v5 = g.add_edge(v4, v5);
  EXPECT_EQ(g.incoming_edge_of(v5), v4v5);
  EXPECT_EQ(g.outgoing_edge_of(v4), v4v5);

  for (VertexId v : {v1, v2, v5}) {
    EXPECT_FALSE(g.is_ref_source(v));
    EXPECT_FALSE(g.is_ref_sink(v));
    EXPECT_FALSE(g.is_reference_node(v));
  }
  EXPECT_TRUE(g.is_ref_source(v3));
  EXPECT_FALSE(g.is_ref_sink(v3));
  EXPECT_TRUE(g.is_reference_node(v3));
  EXPECT_FALSE(g.is_ref_source(v4));
  EXPECT_TRUE(g.is_ref_sink(v4));
  EXPECT_TRUE(g.is_reference_node(v4));

  EXPECT_EQ(g.prev_reference_vertex(kNoVertex), kNoVertex);
  EXPECT_EQ(g.prev_reference_vertex(v1), kNoVertex);
  EXPECT_EQ(g.prev_reference_vertex(v4), v3);
  EXPECT_EQ(g.next_reference_vertex(kNoVertex), kNoVertex);
  EXPECT_EQ(g.next_reference_vertex(v1), kNoVertex);
  EXPECT_EQ(g.next_reference_vertex(v3), v4);
  EXPECT_EQ(g.next_reference_vertex(v4, false, v4v5), kNoVertex);
  EXPECT_EQ(g.next_reference_vertex(v4, true, v4v5), kNoVertex);
  EXPECT_EQ(g.next_reference_vertex(v4, true, kNoEdge), v5);  // ours: the only non-ref edge
}

// BaseGraphUnitTest.testRemovePathsNotConnectedToRef
TEST(BaseGraph, RemovePathsNotConnectedToRef) {
  SeqGraph graph(11);
  const VertexId src = graph.add_vertex("A"), end = graph.add_vertex("A");
  const VertexId g1 = graph.add_vertex("C"), g2 = graph.add_vertex("G"), g3 = graph.add_vertex("T");
  const VertexId g4 = graph.add_vertex("AA"), g5 = graph.add_vertex("AA"),
                 g6 = graph.add_vertex("AA"), g7 = graph.add_vertex("AA"),
                 g8 = graph.add_vertex("AA");
  add_edges(graph, AssemblyEdge(true, 1), {src, g1, g2, g4, end});
  add_edges(graph, {src, g1, g5, g6, g7, end});
  add_edges(graph, {src, g1, g5, g8, g7, end});
  add_edges(graph, {src, g1, g3, end});
  const SeqGraph good = graph;

  const VertexId b1 = graph.add_vertex("CC"), b2 = graph.add_vertex("GG"),
                 b3 = graph.add_vertex("TT"), b4 = graph.add_vertex("AAA"),
                 b5 = graph.add_vertex("CCC"), b6 = graph.add_vertex("GGG"),
                 b7 = graph.add_vertex("AAAA"), b8 = graph.add_vertex("GGGG"),
                 b9 = graph.add_vertex("CCCC");
  add_edges(graph, {src, b1});
  add_edges(graph, {b6, src});
  add_edges(graph, {g4, b2});
  add_edges(graph, {g3, b3, b4});
  add_edges(graph, {end, b5});
  add_edges(graph, {g3, b7, b8, b7});
  add_edges(graph, {g3, b9, b9});
  graph.remove_paths_not_connected_to_ref();
  EXPECT_TRUE(BaseGraph::graph_equals(graph, good));
}

// BaseGraphUnitTest.testRemoveVerticesNotConnectedToRefRegardlessOfEdgeDirection
TEST(BaseGraph, RemoveVerticesNotConnectedToRefRegardlessOfEdgeDirection) {
  SeqGraph graph(11);
  const VertexId src = graph.add_vertex("A"), end = graph.add_vertex("A");
  const VertexId g1 = graph.add_vertex("C"), g2 = graph.add_vertex("G"), g3 = graph.add_vertex("T");
  const VertexId g4 = graph.add_vertex("AA"), g5 = graph.add_vertex("AA"),
                 g6 = graph.add_vertex("AA"), g7 = graph.add_vertex("AA"),
                 g8 = graph.add_vertex("AA");
  const VertexId prev = graph.add_vertex("AA"), prev1 = graph.add_vertex("AA"),
                 prev2 = graph.add_vertex("AA"), after = graph.add_vertex("AA"),
                 after1 = graph.add_vertex("AA"), after2 = graph.add_vertex("AA");
  add_edges(graph, AssemblyEdge(true, 1), {src, g1, g2, g4, end});
  add_edges(graph, {src, g1, g5, g6, g7, end});
  add_edges(graph, {src, g1, g5, g8, g7, end});
  add_edges(graph, {src, g1, g3, end});
  add_edges(graph, {prev, src});
  add_edges(graph, {prev1, prev2, src});
  add_edges(graph, {end, after});
  add_edges(graph, {end, after1, after2});
  const SeqGraph good = graph;

  const VertexId b1 = graph.add_vertex("CC"), b2 = graph.add_vertex("GG"),
                 b3 = graph.add_vertex("TT"), b4 = graph.add_vertex("AAA"),
                 b5 = graph.add_vertex("CCC"), b6 = graph.add_vertex("GGG");
  (void)b1;
  add_edges(graph, {b2, b3});
  add_edges(graph, {b4, b5, b4});
  add_edges(graph, {b6, b6});
  graph.remove_vertices_not_connected_to_ref_regardless_of_edge_direction();
  EXPECT_TRUE(BaseGraph::graph_equals(graph, good));
}

// Ours: JGraphT DefaultDirectedGraph semantics GATK relies on.
TEST(BaseGraph, NoParallelEdgesAndInsertionOrderSurvivesRemoval) {
  SeqGraph g(3);
  const VertexId a = g.add_vertex("A"), b = g.add_vertex("B"), c = g.add_vertex("C"),
                 d = g.add_vertex("D");
  const EdgeId ab = g.add_edge(a, b, AssemblyEdge(false, 3));
  EXPECT_EQ(g.add_edge(a, b, AssemblyEdge(true, 5)), kNoEdge);
  EXPECT_EQ(g.edge(ab).multiplicity(), 3);
  g.add_edge(a, c);
  g.add_edge(a, d);
  g.remove_vertex(c);
  EXPECT_EQ(g.outgoing_vertices(a), (std::vector<VertexId>{b, d}));
  EXPECT_EQ(g.vertex_set(), (std::vector<VertexId>{a, b, d}));
  EXPECT_THROW(g.add_edge(a, c), Error);
  const EdgeId loop = g.add_edge(d, d);
  EXPECT_NE(loop, kNoEdge);
  EXPECT_TRUE(g.has_cycles());
}

// BaseEdgeUnitTest.testBasic / testAdd / testAddOr
TEST(AssemblyEdge, BaseEdgeBasics) {
  for (int mult : {1, 2, 3}) {
    for (bool is_ref : {true, false}) {
      AssemblyEdge e(is_ref, mult);
      EXPECT_EQ(e.is_ref(), is_ref);
      EXPECT_EQ(e.pruning_multiplicity(), mult);
      e.set_is_ref(!is_ref);
      EXPECT_EQ(e.is_ref(), !is_ref);
      e.set_multiplicity(mult + 1);
      e.inc_multiplicity(2);
      EXPECT_EQ(e.multiplicity(), mult + 3);
      EXPECT_EQ(e.pruning_multiplicity(), mult + 3);
      const AssemblyEdge copy = e.copy();
      EXPECT_EQ(copy.is_ref(), e.is_ref());
      EXPECT_EQ(copy.multiplicity(), e.multiplicity());

      AssemblyEdge e1(is_ref, mult);
      e1.add(AssemblyEdge(is_ref, mult));
      EXPECT_EQ(e1.multiplicity(), 2 * mult);
      EXPECT_EQ(e1.is_ref(), is_ref);
      e1.add(AssemblyEdge(!is_ref, mult));
      EXPECT_TRUE(e1.is_ref());
    }
  }
  EXPECT_THROW(AssemblyEdge(false, -1), Error);
  EXPECT_THROW(AssemblyEdge(false, 1).inc_multiplicity(-1), Error);
}

// MultiSampleEdgeUnitTest.testMultiplicity: every ordered choice of 1..5 sample counts from
// {0..5}, with 1, 2 and 3 pruning samples.
TEST(AssemblyEdge, MultiSamplePruningMultiplicity) {
  const std::vector<int> counts_per_sample{0, 1, 2, 3, 4, 5};
  int cases = 0;
  for (int num_samples_pruning : {1, 2, 3}) {
    for (int n_samples = 1; n_samples <= 5; ++n_samples) {
      std::vector<int> perm;
      std::vector<char> used(counts_per_sample.size(), 0);
      std::function<void()> recurse = [&] {
        if (static_cast<int>(perm.size()) == n_samples) {
          ++cases;
          AssemblyEdge edge = AssemblyEdge::multi_sample(false, 0, num_samples_pruning);
          ASSERT_EQ(edge.multiplicity(), 0);
          ASSERT_EQ(edge.pruning_multiplicity(), 0);
          const AssemblyEdge copy = edge.copy();
          ASSERT_EQ(copy.current_single_sample_multiplicity(),
                    edge.current_single_sample_multiplicity());
          ASSERT_EQ(copy.pruning_multiplicity(), edge.pruning_multiplicity());
          int total = 0;
          for (int count : perm) {
            for (int i = 0; i < count; ++i) {
              edge.inc_multiplicity(1);
              ++total;
              ASSERT_EQ(edge.multiplicity(), total);
              ASSERT_EQ(edge.current_single_sample_multiplicity(), i + 1);
            }
            edge.flush_single_sample_multiplicity();
          }
          std::vector<int> sorted = perm;
          sorted.push_back(0);
          std::sort(sorted.begin(), sorted.end());
          const int expected =
              sorted[std::max(static_cast<int>(sorted.size()) - num_samples_pruning, 0)];
          ASSERT_EQ(edge.multiplicity(), total);
          ASSERT_EQ(edge.pruning_multiplicity(), expected);
          return;
        }
        for (std::size_t i = 0; i < counts_per_sample.size(); ++i) {
          if (used[i]) continue;
          used[i] = 1;
          perm.push_back(counts_per_sample[i]);
          recurse();
          perm.pop_back();
          used[i] = 0;
        }
      };
      recurse();
    }
  }
  EXPECT_EQ(cases, 3 * (6 + 30 + 120 + 360 + 720));
}

}  // namespace
}  // namespace gpp::stages::call
