// Tests of the assembler driver: port of GATK ReadThreadingAssemblerUnitTest. Its assembly cases
// read windows of hg19 chr1 (not in this repository); they run here, with the same read layouts,
// variant positions and expectations, on reproducible pseudo-random windows instead. Cases of our
// own check GATK's haplotype order, the k-mer size iteration and collect_haplotypes.
#include "stages/call/read_threading_assembler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/stages/call/assembly_test_support.hpp"

namespace gpp::stages::call {
namespace {

using testing::TestReads;
using testing::ungapped;

/// ReadThreadingAssemblerUnitTest.TestAssembler: one k, prune factor 0, raw sequence graph.
class TestAssembler {
 public:
  explicit TestAssembler(int k) {
    args_.kmer_sizes = {k};
    args_.max_num_haplotypes_in_population = 100000;
    args_.dont_increase_kmer_sizes_for_cycles = true;
    args_.allow_non_unique_kmers_in_ref = true;
    args_.prune_factor = 0;
    args_.min_matching_bases_to_dangling_end_recovery = 3;
    args_.min_dangling_branch_length = 0;
    args_.recover_dangling_branches = false;
    args_.remove_paths_not_connected_to_ref = false;
    args_.just_return_raw_graph = true;
  }
  void add_sequence(const std::string& bases, bool is_ref) {
    if (is_ref) {
      ref_ = bases;
    } else {
      reads_.add(bases);
    }
  }
  SeqGraph assemble() {
    const auto reads = reads_.reads();
    auto results = assemble_graphs(LocalAssemblyInput{ref_, 0, reads}, args_, align_dangling_end);
    EXPECT_FALSE(results.empty());
    return std::move(*results.front().graph);
  }

 private:
  ReadThreadingAssemblerArgs args_;
  std::string ref_;
  TestReads reads_;
};

void assert_linear_graph(TestAssembler& assembler, const std::string& seq) {
  SeqGraph graph = assembler.assemble();
  graph.simplify_graph();
  ASSERT_EQ(graph.vertex_count(), 1u);
  EXPECT_EQ(graph.sequence(graph.vertex_set().front()), seq);
}

void assert_single_bubble(TestAssembler& assembler, const std::string& one,
                          const std::string& two) {
  SeqGraph graph = assembler.assemble();
  graph.simplify_graph();
  const auto paths =
      testing::path_bases(GraphBasedKBestHaplotypeFinder(graph).find_best_haplotypes());
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(std::set<std::string>(paths.begin(), paths.end()), (std::set<std::string>{one, two}));
}

TEST(ReadThreadingAssembler, RefCreation) {
  TestAssembler a(3);
  a.add_sequence("ACGTAACCGGTT", true);
  assert_linear_graph(a, "ACGTAACCGGTT");
}

TEST(ReadThreadingAssembler, RefNonUniqueCreation) {
  TestAssembler a(3);
  a.add_sequence("GAAAAT", true);
  assert_linear_graph(a, "GAAAAT");
}

TEST(ReadThreadingAssembler, RefAltCreation) {
  TestAssembler a(3);
  a.add_sequence("ACAACTGA", true);
  a.add_sequence("ACAGCTGA", false);
  assert_single_bubble(a, "ACAACTGA", "ACAGCTGA");
}

TEST(ReadThreadingAssembler, PartialReadsCreation) {
  TestAssembler a(3);
  a.add_sequence("ACAACTGA", true);
  a.add_sequence("ACAGCT", false);
  a.add_sequence("GCTGA", false);
  assert_single_bubble(a, "ACAACTGA", "ACAGCTGA");
}

TEST(ReadThreadingAssembler, MismatchInFirstKmer) {
  TestAssembler a(3);
  a.add_sequence("ACAACTGA", true);
  a.add_sequence("AGCTGA", false);
  SeqGraph graph = a.assemble();
  graph.simplify_graph();
  graph.remove_singleton_orphan_vertices();
  EXPECT_EQ(graph.sources().size(), 1u);
  EXPECT_EQ(graph.sinks().size(), 1u);
  EXPECT_NE(graph.reference_source_vertex(), kNoVertex);
  EXPECT_NE(graph.reference_sink_vertex(), kNoVertex);
  EXPECT_EQ(GraphBasedKBestHaplotypeFinder(graph).find_best_haplotypes().size(), 1u);
}

TEST(ReadThreadingAssembler, StartInMiddle) {
  TestAssembler a(3);
  a.add_sequence("CAAAATG", true);
  a.add_sequence("AAATG", false);
  assert_linear_graph(a, "CAAAATG");
}

TEST(ReadThreadingAssembler, StartInMiddleWithBubble) {
  TestAssembler a(3);
  a.add_sequence("CAAAATGGGG", true);
  a.add_sequence("AAATCGGG", false);
  assert_single_bubble(a, "CAAAATGGGG", "CAAAATCGGG");
}

TEST(ReadThreadingAssembler, CreateWithBasesBeforeRefSource) {
  TestAssembler a(3);
  a.add_sequence("ACTG", true);
  a.add_sequence("CTGGGACT", false);
  assert_linear_graph(a, "ACTGGGACT");
}

TEST(ReadThreadingAssembler, SingleIndelAsDoubleIndel3Reads) {
  TestAssembler a(25);
  const std::string ref =
      "GTTTTTCCTAGGCAAATGGTTTCTATAAAATTATGTGTGTGTGTCTCTCTCTGTGTGTGTGTGTGTGTGTGTGTGTATACCTAATCTC"
      "ACACTCTTTTTTCTGG";
  const std::string read =
      "GTTTTTCCTAGGCAAATGGTTTCTATAAAATTATGTGTGTGTGTCTCT----------GTGTGTGTGTGTGTGTGTATACCTAATCTC"
      "ACACTCTTTTTTCTGG";
  a.add_sequence(ungapped(ref), true);
  a.add_sequence(ungapped(read), false);
  a.add_sequence(ungapped(read), false);
  const SeqGraph graph = a.assemble();
  const auto paths = GraphBasedKBestHaplotypeFinder(graph).find_best_haplotypes();
  ASSERT_EQ(paths.size(), 2u);
  const bool first_is_ref = paths[0].bases.size() == ref.size();
  EXPECT_EQ(paths[first_is_ref ? 0 : 1].bases, ungapped(ref));
  EXPECT_EQ(paths[first_is_ref ? 1 : 0].bases, ungapped(read));
}

/// ReadThreadingAssemblerUnitTest.assemble: the default test assembler (128 paths, k = 25,
/// prune factor 2, no k increase, non-unique reference k-mers allowed, dangling recovery with
/// minimum branch length 0 and 3 matching bases) on nReads copies of `bases`.
std::vector<AssembledHaplotype> assemble_copies(const std::string& ref, const std::string& bases,
                                                int n_reads) {
  ReadThreadingAssemblerArgs args;
  args.kmer_sizes = {25};
  args.dont_increase_kmer_sizes_for_cycles = true;
  args.allow_non_unique_kmers_in_ref = true;
  args.min_matching_bases_to_dangling_end_recovery = 3;
  args.min_dangling_branch_length = 0;
  TestReads reads;
  for (int i = 0; i < n_reads; ++i) reads.add(bases);
  const auto views = reads.reads();
  return run_local_assembly(LocalAssemblyInput{ref, 0, views}, args).haplotypes;
}

std::set<std::pair<std::string, bool>> as_set(const std::vector<AssembledHaplotype>& hs) {
  std::set<std::pair<std::string, bool>> s;
  for (const auto& h : hs) s.emplace(h.bases, h.is_reference);
  return s;
}

// testAssembleRef (AssembleIntervalsData, 101-base windows)
TEST(ReadThreadingAssembler, AssembleRef) {
  for (std::uint64_t window = 0; window < 20; ++window) {
    const std::string ref = testing::pseudo_random_bases(101, 1000 + window);
    const auto haplotypes = assemble_copies(ref, ref, 5);
    ASSERT_EQ(haplotypes.size(), 1u);
    EXPECT_EQ(haplotypes[0].bases, ref);
    EXPECT_TRUE(haplotypes[0].is_reference);
  }
}

// testAssembleRefAndSNP / testAssembleRefAndDeletion / testAssembleRefAndInsertion
// (AssembleIntervalsWithVariantData: sites 40..59 of 101-base windows). GATK's "insertion"
// case builds its VariantContext with the longer allele as reference, so it also deletes.
TEST(ReadThreadingAssembler, AssembleRefAndVariant) {
  int cases = 0;
  for (std::uint64_t window = 0; window < 3; ++window) {
    const std::string ref = testing::pseudo_random_bases(101, 2000 + window);
    for (int site = 40; site < 60; ++site) {
      std::vector<std::string> alts;
      std::string snp = ref;
      snp[site] = ref[site] == 'A' ? 'C' : 'A';
      alts.push_back(snp);
      for (int length = 1; length < 10; ++length) {
        const std::string deletion = ref.substr(0, site + 1) + ref.substr(site + length + 1);
        alts.push_back(deletion);  // testAssembleRefAndDeletion
        alts.push_back(deletion);  // testAssembleRefAndInsertion
      }
      for (const std::string& alt : alts) {
        const auto haplotypes = assemble_copies(ref, alt, 5);
        EXPECT_EQ(as_set(haplotypes),
                  (std::set<std::pair<std::string, bool>>{{ref, true}, {alt, false}}))
            << "window " << window << " site " << site;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 3 * 20 * 19);
}

// testSimpleAssembly (SimpleAssemblyTestData: a SNP at 26..175 of a 201-base window, 20 reads)
TEST(ReadThreadingAssembler, SimpleAssembly) {
  const std::string ref = testing::pseudo_random_bases(201, 3000);
  for (int snp = 26; snp <= 175; ++snp) {
    std::string alt = ref;
    alt[snp] = alt[snp] == 'A' ? 'C' : 'A';
    const auto haplotypes = assemble_copies(ref, alt, 20);
    ASSERT_EQ(haplotypes.size(), 2u) << snp;
    EXPECT_EQ(as_set(haplotypes),
              (std::set<std::pair<std::string, bool>>{{ref, true}, {alt, false}}));
  }
}

// Ours: HaplotypeCaller defaults on overlapping 60-base reads (every 5 bases) carrying a SNP
// and, 50 bases on, a 3-base insertion. Both bubbles are independent, so each graph has four
// paths: ALT, SNP only, insertion only, REF. GATK's order: best path first, and the reference
// appended after the first graph's paths (its k-best copy dropped); k = 25 adds nothing new.
// At the SNP branch, the alternate edge is seen by the reads starting at 45..90 (they hold
// bases 90..100) plus the one starting at 95 (counts raised backwards from its first k-mer):
// 11 against the reference's 1, so SNP-only minus REF scores log10(11).
TEST(ReadThreadingAssembler, DefaultsOrderHaplotypesAsGatk) {
  const std::string ref = testing::pseudo_random_bases(240, 4000);
  std::string alt = ref;
  alt[100] = alt[100] == 'G' ? 'T' : 'G';
  std::string snp_only = alt;
  alt.insert(150, "TTT");
  std::string insertion_only = ref;
  insertion_only.insert(150, "TTT");
  TestReads reads;
  for (std::size_t start = 0; start + 60 <= alt.size(); start += 5)
    reads.add(alt.substr(start, 60));
  const auto views = reads.reads();
  const LocalAssemblyResult result = run_local_assembly(LocalAssemblyInput{ref, 12345, views});
  EXPECT_EQ(result.ref_start, 12345);
  ASSERT_EQ(result.graphs.size(), 2u);
  EXPECT_EQ(result.graphs[0].kmer_size, 10);
  EXPECT_EQ(result.graphs[1].kmer_size, 25);
  for (const auto& graph : result.graphs) {
    EXPECT_EQ(testing::path_bases(graph.best_paths),
              (std::vector<std::string>{alt, snp_only, insertion_only, ref}));
    const auto& p = graph.best_paths;
    EXPECT_NEAR(p[1].score - p[3].score, std::log10(11.0), 1e-12);
    EXPECT_NEAR(p[0].score + p[3].score, p[1].score + p[2].score, 1e-12);
  }
  ASSERT_EQ(result.haplotypes.size(), 4u);
  const std::vector<std::string> expected = {alt, snp_only, insertion_only, ref};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(result.haplotypes[i].bases, expected[i]);
    EXPECT_EQ(result.haplotypes[i].is_reference, i == 3);
    EXPECT_EQ(result.haplotypes[i].kmer_size, i == 3 ? 0 : 10);
  }
  EXPECT_EQ(result.haplotypes[0].score, result.graphs[0].best_paths[0].score);
  EXPECT_TRUE(std::isnan(result.haplotypes[3].score));
}

// Ours: a reference with a repeated 30-mer has non-unique k-mers for k = 10 and 25, so GATK
// moves on to k = 35 (max + 10), which succeeds.
TEST(ReadThreadingAssembler, NonUniqueReferenceKmersIncreaseK) {
  const std::string unit = testing::pseudo_random_bases(30, 5000);
  const std::string ref = testing::pseudo_random_bases(80, 5001) + unit +
                          testing::pseudo_random_bases(40, 5002) + unit +
                          testing::pseudo_random_bases(80, 5003);
  std::string alt = ref;
  alt[60] = alt[60] == 'A' ? 'C' : 'A';
  TestReads reads;
  for (int i = 0; i < 6; ++i) reads.add(alt);
  const auto views = reads.reads();
  const LocalAssemblyResult result = run_local_assembly(LocalAssemblyInput{ref, 0, views});
  ASSERT_EQ(result.graphs.size(), 1u);
  EXPECT_EQ(result.graphs[0].kmer_size, 35);
  EXPECT_EQ(as_set(result.haplotypes),
            (std::set<std::pair<std::string, bool>>{{ref, true}, {alt, false}}));

  ReadThreadingAssemblerArgs fixed;
  fixed.dont_increase_kmer_sizes_for_cycles = true;
  const LocalAssemblyResult none = run_local_assembly(LocalAssemblyInput{ref, 0, views}, fixed);
  EXPECT_TRUE(none.graphs.empty());
  ASSERT_EQ(none.haplotypes.size(), 1u);
  EXPECT_TRUE(none.haplotypes[0].is_reference);
}

// Ours: findBestPaths' bookkeeping on hand-made path lists.
TEST(ReadThreadingAssembler, CollectHaplotypes) {
  const auto path = [](std::string bases, double score) {
    KBestHaplotype p;
    p.bases = std::move(bases);
    p.score = score;
    return p;
  };
  const std::vector<KmerGraphPaths> graphs = {
      {10, {path("ALT1", -0.1), path("REF", -0.5), path("ALT2", -0.9)}},
      {25, {path("ALT3", -0.2), path("ALT1", -0.3), path("REF", -0.4)}}};
  const auto all = collect_haplotypes(graphs, "REF");
  std::vector<std::string> order;
  for (const auto& h : all) order.push_back(h.bases + (h.is_reference ? "*" : ""));
  EXPECT_EQ(order, (std::vector<std::string>{"ALT1", "ALT2", "REF*", "ALT3"}));
  EXPECT_EQ(all[3].kmer_size, 25);
  EXPECT_EQ(all[0].score, -0.1);

  // A filter dropping ALT1 from graph 10 drops it from graph 25 too (GATK re-checks it).
  const auto filtered =
      collect_haplotypes(graphs, "REF", [](std::string_view b) { return b != "ALT1"; });
  order.clear();
  for (const auto& h : filtered) order.push_back(h.bases + (h.is_reference ? "*" : ""));
  EXPECT_EQ(order, (std::vector<std::string>{"ALT2", "REF*", "ALT3"}));

  // Nothing kept: the reference alone.
  const auto none = collect_haplotypes(graphs, "REF", [](std::string_view) { return false; });
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].is_reference);
  EXPECT_TRUE(collect_haplotypes({}, "REF")[0].is_reference);
}

TEST(ReadThreadingAssembler, InvalidArguments) {
  ReadThreadingAssemblerArgs args;
  args.kmer_sizes.clear();
  EXPECT_THROW(assemble_graphs(LocalAssemblyInput{"ACGT", 0, {}}, args, align_dangling_end), Error);
}

}  // namespace
}  // namespace gpp::stages::call
