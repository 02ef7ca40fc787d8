// GATK ChainPruner / LowWeightChainPruner; see chain_pruner.hpp.
#include "stages/call/chain_pruner.hpp"

#include <deque>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

/// ChainPruner.findAllChains as a walk: calls visit(edges of the chain) for every chain, in
/// discovery order, with one buffer for all of them (no allocation per chain).
template <typename Visit>
void for_each_chain(const BaseGraph& graph, Visit visit) {
  const std::vector<VertexId> sources = graph.sources();
  std::deque<VertexId> chain_starts(sources.begin(), sources.end());
  std::vector<char> already_seen(graph.vertex_capacity(), 0);
  for (VertexId v : sources) already_seen[v] = 1;
  std::vector<EdgeId> edges;
  while (!chain_starts.empty()) {
    const VertexId start = chain_starts.front();
    chain_starts.pop_front();
    for (EdgeId out : graph.outgoing_edges(start)) {
      // findChain: extend while the last vertex has exactly one outgoing edge, at most one
      // incoming edge and is not the chain's first vertex.
      edges.clear();
      edges.push_back(out);
      const VertexId first = graph.edge_source(out);
      VertexId last = graph.edge_target(out);
      while (graph.out_degree(last) == 1 && graph.in_degree(last) <= 1 && last != first) {
        const EdgeId next = graph.outgoing_edges(last).front();
        edges.push_back(next);
        last = graph.edge_target(next);
      }
      visit(std::span<const EdgeId>(edges), last);
      if (!already_seen[last]) {
        chain_starts.push_back(last);
        already_seen[last] = 1;
      }
    }
  }
}

}  // namespace

std::vector<GraphChain> find_all_chains(const BaseGraph& graph) {
  std::vector<GraphChain> chains;
  for_each_chain(graph, [&chains](std::span<const EdgeId> edges, VertexId last) {
    chains.push_back(GraphChain{{edges.begin(), edges.end()}, last});
  });
  return chains;
}

void prune_low_weight_chains(BaseGraph& graph, int prune_factor) {
  if (prune_factor < 0) {
    throw Error("chain pruner: pruneFactor must be >= 0 but got " + std::to_string(prune_factor));
  }
  std::vector<EdgeId> to_remove;
  for_each_chain(graph, [&](std::span<const EdgeId> edges, VertexId) {
    bool needs_pruning = true;
    for (EdgeId e : edges) {
      const AssemblyEdge& edge = graph.edge(e);
      if (edge.pruning_multiplicity() >= prune_factor || edge.is_ref()) {
        needs_pruning = false;
        break;
      }
    }
    if (needs_pruning) to_remove.insert(to_remove.end(), edges.begin(), edges.end());
  });
  graph.remove_all_edges(to_remove);
  graph.remove_singleton_orphan_vertices();
}

}  // namespace gpp::stages::call
