// The sequence graph HaplotypeCaller simplifies before enumerating haplotypes (GATK
// graphs/SeqGraph with the transformers MergeDiamonds, MergeTails, SplitCommonSuffices and
// MergeCommonSuffices, and BaseGraph.toSequenceGraph).
//
// simplify_graph() zips linear chains, then repeats one round of {merge diamonds, merge tails,
// split common suffixes, merge common suffixes, zip} until a round changes nothing (or, after the
// sixth round, the graph looks as it did a round before); GATK throws after 100 rounds. The
// sequences spelled by the paths through the graph do not change.
//
// @code
//   SeqGraph g(11);
//   VertexId a = g.add_vertex("A"), c = g.add_vertex("C"), t = g.add_vertex("T");
//   g.add_edge(a, c);  g.add_edge(c, t);
//   g.zip_linear_chains();   // one vertex "ACT"
// @endcode
#pragma once

#include <limits>
#include <span>
#include <vector>

#include "stages/call/assembly_graph.hpp"

namespace gpp::stages::call {

class SeqGraph : public BaseGraph {
 public:
  explicit SeqGraph(int kmer_size) : BaseGraph(kmer_size, VertexKind::kSequence) {}

  /// GATK SeqGraph.simplifyGraph(maxCycles). @throws gpp::Error after 100 productive rounds
  void simplify_graph(int max_cycles = std::numeric_limits<int>::max());
  /// Merges every chain v1 -> v2 -> ... (one edge out of each, one into each, all reference or
  /// all not) into one vertex; true if any was merged.
  bool zip_linear_chains();
  bool is_linear_chain_start(VertexId v) const;
  std::vector<VertexId> trace_linear_chain(VertexId zip_start) const;
  /// Replaces the chain by one vertex; kNoVertex if the chain has one vertex.
  VertexId merge_linear_chain_vertex(std::span<const VertexId> chain);
};

/// BaseGraph.toSequenceGraph: one SeqVertex per vertex holding the bases it adds to a path (a
/// k-mer graph's source keeps its whole k-mer), edges copied, in the graph's orders.
SeqGraph to_sequence_graph(const BaseGraph& graph);

/// MergeDiamonds.tryToTransform on `top`: top -> {m_i} -> bottom with nothing else touching the
/// middles; their shared prefix / suffix move into new vertices. With dont_modify, only says
/// whether top is the root of such a diamond.
bool try_merge_diamond(SeqGraph& graph, VertexId top, bool dont_modify = false);
/// MergeTails.tryToTransform: top -> {sinks} sharing a suffix of at least 10 bases.
bool try_merge_tails(SeqGraph& graph, VertexId top, bool dont_modify = false);

/// The four VertexBasedTransformer passes of a simplification round.
enum class SeqGraphTransform {
  kMergeDiamonds,
  kMergeTails,
  kSplitCommonSuffices,
  kMergeCommonSuffices
};
/// VertexBasedTransformer.transformUntilComplete: apply to the first vertex (in order) that
/// transforms, start over, until none does; true if anything changed.
bool transform_until_complete(SeqGraph& graph, SeqGraphTransform transform);

}  // namespace gpp::stages::call
