// Tests of low-weight chain pruning: port of GATK ChainPrunerUnitTest.pruneLowWeightChainsData /
// testPruneLowWeightChains (its adaptive-pruner cases are in adaptive_chain_pruner_test.cpp),
// plus a read-threading case of our own.
#include "stages/call/chain_pruner.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/read_threading_graph.hpp"
#include "stages/call/seq_graph.hpp"
#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

using testing::add_edges;

std::set<VertexId> vertex_ids(const BaseGraph& g) {
  const auto v = g.vertex_set();
  return {v.begin(), v.end()};
}

struct PruneCase {
  SeqGraph graph{11};
  VertexId v1 = graph.add_vertex("A"), v2 = graph.add_vertex("C"), v3 = graph.add_vertex("G"),
           v4 = graph.add_vertex("T"), v5 = graph.add_vertex("AA"), v6 = graph.add_vertex("CC");
  /// Drop the vertices a case does not use (GATK adds only those it needs).
  void keep_only(std::initializer_list<VertexId> used) {
    for (VertexId v : graph.vertex_set()) {
      if (std::find(used.begin(), used.end(), v) == used.end()) graph.remove_vertex(v);
    }
  }
  void expect(int prune_factor, std::set<VertexId> remaining, std::size_t chains_before) {
    EXPECT_EQ(find_all_chains(graph).size(), chains_before);
    prune_low_weight_chains(graph, prune_factor);
    EXPECT_EQ(vertex_ids(graph), remaining);
  }
};

// "combinatorial": an isolated chain v1 -> v2 -> v3.
TEST(ChainPruner, IsolatedChainCombinatorial) {
  for (int edge_weight : {1, 2, 3}) {
    for (int prune_factor : {1, 2, 3, 4}) {
      for (bool is_ref : {true, false}) {
        PruneCase c;
        c.keep_only({c.v1, c.v2, c.v3});
        add_edges(c.graph, AssemblyEdge(is_ref, edge_weight), {c.v1, c.v2, c.v3});
        const bool pruned = edge_weight < prune_factor && !is_ref;
        c.expect(prune_factor, pruned ? std::set<VertexId>{} : std::set<VertexId>{c.v1, c.v2, c.v3},
                 1);
      }
    }
  }
}

TEST(ChainPruner, BadInternalBranch) {
  PruneCase c;
  c.keep_only({c.v1, c.v2, c.v3, c.v4, c.v5});
  add_edges(c.graph, AssemblyEdge(true, 1), {c.v4, c.v5});
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v4, c.v1, c.v2, c.v3, c.v5});
  c.expect(2, {c.v4, c.v5}, 2);
}

TEST(ChainPruner, HasBadCycle) {
  PruneCase c;
  c.keep_only({c.v1, c.v2, c.v3, c.v4});
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v4, c.v1, c.v2, c.v3, c.v1});
  c.expect(2, {}, 2);
}

TEST(ChainPruner, HasGoodCycle) {
  PruneCase c;
  c.keep_only({c.v1, c.v2, c.v3, c.v4});
  add_edges(c.graph, AssemblyEdge(false, 3), {c.v4, c.v1, c.v2, c.v3, c.v1});
  c.expect(2, {c.v1, c.v2, c.v3, c.v4}, 2);
}

TEST(ChainPruner, HasTwoBadBranches) {
  PruneCase c;
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v1, c.v2, c.v3, c.v4, c.v6});
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v1, c.v2, c.v3, c.v5, c.v6});
  c.expect(2, {}, 3);
}

TEST(ChainPruner, MiddleVertexAboveFactor) {
  PruneCase c;
  c.keep_only({c.v1, c.v2, c.v3, c.v4, c.v5});
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v1, c.v2});
  add_edges(c.graph, AssemblyEdge(false, 3), {c.v2, c.v3});
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v3, c.v4, c.v5});
  c.expect(2, {c.v1, c.v2, c.v3, c.v4, c.v5}, 1);
}

TEST(ChainPruner, BranchNodeGreaterThanPruneFactor) {
  PruneCase c;
  add_edges(c.graph, AssemblyEdge(false, 3), {c.v1, c.v2});
  add_edges(c.graph, AssemblyEdge(false, 3), {c.v2, c.v3});
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v3, c.v4, c.v6});
  add_edges(c.graph, AssemblyEdge(false, 3), {c.v2, c.v5, c.v6});
  c.expect(2, {c.v1, c.v2, c.v3, c.v4, c.v5, c.v6}, 3);
}

TEST(ChainPruner, IsolatedLowChainRemovedGoodOneKept) {
  PruneCase c;
  c.keep_only({c.v1, c.v2, c.v3, c.v4, c.v5});
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v1, c.v2, c.v3});
  add_edges(c.graph, AssemblyEdge(false, 5), {c.v4, c.v5});
  c.expect(2, {c.v4, c.v5}, 2);
}

TEST(ChainPruner, BadChainBranchingIntoGoodOne) {
  PruneCase c;
  add_edges(c.graph, AssemblyEdge(false, 1), {c.v1, c.v2, c.v3, c.v5});
  add_edges(c.graph, AssemblyEdge(false, 5), {c.v4, c.v5, c.v6});
  c.expect(2, {c.v4, c.v5, c.v6}, 3);
}

TEST(ChainPruner, NegativePruneFactorThrows) {
  SeqGraph g(3);
  EXPECT_THROW(prune_low_weight_chains(g, -1), Error);
}

// Ours: one read carrying a SNP leaves a bubble of weight-1 edges that pruning at 2 removes,
// while two reads keep it. Reference edges are never pruned.
TEST(ChainPruner, SingleReadBubbleIsPrunedFromReadThreadingGraph) {
  const std::string ref = "CATGCACTTTAAAACTTGCCTTTTTAACAAGACTTCCAGATG";
  const std::string alt = "CATGCACTTTAAAACTTGCCGTTTTAACAAGACTTCCAGATG";
  for (int n_reads : {1, 2}) {
    ReadThreadingGraph g(11);
    g.add_sequence(ref, true);
    const std::vector<std::uint8_t> quals(alt.size(), 30);
    for (int i = 0; i < n_reads; ++i) g.add_read(alt, quals);
    g.build_graph_if_necessary();
    ASSERT_EQ(g.vertex_count(), ref.size() - 11 + 1 + 11);
    prune_low_weight_chains(g, 2);
    EXPECT_EQ(g.vertex_count(), n_reads == 1 ? ref.size() - 11 + 1 : ref.size() - 11 + 1 + 11);
    EXPECT_EQ(g.find_kmer(alt.substr(20, 11)) != kNoVertex, n_reads == 2);
  }
}

}  // namespace
}  // namespace gpp::stages::call
