// GATK ChainPruner / LowWeightChainPruner; see chain_pruner.hpp.
#include "stages/call/chain_pruner.hpp"

#include <deque>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

/// GATK ChainPruner.findChain: extends from start_edge while the last vertex has exactly one
/// outgoing edge, at most one incoming edge and is not the chain's first vertex.
GraphChain find_chain(EdgeId start_edge, const BaseGraph& graph) {
  GraphChain chain;
  chain.edges.push_back(start_edge);
  const VertexId first = graph.edge_source(start_edge);
  VertexId last = graph.edge_target(start_edge);
  while (graph.out_degree(last) == 1 && graph.in_degree(last) <= 1 && last != first) {
    const EdgeId next = graph.outgoing_edges(last).front();
    chain.edges.push_back(next);
    last = graph.edge_target(next);
  }
  chain.last_vertex = last;
  return chain;
}

}  // namespace

std::vector<GraphChain> find_all_chains(const BaseGraph& graph) {
  const std::vector<VertexId> sources = graph.sources();
  std::deque<VertexId> chain_starts(sources.begin(), sources.end());
  std::vector<char> already_seen(graph.vertex_capacity(), 0);
  for (VertexId v : sources) already_seen[v] = 1;
  std::vector<GraphChain> chains;
  while (!chain_starts.empty()) {
    const VertexId start = chain_starts.front();
    chain_starts.pop_front();
    for (EdgeId out : graph.outgoing_edges(start)) {
      GraphChain chain = find_chain(out, graph);
      const VertexId end = chain.last_vertex;
      chains.push_back(std::move(chain));
      if (!already_seen[end]) {
        chain_starts.push_back(end);
        already_seen[end] = 1;
      }
    }
  }
  return chains;
}

void prune_low_weight_chains(BaseGraph& graph, int prune_factor) {
  if (prune_factor < 0) {
    throw Error("chain pruner: pruneFactor must be >= 0 but got " + std::to_string(prune_factor));
  }
  std::vector<EdgeId> to_remove;
  for (const GraphChain& chain : find_all_chains(graph)) {
    bool needs_pruning = true;
    for (EdgeId e : chain.edges) {
      const AssemblyEdge& edge = graph.edge(e);
      if (edge.pruning_multiplicity() >= prune_factor || edge.is_ref()) {
        needs_pruning = false;
        break;
      }
    }
    if (needs_pruning) to_remove.insert(to_remove.end(), chain.edges.begin(), chain.edges.end());
  }
  graph.remove_all_edges(to_remove);
  graph.remove_singleton_orphan_vertices();
}

}  // namespace gpp::stages::call
