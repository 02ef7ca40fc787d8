// Tests of the k-best haplotype finder: port of GATK GraphBasedKBestHaplotypeFinderUnitTest (the
// path-finding cases; its CIGAR cases test CigarUtils.calculateCigar, which is
// stages/call/haplotype_cigar.hpp's), plus ordering cases of our own.
#include "stages/call/kbest_haplotype_finder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/read_threading_graph.hpp"
#include "stages/call/seq_graph.hpp"
#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

using testing::add_edges;

// testScore
TEST(KBestHaplotypeFinder, Score) {
  SeqGraph g(3);
  const VertexId v1 = g.add_vertex("A"), v2 = g.add_vertex("C"), v3 = g.add_vertex("G"),
                 v4 = g.add_vertex("T"), v5 = g.add_vertex("A");
  g.add_edge(v1, v2);
  g.add_edge(v2, v3);
  g.add_edge(v2, v4);
  g.add_edge(v2, v5);
  const GraphBasedKBestHaplotypeFinder finder(g);
  EXPECT_EQ(finder.sources().size(), 1u);
  EXPECT_EQ(finder.sinks().size(), 3u);
  const auto haplotypes = finder.find_best_haplotypes();
  const auto acg = std::find_if(haplotypes.begin(), haplotypes.end(),
                                [](const KBestHaplotype& h) { return h.bases == "ACG"; });
  ASSERT_NE(acg, haplotypes.end());
  EXPECT_EQ(acg->score, -0.47712125471966244);
  // Ours: equal scores come out by bases, greatest first.
  EXPECT_EQ(testing::path_bases(haplotypes), (std::vector<std::string>{"ACT", "ACG", "ACA"}));
}

// testCycleRemove (+ ours: the path left after dropping the back edge)
TEST(KBestHaplotypeFinder, CycleRemove) {
  SeqGraph g(3);
  const VertexId v1 = g.add_vertex("a"), v2 = g.add_vertex("b"), v3 = g.add_vertex("c"),
                 v4 = g.add_vertex("d");
  g.add_edge(v1, v2);
  g.add_edge(v2, v3);
  g.add_edge(v3, v2);
  g.add_edge(v3, v4);
  const GraphBasedKBestHaplotypeFinder finder(g);
  EXPECT_EQ(finder.sources().size(), 1u);
  EXPECT_EQ(finder.sinks().size(), 1u);
  const auto paths = finder.find_best_haplotypes();
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].bases, "abcd");
  EXPECT_EQ(paths[0].score, 0.0);  // scored on the copy without c -> b
  EXPECT_FALSE(finder.graph().has_cycles());
}

// testNoSourceOrSink
TEST(KBestHaplotypeFinder, NoSourceOrSink) {
  SeqGraph g(3);
  const VertexId v1 = g.add_vertex("a"), v2 = g.add_vertex("b");
  g.add_edge(v1, v2);
  const GraphBasedKBestHaplotypeFinder finder(g);
  EXPECT_EQ(finder.sources().size(), 1u);
  EXPECT_EQ(finder.sinks().size(), 1u);
  const GraphBasedKBestHaplotypeFinder finder2(g, {}, {v2});
  EXPECT_EQ(finder2.sources().size(), 0u);
  EXPECT_TRUE(finder2.find_best_haplotypes().empty());
  const GraphBasedKBestHaplotypeFinder finder3(g, {v1}, {});
  EXPECT_EQ(finder3.sinks().size(), 0u);
  EXPECT_TRUE(finder3.find_best_haplotypes().empty());
}

// testDeadNode (+ ours: only a -> d reaches the chosen sink)
TEST(KBestHaplotypeFinder, DeadNode) {
  SeqGraph g(3);
  const VertexId v1 = g.add_vertex("a"), v2 = g.add_vertex("b"), v3 = g.add_vertex("c"),
                 v4 = g.add_vertex("d"), v5 = g.add_vertex("e");
  g.add_edge(v1, v2);
  g.add_edge(v2, v3);
  g.add_edge(v3, v2);
  g.add_edge(v2, v5);
  g.add_edge(v1, v4);
  const GraphBasedKBestHaplotypeFinder finder1(g);
  EXPECT_EQ(finder1.sources().size(), 1u);
  EXPECT_EQ(finder1.sinks().size(), 2u);
  const GraphBasedKBestHaplotypeFinder finder2(g, {v1}, {v4});
  const auto paths = finder2.find_best_haplotypes();
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].bases, "ad");
  EXPECT_FALSE(finder2.graph().contains_vertex(v5));
}

// testBasicPathFinding: nStart x nBranches x nEnd paths, scores not increasing.
TEST(KBestHaplotypeFinder, BasicPathFinding) {
  int weight = 1;  // GATK's static counter runs on across the cases
  const std::vector<std::string> seqs = {"A", "C", "G", "T"};
  for (int n_start : {1, 2, 3}) {
    for (int n_branches : {2, 3}) {
      for (int n_end : {1, 2, 3}) {
        SeqGraph graph(11);
        const VertexId middle_top = graph.add_vertex("GTAC");
        const VertexId middle_bottom = graph.add_vertex("ACTG");
        const auto create = [&](int n, VertexId source, VertexId target) {
          std::vector<VertexId> vs;
          for (int i = 0; i < n; ++i) {
            const VertexId v = graph.add_vertex(seqs[i]);
            vs.push_back(v);
            if (source != kNoVertex) graph.add_edge(source, v, AssemblyEdge(false, weight++));
            if (target != kNoVertex) graph.add_edge(v, target, AssemblyEdge(false, weight++));
          }
          return vs;
        };
        const auto starts = create(n_start, kNoVertex, middle_top);
        create(n_branches, middle_top, middle_bottom);
        const auto ends = create(n_end, middle_bottom, kNoVertex);
        const auto haplotypes =
            GraphBasedKBestHaplotypeFinder(graph, starts, ends).find_best_haplotypes();
        ASSERT_EQ(static_cast<int>(haplotypes.size()), n_start * n_branches * n_end);
        for (std::size_t n = 1; n < haplotypes.size(); ++n) {
          EXPECT_GE(haplotypes[n - 1].score, haplotypes[n].score);
        }
      }
    }
  }
}

// testGetBases: every ordered choice of 1..3 of {ACT, GAC, CAT} as a chain.
TEST(KBestHaplotypeFinder, GetBases) {
  std::vector<std::string> frags = {"ACT", "GAC", "CAT"};
  std::sort(frags.begin(), frags.end());
  int cases = 0;
  for (int n = 1; n <= 3; ++n) {
    std::vector<std::string> perm = frags;
    do {
      const std::vector<std::string> comb(perm.begin(), perm.begin() + n);
      SeqGraph graph(3);
      VertexId prev = kNoVertex;
      std::string expected;
      for (const auto& s : comb) {
        const VertexId v = graph.add_vertex(s);
        if (prev != kNoVertex) graph.add_edge(prev, v);
        prev = v;
        expected += s;
      }
      const auto paths = GraphBasedKBestHaplotypeFinder(graph).find_best_haplotypes();
      ASSERT_EQ(paths.size(), 1u);
      EXPECT_EQ(paths[0].bases, expected);
      ++cases;
      std::reverse(perm.begin() + n, perm.end());  // next n-permutation
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_EQ(cases, 3 + 6 + 6);
}

// testDegeneratePathPruningOptimizationCase
TEST(KBestHaplotypeFinder, DegeneratePathPruningOptimizationCase) {
  SeqGraph graph(11);
  const VertexId top = graph.add_vertex("T"), bot = graph.add_vertex("G"),
                 mid = graph.add_vertex("C"), mid_and_top_ext = graph.add_vertex("GGG"),
                 bot_ext = graph.add_vertex("AAA"), bot_ext_top = graph.add_vertex("A"),
                 bot_ext_bot = graph.add_vertex("T"), ref_start = graph.add_vertex("CCCCCGGG"),
                 ref_end = graph.add_vertex("TTTT");
  add_edges(graph, AssemblyEdge(false, 34), {ref_start, bot, bot_ext});
  add_edges(graph, AssemblyEdge(true, 33), {ref_start, top, mid_and_top_ext});
  add_edges(graph, AssemblyEdge(false, 32), {ref_start, mid, mid_and_top_ext});
  add_edges(graph, AssemblyEdge(false, 1), {bot, mid_and_top_ext});
  add_edges(graph, AssemblyEdge(false, 15), {bot_ext, bot_ext_top, ref_end});
  add_edges(graph, AssemblyEdge(false, 18), {bot_ext, bot_ext_bot, ref_end});
  add_edges(graph, AssemblyEdge(true, 65), {mid_and_top_ext, ref_end});
  const auto best =
      GraphBasedKBestHaplotypeFinder(graph, {ref_start}, {ref_end}).find_best_haplotypes(2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].vertices, (std::vector<VertexId>{ref_start, top, mid_and_top_ext, ref_end}));
  EXPECT_EQ(best[1].vertices, (std::vector<VertexId>{ref_start, mid, mid_and_top_ext, ref_end}));
}

// testIntraNodeInsertionDeletion and testHardSWPath: reference path first (equal scores,
// greater bases first).
TEST(KBestHaplotypeFinder, EqualScoresOrderedByBases) {
  SeqGraph graph(11);
  const VertexId top = graph.add_vertex("T"), bot = graph.add_vertex("T"),
                 alt = graph.add_vertex("AAACCCCC"), ref = graph.add_vertex("CCCCCGGG");
  add_edges(graph, AssemblyEdge(true, 1), {top, ref, bot});
  add_edges(graph, AssemblyEdge(false, 1), {top, alt, bot});
  const auto paths = GraphBasedKBestHaplotypeFinder(graph, {top}, {bot}).find_best_haplotypes();
  EXPECT_EQ(testing::path_bases(paths), (std::vector<std::string>{"TCCCCCGGGT", "TAAACCCCCT"}));

  SeqGraph hard(11);
  const VertexId ntop = hard.add_vertex("NNN"), nbot = hard.add_vertex("NNN");
  const VertexId halt = hard.add_vertex("ACAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGAGA");
  const VertexId href = hard.add_vertex("TGTGTGTGTGTGTGACAGAGAGAGAGAGAGAGAGAGAGAGAGAGA");
  add_edges(hard, AssemblyEdge(true, 1), {ntop, href, nbot});
  add_edges(hard, AssemblyEdge(false, 1), {ntop, halt, nbot});
  const auto hard_paths =
      GraphBasedKBestHaplotypeFinder(hard, {ntop}, {nbot}).find_best_haplotypes();
  ASSERT_EQ(hard_paths.size(), 2u);
  EXPECT_EQ(hard_paths[0].vertices, (std::vector<VertexId>{ntop, href, nbot}));
  EXPECT_EQ(hard_paths[1].vertices, (std::vector<VertexId>{ntop, halt, nbot}));
}

// testKmerGraphSimpleReferenceRecovery / ...WithSNP
TEST(KBestHaplotypeFinder, KmerGraphReferenceRecovery) {
  for (bool with_snp : {false, true}) {
    ReadThreadingGraph graph(5);
    std::vector<VertexId> ref;
    for (const char* k : {"AAATT", "AATTT", "ATTTG", "TTTGG", "TTGGG", "TGGGC", "GGGCC", "GGCCC",
                          "GCCCT", "CCCTT"}) {
      ref.push_back(graph.add_vertex(k));
    }
    std::vector<VertexId> alt;
    if (with_snp) {
      for (const char* k : {"TTTGC", "TTGCG", "TGCGC", "GCGCC", "CGCCC"}) {
        alt.push_back(graph.add_vertex(k));
      }
    }
    for (std::size_t i = 1; i < ref.size(); ++i) {
      graph.add_edge(ref[i - 1], ref[i], AssemblyEdge::multi_sample(true, 1, with_snp ? 4 : 1));
    }
    if (with_snp) {
      std::vector<VertexId> chain{ref[2]};
      chain.insert(chain.end(), alt.begin(), alt.end());
      chain.push_back(ref[8]);
      for (std::size_t i = 1; i < chain.size(); ++i) {
        graph.add_edge(chain[i - 1], chain[i], AssemblyEdge::multi_sample(false, 1, 3));
      }
    }
    const auto paths =
        GraphBasedKBestHaplotypeFinder(graph, {ref.front()}, {ref.back()}).find_best_haplotypes();
    if (!with_snp) {
      EXPECT_EQ(testing::path_bases(paths), std::vector<std::string>{"AAATTTGGGCCCTT"});
    } else {
      EXPECT_EQ(testing::path_bases(paths),
                (std::vector<std::string>{"AAATTTGGGCCCTT", "AAATTTGCGCCCTT"}));
    }
  }
}

// PathUnitTest.testBadPath: a source outside the graph is rejected.
TEST(KBestHaplotypeFinder, SourceOutsideGraphThrows) {
  SeqGraph g(3);
  const VertexId v = g.add_vertex("a");
  EXPECT_THROW(GraphBasedKBestHaplotypeFinder(g, {v + 1}, {v}), Error);
  EXPECT_THROW(GraphBasedKBestHaplotypeFinder(g, {v}, {v + 7}), Error);
}

// Ours: the cap on haplotypes and Java's Double.compare.
TEST(KBestHaplotypeFinder, MaxHaplotypesAndDoubleCompare) {
  SeqGraph g(3);
  const VertexId s = g.add_vertex("S"), e = g.add_vertex("E");
  for (int i = 0; i < 5; ++i) {
    const VertexId m = g.add_vertex(std::string(1, "ACGTN"[i]));
    g.add_edge(s, m, AssemblyEdge(false, i + 1));
    g.add_edge(m, e, AssemblyEdge(false, 1));
  }
  const auto paths = GraphBasedKBestHaplotypeFinder(g, {s}, {e}).find_best_haplotypes(3);
  EXPECT_EQ(testing::path_bases(paths), (std::vector<std::string>{"SNE", "STE", "SGE"}));
  EXPECT_EQ(paths[0].score, std::log10(5.0) - std::log10(15.0));

  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(detail::java_double_compare(nan, nan), 0);
  EXPECT_EQ(detail::java_double_compare(nan, 1e300), 1);
  EXPECT_EQ(detail::java_double_compare(-std::numeric_limits<double>::infinity(), 0.0), -1);
  EXPECT_EQ(detail::java_double_compare(-0.0, 0.0), -1);
  EXPECT_EQ(detail::java_double_compare(2.0, 2.0), 0);
}

}  // namespace
}  // namespace gpp::stages::call
