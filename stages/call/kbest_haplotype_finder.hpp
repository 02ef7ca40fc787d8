// The k best haplotypes (paths from a source to a sink) of an assembly graph (GATK
// graphs/GraphBasedKBestHaplotypeFinder with KBestHaplotypeFinder, KBestHaplotype and Path).
//
// Dijkstra-like best-first search: a path's score is the sum over its edges of
// log10(edge multiplicity) - log10(total multiplicity out of the edge's source); the queue
// polls the highest score first, equal scores broken by the path's bases (the lexicographically
// greater first, K_BEST_HAPLOTYPE_COMPARATOR). Each vertex is extended at most
// max_number_of_haplotypes times. The queue is java.util.PriorityQueue's binary heap, so paths
// that compare equal come out in GATK's order too.
//
// A graph with cycles is first copied without them (KBestHaplotypeFinder
// .removeCyclesAndVerticesThatDontLeadToSinks): a depth-first walk from each source drops every
// edge into a vertex already visited from that source and every vertex that reaches no sink.
//
// GATK's KBestHaplotype.isReference() is always false (its flag starts false and is only ever
// ANDed), so is_reference is false for every path here too; the reference path is told apart
// by its bases (read_threading_assembler.hpp).
//
// @code
//   // A -> C -> {G, T, A}, all multiplicities 1: three haplotypes scoring log10(1/3) each.
//   auto haplotypes = GraphBasedKBestHaplotypeFinder(graph).find_best_haplotypes();
// @endcode
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "stages/call/assembly_graph.hpp"

namespace gpp::stages::call {

/// One path found (GATK KBestHaplotype): vertex and edge ids refer to the searched graph.
struct KBestHaplotype {
  std::vector<VertexId> vertices;  ///< first (a source) to last (a sink)
  std::vector<EdgeId> edges;
  std::string bases;          ///< the source's whole sequence, then each later vertex's added bases
  double score = 0;           ///< sum of log10 branch fractions (0 for a one-vertex path)
  bool is_reference = false;  ///< always false, as in GATK
};

class GraphBasedKBestHaplotypeFinder {
 public:
  /// @throws gpp::Error if a source or sink is not in the graph, or if the graph has cycles and
  ///         removing them leaves no source-to-sink path (GATK's validations)
  GraphBasedKBestHaplotypeFinder(const BaseGraph& graph, std::vector<VertexId> sources,
                                 std::vector<VertexId> sinks);
  /// Every source to every sink.
  explicit GraphBasedKBestHaplotypeFinder(const BaseGraph& graph);

  const std::vector<VertexId>& sources() const { return sources_; }
  const std::vector<VertexId>& sinks() const { return sinks_; }
  /// The graph searched: the input, or its cycle-free copy.
  const BaseGraph& graph() const { return *graph_; }

  /// At most max_number_of_haplotypes paths, best first.
  std::vector<KBestHaplotype> find_best_haplotypes(
      int max_number_of_haplotypes = std::numeric_limits<int>::max()) const;

 private:
  std::unique_ptr<BaseGraph> cycle_free_copy_;
  const BaseGraph* graph_;
  std::vector<VertexId> sources_;
  std::vector<VertexId> sinks_;
};

namespace detail {
/// Java's Double.compare: NaN above everything and equal to itself, -0.0 below 0.0.
int java_double_compare(double a, double b);
}  // namespace detail

}  // namespace gpp::stages::call
