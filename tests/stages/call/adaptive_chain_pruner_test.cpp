// Tests of adaptive chain pruning: port of GATK ChainPrunerUnitTest's adaptive cases
// (testAdaptivePruningWithAdjacentBadEdges, testAdaptivePruningWithBadBubble, and
// testAdaptivePruning with its chainPrunerData on the same simulated reads, drawn from
// java.util.Random with GATK's seeds), and of the likelihood ratio and digamma against values
// computed independently (mpmath, 50 digits, from the formulas' definitions).
#include "stages/call/adaptive_chain_pruner.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/activity_math.hpp"
#include "stages/call/dangling_end_aligner.hpp"
#include "stages/call/kbest_haplotype_finder.hpp"
#include "stages/call/read_threading_graph.hpp"
#include "stages/call/seq_graph.hpp"
#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

using testing::add_edges;

TEST(AdaptiveChainPruner, DigammaAsApacheCommonsMath) {
  // psi(x) from mpmath; Apache's series is accurate to 1e-8 relative.
  const std::pair<double, double> cases[] = {{1, -0.57721566490153286},  {2, 0.42278433509846714},
                                             {3.25, 1.016990911068179},  {10, 2.2517525890667211},
                                             {48.5, 3.8712190940253409}, {49, 3.8815815101625861},
                                             {100, 4.6001618527380874}};
  for (const auto& [x, expected] : cases) {
    EXPECT_NEAR(activity_math::digamma(x), expected, 1e-8 * std::abs(expected)) << x;
  }
  // Below 1e-5 Apache's first-order form: -gamma - 1/x.
  EXPECT_DOUBLE_EQ(activity_math::digamma(1e-6), -0.57721566490153286 - 1e6);
  EXPECT_TRUE(std::isnan(activity_math::digamma(std::nan(""))));
}

TEST(AdaptiveChainPruner, MutectLikelihoodRatioMatchesItsDefinition) {
  // -ln(n + 1) - ln C(n, alt) + alt * (z (ln(1 - eps) - ln eps) + H(z)) with eps the error
  // probability of the rounded Phred quality, z = (1 - eps) / (1 - eps + eps e^(psi(ref + 1) -
  // psi(alt + 1))) and H GATK's fastBernoulliEntropy; computed with mpmath.
  struct Case {
    int ref, alt;
    double error_probability, expected;
  };
  const Case cases[] = {{100, 3, 0.001, 3.7958612963096237},
                        {0, 5, 0.01, 21.188263613589505},
                        {1000, 50, 0.005, 50.929059437553992},
                        {10, 10, 0.3, -3.6980399306319212},
                        {2000, 1, 0.0, 6.2107266153032743},  // p = 0: Q93, the cap
                        {5, 0, 0.001, -1.791759469228055},
                        {40, 60, 1.0, -56.678239521524895},  // p = 1: Q1, the floor
                        {1500, 400, 0.002, 1501.3697114663695}};
  for (const Case& c : cases) {
    EXPECT_NEAR(mutect_log_likelihood_ratio(c.ref, c.alt, c.error_probability), c.expected,
                1e-7 * std::max(1.0, std::abs(c.expected)))
        << c.ref << " " << c.alt << " " << c.error_probability;
  }
  EXPECT_THROW(mutect_log_likelihood_ratio(3, 1, 1.5), Error);
  EXPECT_THROW(mutect_log_likelihood_ratio(3, 1, std::nan("")), Error);
  EXPECT_THROW(mutect_log_likelihood_ratio(-1, 1, 0.01), Error);
}

// testAdaptivePruningWithAdjacentBadEdges: good path A -> B -> C, bad edges A -> D -> C and
// D -> B; with and without a true variant path A -> E -> C.
TEST(AdaptiveChainPruner, AdjacentBadEdgesArePruned) {
  for (bool variant_present : {false, true}) {
    SeqGraph graph(20);
    const VertexId source = graph.add_vertex("source"), a = graph.add_vertex("A"),
                   b = graph.add_vertex("B"), c = graph.add_vertex("C"), d = graph.add_vertex("D"),
                   sink = graph.add_vertex("sink");
    add_edges(graph, AssemblyEdge(true, 1000), {source, a, b, c, sink});
    add_edges(graph, AssemblyEdge(false, 5), {a, d, c});
    add_edges(graph, AssemblyEdge(false, 5), {d, b});
    VertexId e = kNoVertex;
    if (variant_present) {
      e = graph.add_vertex("E");
      add_edges(graph, AssemblyEdge(false, 50), {a, e, c});
    }
    AdaptivePruning pruning;
    pruning.initial_error_rate = 0.01;
    pruning.log_odds_threshold = 2.0;
    pruning.max_unpruned_variants = 50;
    prune_chains_adaptively(graph, pruning);
    EXPECT_FALSE(graph.contains_vertex(d)) << variant_present;
    if (variant_present) {
      EXPECT_TRUE(graph.contains_vertex(e));
    }
    for (VertexId v : {source, a, b, c, sink}) EXPECT_TRUE(graph.contains_vertex(v));
  }
}

// testAdaptivePruningWithBadBubble: good path A -> B -> C, bad edges A -> D and E -> C with a
// bubble D -> {F, G} -> E; with and without a true variant path A -> H -> C.
TEST(AdaptiveChainPruner, BadBubbleIsPruned) {
  for (bool variant_present : {false, true}) {
    SeqGraph graph(20);
    const VertexId source = graph.add_vertex("source"), a = graph.add_vertex("A"),
                   b = graph.add_vertex("B"), c = graph.add_vertex("C"), d = graph.add_vertex("D"),
                   e = graph.add_vertex("E"), f = graph.add_vertex("F"), g = graph.add_vertex("G"),
                   sink = graph.add_vertex("sink");
    add_edges(graph, AssemblyEdge(true, 1000), {source, a, b, c, sink});
    add_edges(graph, AssemblyEdge(false, 5), {a, d});
    add_edges(graph, AssemblyEdge(false, 5), {d, f, e});
    add_edges(graph, AssemblyEdge(false, 5), {d, g, e});
    add_edges(graph, AssemblyEdge(false, 5), {e, c});
    VertexId h = kNoVertex;
    if (variant_present) {
      h = graph.add_vertex("H");
      add_edges(graph, AssemblyEdge(false, 50), {a, h, c});
    }
    AdaptivePruning pruning;  // GATK's default thresholds
    pruning.initial_error_rate = 0.01;
    pruning.max_unpruned_variants = 50;
    prune_chains_adaptively(graph, pruning);
    EXPECT_FALSE(graph.contains_vertex(d)) << variant_present;
    for (VertexId v : {e, f, g}) EXPECT_FALSE(graph.contains_vertex(v)) << variant_present;
    if (variant_present) {
      EXPECT_TRUE(graph.contains_vertex(h));
    }
  }
}

// A reference chain is never removed, however weak; a non-reference graph of one chain is the
// maximum-weight seed and stays.
TEST(AdaptiveChainPruner, KeepsReferenceAndTheHeaviestChain) {
  SeqGraph graph(20);
  const VertexId a = graph.add_vertex("A"), b = graph.add_vertex("C"), c = graph.add_vertex("G"),
                 d = graph.add_vertex("T");
  add_edges(graph, AssemblyEdge(true, 1), {a, b, c});
  add_edges(graph, AssemblyEdge(false, 1000), {a, d, c});
  prune_chains_adaptively(graph, AdaptivePruning{});
  EXPECT_EQ(graph.vertex_count(), 4u);

  SeqGraph lone(20);
  const VertexId x = lone.add_vertex("A"), y = lone.add_vertex("C");
  add_edges(lone, AssemblyEdge(false, 1), {x, y});
  prune_chains_adaptively(lone, AdaptivePruning{});
  EXPECT_EQ(lone.vertex_count(), 2u);

  AdaptivePruning bad;
  bad.initial_error_rate = 0;
  EXPECT_THROW(prune_chains_adaptively(lone, bad), Error);
}

// With --max-unpruned-variants 0 a second good chain out of a vertex is not grown from: of a
// reference path with two strong alt branches only the seeds survive.
TEST(AdaptiveChainPruner, MaxUnprunedVariantsBoundsTheGoodSubgraph) {
  auto build = [](SeqGraph& graph, std::vector<VertexId>& alts) {
    const VertexId src = graph.add_vertex("S"), mid1 = graph.add_vertex("M"),
                   mid2 = graph.add_vertex("N"), snk = graph.add_vertex("E");
    const VertexId ref1 = graph.add_vertex("A"), ref2 = graph.add_vertex("C");
    alts = {graph.add_vertex("G"), graph.add_vertex("T")};
    add_edges(graph, AssemblyEdge(true, 100), {src, ref1, mid1, ref2, mid2, snk});
    add_edges(graph, AssemblyEdge(false, 90), {src, alts[0], mid1});
    add_edges(graph, AssemblyEdge(false, 90), {mid1, alts[1], mid2});
  };
  SeqGraph kept(20);
  std::vector<VertexId> alts;
  build(kept, alts);
  prune_chains_adaptively(kept, AdaptivePruning{});
  for (VertexId v : alts) EXPECT_TRUE(kept.contains_vertex(v));

  SeqGraph bounded(20);
  build(bounded, alts);
  AdaptivePruning none;
  none.max_unpruned_variants = 0;
  prune_chains_adaptively(bounded, none);
  int surviving = 0;
  for (VertexId v : alts) surviving += bounded.contains_vertex(v);
  EXPECT_LT(surviving, 2);
}

/// java.util.Random, as GATK's test draws its reference and reads.
class JavaRandom {
 public:
  explicit JavaRandom(std::int64_t seed)
      : seed_((static_cast<std::uint64_t>(seed) ^ kMultiplier) & kMask) {}
  int next_int(int bound) {  // bound a power of two here
    return static_cast<int>((static_cast<std::int64_t>(bound) * next(31)) >> 31);
  }
  double next_double() {
    return static_cast<double>((static_cast<std::int64_t>(next(26)) << 27) + next(27)) * 0x1.0p-53;
  }

 private:
  static constexpr std::uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr std::uint64_t kMask = (1ULL << 48) - 1;
  int next(int bits) {
    seed_ = (seed_ * kMultiplier + 0xBULL) & kMask;
    return static_cast<int>(static_cast<std::int64_t>(seed_ >> (48 - bits)));
  }
  std::uint64_t seed_;
};

char simple_base(int index) { return "ACGT"[index]; }

// testAdaptivePruning over chainPrunerData: reads with substitution errors from the reference or
// (with the given fraction) an alt haplotype, `depth` reads starting at every position; after
// pruning and GATK's graph steps the alt and reference haplotypes are both among the ten best,
// the alt scores log10(alt fraction) within 0.5, and there are fewer than 15 paths.
TEST(AdaptiveChainPruner, RecoversSimulatedVariantsAsGatksTest) {
  JavaRandom data_rng(9);
  constexpr int kRefLength = 100;
  std::string ref(kRefLength, 'A');
  for (char& base : ref) base = simple_base(data_rng.next_int(4));
  const int left = 15, middle = kRefLength / 2, right = kRefLength - left;
  ref[left] = 'A';
  ref[middle] = 'G';
  ref[right] = 'T';
  std::string left_snv = ref, middle_snv = ref, right_snv = ref;
  left_snv[left] = 'G';
  middle_snv[middle] = 'T';
  right_snv[right] = 'A';

  struct Case {
    int kmer_size;
    const std::string* alt;
    double alt_fraction, error_rate;
    int depth_per_start;
  };
  const Case cases[] = {{10, &left_snv, 0.5, 0.001, 20},      {10, &left_snv, 1.0, 0.001, 20},
                        {10, &middle_snv, 0.1, 0.001, 5},     {25, &middle_snv, 0.1, 0.001, 5},
                        {25, &middle_snv, 0.01, 0.001, 1000}, {10, &right_snv, 0.1, 0.001, 2}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.kmer_size) + " " + std::to_string(c.alt_fraction) + " " +
                 std::to_string(c.depth_per_start));
    JavaRandom rng(c.kmer_size + std::llround(10000 * (c.error_rate + c.alt_fraction)));
    ReadThreadingGraph graph(c.kmer_size);
    graph.add_sequence(ref, true);
    const double adjusted_error_rate = c.error_rate * 4 / 3;
    for (int start = 0; start < kRefLength; ++start) {
      for (int n = 0; n < c.depth_per_start; ++n) {
        const std::string& source = rng.next_double() < c.alt_fraction ? *c.alt : ref;
        std::string read;
        for (int i = start; i < kRefLength; ++i) {
          read +=
              rng.next_double() > adjusted_error_rate ? source[i] : simple_base(rng.next_int(4));
        }
        graph.add_sequence(read, false);
      }
    }
    graph.build_graph_if_necessary();
    AdaptivePruning pruning;
    pruning.max_unpruned_variants = 50;
    prune_chains_adaptively(graph, pruning);
    graph.recover_dangling_tails(1, 3, false, align_dangling_end);
    graph.recover_dangling_heads(1, 3, false, align_dangling_end);
    graph.remove_paths_not_connected_to_ref();

    SeqGraph seq_graph = to_sequence_graph(graph);
    seq_graph.zip_linear_chains();
    seq_graph.remove_singleton_orphan_vertices();
    seq_graph.remove_vertices_not_connected_to_ref_regardless_of_edge_direction();
    seq_graph.simplify_graph();
    seq_graph.remove_paths_not_connected_to_ref();
    seq_graph.simplify_graph();
    const std::vector<KBestHaplotype> best =
        GraphBasedKBestHaplotypeFinder(seq_graph).find_best_haplotypes(10);

    const KBestHaplotype* alt_path = nullptr;
    const KBestHaplotype* ref_path = nullptr;
    for (const KBestHaplotype& path : best) {
      if (!alt_path && path.bases == *c.alt) alt_path = &path;
      if (!ref_path && path.bases == ref) ref_path = &path;
    }
    ASSERT_NE(alt_path, nullptr);
    EXPECT_NE(ref_path, nullptr);
    EXPECT_NEAR(alt_path->score, std::log10(c.alt_fraction), 0.5);
    EXPECT_LT(best.size(), 15u);
    // Beyond GATK's test: every error chain went, only the two haplotypes are left (the
    // low-weight pruner at its default factor leaves 7 to 296 vertices in five of the six cases).
    EXPECT_EQ(best.size(), 2u);
    EXPECT_EQ(seq_graph.vertex_count(), 4u);
  }
}

}  // namespace
}  // namespace gpp::stages::call
