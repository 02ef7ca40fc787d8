// Tests of read threading: port of GATK ReadThreadingGraphUnitTest (threading, non-unique
// k-mers, start-edge counting, cycles, Ns, bases for paths, longest suffix match). The
// dangling-branch cases are in dangling_chain_recovery_test.cpp.
#include "stages/call/read_threading_graph.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "stages/call/kbest_haplotype_finder.hpp"
#include "stages/call/seq_graph.hpp"
#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

using testing::ungapped;

std::vector<std::uint8_t> flat_quals(std::size_t n, std::uint8_t q = 30) {
  return std::vector<std::uint8_t>(n, q);
}

std::set<std::string> non_uniques(ReadThreadingGraph& graph) {
  graph.build_graph_if_necessary();
  return {graph.non_unique_kmers().begin(), graph.non_unique_kmers().end()};
}

// testSimpleHaplotypeRethreading
TEST(ReadThreadingGraph, SimpleHaplotypeRethreading) {
  ReadThreadingGraph g(11);
  const std::string ref = "CATGCACTTTAAAACTTGCCTTTTTAACAAGACTTCCAGATG";
  const std::string alt = "CATGCACTTTAAAACTTGCCGTTTTAACAAGACTTCCAGATG";
  g.add_sequence(ref, true);
  g.add_sequence(alt, false);
  g.build_graph_if_necessary();
  EXPECT_NE(g.vertex_count(), ref.size() - 11 + 1);
  EXPECT_EQ(g.vertex_count(), ref.size() - 11 + 1 + 11);
  EXPECT_NE(g.find_kmer(alt.substr(20, 11)), kNoVertex);
}

// testNonUniqueMiddle
TEST(ReadThreadingGraph, NonUniqueMiddle) {
  ReadThreadingGraph g(3);
  g.add_sequence(ungapped("GACACACAGTCA"), true);
  g.add_sequence(ungapped("GACAC---GTCA"), false);
  g.add_sequence(ungapped("CAC---GTCA"), false);
  EXPECT_EQ(non_uniques(g), (std::set<std::string>{"ACA", "CAC"}));
}

// testReadsCreateNonUnique
TEST(ReadThreadingGraph, ReadsCreateNonUnique) {
  ReadThreadingGraph g(3);
  g.add_sequence(ungapped("GCAC--GTCA"), true);
  g.add_sequence(ungapped("GCACACGTCA"), false);
  g.add_sequence(ungapped("CACGTCA"), false);
  EXPECT_EQ(non_uniques(g), std::set<std::string>{"CAC"});
}

// testCountingOfStartEdges
TEST(ReadThreadingGraph, CountingOfStartEdges) {
  ReadThreadingGraph g(3);
  g.add_sequence("NNNGTCAAA", true);
  g.add_sequence("GTCAAA", false);
  g.build_graph_if_necessary();
  for (EdgeId e : g.edge_set()) {
    const bool header =
        g.sequence(g.edge_source(e)).back() == 'N' || g.sequence(g.edge_target(e)).back() == 'N';
    EXPECT_EQ(g.edge(e).multiplicity(), header ? 1 : 2)
        << g.sequence(g.edge_source(e)) << " -> " << g.sequence(g.edge_target(e));
  }
}

// testCountingOfStartEdgesWithMultiplePrefixes
TEST(ReadThreadingGraph, CountingOfStartEdgesWithMultiplePrefixes) {
  ReadThreadingGraph g(3);
  g.set_increase_counts_through_branches(true);
  g.add_sequence("NNNGTCAXX", true);
  g.add_sequence("NNNCTCAXX", false);
  g.add_sequence("TCAXX", false);
  g.build_graph_if_necessary();
  const std::set<std::string> one_count = {"NNN", "NNG", "NNC", "NGT", "NCT"};
  const std::set<std::string> three_count = {"CAX", "AXX"};
  for (EdgeId e : g.edge_set()) {
    const std::string& target = g.sequence(g.edge_target(e));
    const int expected = one_count.count(target) ? 1 : (three_count.count(target) ? 3 : 2);
    EXPECT_EQ(g.edge(e).multiplicity(), expected) << target;
  }
}

const std::string kCycleRef =
    "CAATTGTCATAGAGAGTGACAAATGTTTCAAAAGCTTATTGACCCCAAGGTGCAGCGGTGCACATTAGAGGGCACCTAAGACAGCCTAC"
    "AGGGGTCAGAAAAGATGTCTCAGAGGGACTCACACCTGAGCTGAGTTGTGAAGGAAGAGCAGGATAGAATGAGCCAAAGATAAAGACTC"
    "CAGGCAAAAGCAAATGAGCCTGAGGGAAACTGGAGCCAAGGCAAGAGCAGCAGAAAAGAGCAAAGCCAGCCGGTGGTCAAGGTGGGCTA"
    "CTGTGTATGCAGAATGAGGAAGCTGGCCAAGTAGACATGTTTCAGATGATGAACATCCTGTATACTAGATGCATTGGAACTTTTTTCAT"
    "CCCCTCAACTCCACCAAGCCTCTGTCCACTCTTGGTACCTCTCTCCAAGTAGACATATTTCAGATCATGAACATCCTGTGTACTAGATG"
    "CATTGGAAATTTTTTCATCCCCTCAACTCCACCCAGCCTCTGTCCACACTTGGTACCTCTCTCTATTCATATCTCTGGCCTCAAGGAGG"
    "GTATTTGGCATTAGTAAATAAATTCCAGAGATACTAAAGTCAGATTTTCTAAGACTGGGTGAATGACTCCATGGAAGAAGTGAAAAAGA"
    "GGAAGTTGTAATAGGGAGACCTCTTCGG";

/// b37 20:12655200-12655850 with the SNP at 20:12655528 that makes a cycle for small k.
std::string cycle_alt() {
  std::string alt = kCycleRef;
  const std::string from = "ATCCTGTATACTAGATG";
  const std::size_t at = alt.find(from);
  alt[at + 7] = 'G';  // ...CCTGTATAC... -> ...CCTGTGTAC...
  return alt;
}

// testCyclesInGraph and testEmptyReadBeingAddedToGraph
TEST(ReadThreadingGraph, CyclesInGraph) {
  const std::string alt = cycle_alt();
  ASSERT_EQ(alt.size(), kCycleRef.size());
  for (int k : {25, 75}) {
    ReadThreadingGraph g(k);
    g.add_sequence(kCycleRef, 0, static_cast<int>(kCycleRef.size()), 1, true,
                   ReadThreadingGraph::kAnonymousSample);
    const auto quals = flat_quals(100);
    for (std::size_t index = 0; index + 100 < alt.size(); index += 20) {
      g.add_read(std::string_view(alt).substr(index, 100), quals);
    }
    g.add_read("", {});  // a read clipped away entirely does not break the graph
    g.build_graph_if_necessary();
    EXPECT_EQ(g.has_cycles(), k == 25);
  }
}

// testNsInReadsAreNotUsedForGraph
TEST(ReadThreadingGraph, NsInReadsAreNotUsedForGraph) {
  const std::string ref(100, 'A');
  ReadThreadingGraph g(25);
  g.add_sequence(ref, 0, 100, 1, true, ReadThreadingGraph::kAnonymousSample);
  const auto quals = flat_quals(100);
  for (int i = 0; i < 100; ++i) {
    std::string bases = ref;
    bases[i] = 'N';
    g.add_read(bases, quals);
  }
  g.build_graph_if_necessary();
  const SeqGraph graph = to_sequence_graph(g);
  const auto paths = GraphBasedKBestHaplotypeFinder(graph, {graph.reference_source_vertex()},
                                                    {graph.reference_sink_vertex()})
                         .find_best_haplotypes();
  EXPECT_EQ(paths.size(), 1u);
}

// Ours: a quality-9 base splits a read in two runs threaded separately. The first run raises
// the edges between the k-mers it covers (starts 0..15); the second starts at k-mer 26 and raises
// the edges into it backwards while its bases match (17->18 .. 25->26) and onwards. Only the
// edges 15->16 and 16->17 keep the reference's count; the SNP under the bad base never enters.
TEST(ReadThreadingGraph, LowQualityBasesSplitReads) {
  const std::string ref = "ACGTTGCATGTCGCATGATGCATGAGAGAGCTGACGATGCTAGCTAGGATCGATCA";
  ReadThreadingGraph g(10, 10);
  g.add_sequence(ref, true);
  std::string read = ref;
  read[25] = read[25] == 'T' ? 'C' : 'T';
  auto quals = flat_quals(read.size());
  quals[25] = 9;
  g.add_read(read, quals);
  g.build_graph_if_necessary();
  ASSERT_EQ(g.vertex_count(), ref.size() - 10 + 1);
  for (std::size_t i = 0; i + 10 < ref.size(); ++i) {
    const EdgeId e = g.get_edge(g.find_kmer(ref.substr(i, 10)), g.find_kmer(ref.substr(i + 1, 10)));
    ASSERT_NE(e, kNoEdge);
    EXPECT_EQ(g.edge(e).multiplicity(), i == 15 || i == 16 ? 1 : 2) << i;
  }
  EXPECT_THROW(g.add_read("ACGT", flat_quals(3)), Error);
}

// testGetBasesForPath
TEST(ReadThreadingGraph, BasesForPath) {
  const std::string test = "AATGGGGCAATACTA";
  ReadThreadingGraph g(4);
  g.add_sequence(test, true);
  g.build_graph_if_necessary();
  std::vector<VertexId> vertices;
  for (VertexId v = g.reference_source_vertex(); v != kNoVertex; v = g.next_reference_vertex(v)) {
    vertices.push_back(v);
  }
  EXPECT_EQ(g.bases_for_path(vertices, false), test.substr(3));
  EXPECT_EQ(g.bases_for_path(vertices, true), "GTAAGGGCAATACTA");
}

/// ReadThreadingGraphUnitTest.findLongestUniqueSuffixMatch
std::optional<std::pair<int, int>> find_longest_unique_suffix_match(const std::string& seq,
                                                                    const std::string& kmer) {
  int longest_pos = -1;
  int length = 0;
  bool found_dup = false;
  for (int i = 0; i < static_cast<int>(seq.size()); ++i) {
    const int match = ReadThreadingGraph::longest_suffix_match(seq, kmer, i);
    if (match > length) {
      longest_pos = i;
      length = match;
      found_dup = false;
    } else if (match == length) {
      found_dup = true;
    }
  }
  if (found_dup) return std::nullopt;
  return std::pair{longest_pos, length};
}

// makefindLongestUniqueMatchData / testfindLongestUniqueMatch
TEST(ReadThreadingGraph, FindLongestUniqueMatch) {
  std::vector<std::tuple<std::string, std::string, int, int>> tests;
  const std::string acgt = "ACGT";
  for (int start = 0; start < 4; ++start) {
    for (int end = start + 1; end <= 4; ++end) {
      const std::string kmer = acgt.substr(start, end - start);
      tests.emplace_back(acgt, kmer, end - 1, end - start);
      tests.emplace_back(acgt, "N" + kmer, end - 1, end - start);
      tests.emplace_back(acgt, "NN" + kmer, end - 1, end - start);
      tests.emplace_back(acgt, kmer + "N", -1, 0);
      tests.emplace_back(acgt, kmer + "NN", -1, 0);
    }
  }
  for (const char* alt : {"A", "C", "G", "T"}) tests.emplace_back("AACCGGTT", alt, -1, 0);
  tests.emplace_back("AACCGGTT", "AA", 1, 2);
  tests.emplace_back("AACCGGTT", "CC", 3, 2);
  tests.emplace_back("AACCGGTT", "GG", 5, 2);
  tests.emplace_back("AACCGGTT", "TT", 7, 2);
  const std::string r = "ACGTACGTACGT";
  for (const char* k : {"ACGT", "TACGT", "GTACGT", "CGTACGT", "ACGTACGT"}) {
    tests.emplace_back(r, k, -1, 0);
  }
  tests.emplace_back(r, "TACGTACGT", 11, 9);
  tests.emplace_back(r, "NTACGTACGT", 11, 9);
  tests.emplace_back(r, "GTACGTACGT", 11, 10);
  tests.emplace_back(r, "NGTACGTACGT", 11, 10);
  tests.emplace_back(r, "CGTACGTACGT", 11, 11);
  for (const auto& [seq, kmer, start, length] : tests) {
    const auto actual = find_longest_unique_suffix_match(seq, kmer);
    if (start == -1) {
      EXPECT_FALSE(actual.has_value()) << seq << " " << kmer;
    } else {
      ASSERT_TRUE(actual.has_value()) << seq << " " << kmer;
      EXPECT_EQ(actual->first, start);
      EXPECT_EQ(actual->second, length);
    }
  }
}

}  // namespace
}  // namespace gpp::stages::call
