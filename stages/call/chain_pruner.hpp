// Pruning of weakly supported chains in an assembly graph (GATK graphs/ChainPruner with
// graphs/LowWeightChainPruner, HaplotypeCaller's default pruner).
//
// A chain is a maximal run of edges through vertices with one incoming and one outgoing edge,
// found breadth-first from the graph's sources. A chain is removed when every edge on it is
// non-reference with a pruning multiplicity below the prune factor; vertices left without edges
// are then removed (through the graph's own remove_singleton_orphan_vertices).
//
// @code
//   // A -[1]> B -[1]> C -[1]> D is removed with prune factor 2;
//   // A -[1]> B -[2]> C -[1]> D is kept (one edge reaches 2).
//   prune_low_weight_chains(graph, 2);
// @endcode
#pragma once

#include <vector>

#include "stages/call/assembly_graph.hpp"

namespace gpp::stages::call {

/// One linear chain: its edges in order and its last vertex.
struct GraphChain {
  std::vector<EdgeId> edges;
  VertexId last_vertex = kNoVertex;
};

/// GATK ChainPruner.findAllChains: every chain reachable from the sources, in discovery order.
std::vector<GraphChain> find_all_chains(const BaseGraph& graph);

/**
 * @brief GATK LowWeightChainPruner.pruneLowWeightChains.
 *
 * @param graph        the graph to prune in place
 * @param prune_factor chains whose non-reference edges all have pruning multiplicity below this
 *                     are removed (HaplotypeCaller --min-pruning, default 2)
 * @throws gpp::Error if prune_factor < 0
 */
void prune_low_weight_chains(BaseGraph& graph, int prune_factor);

}  // namespace gpp::stages::call
