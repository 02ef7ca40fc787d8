// Reference-connectivity clean-up, cycle detection and structural equality of the assembly graph
// (GATK BaseGraph.cleanNonRefPaths, removeSingletonOrphanVertices,
// removeVerticesNotConnectedToRefRegardlessOfEdgeDirection, removePathsNotConnectedToRef,
// hasCycles via JGraphT CycleDetector, graphEquals).
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "stages/call/assembly_graph.hpp"

namespace gpp::stages::call {

std::vector<char> BaseGraph::reachable(VertexId start, bool follow_incoming,
                                       bool follow_outgoing) const {
  // GATK BaseGraphIterator: every vertex reachable from start along the chosen directions.
  std::vector<char> seen(vertices_.size(), 0);
  std::vector<VertexId> to_visit{start};
  while (!to_visit.empty()) {
    const VertexId v = to_visit.back();
    to_visit.pop_back();
    if (seen[v]) continue;
    seen[v] = 1;
    if (follow_incoming) {
      for (EdgeId e : vertices_[v].in) to_visit.push_back(edges_[e].source);
    }
    if (follow_outgoing) {
      for (EdgeId e : vertices_[v].out) to_visit.push_back(edges_[e].target);
    }
  }
  return seen;
}

void BaseGraph::clean_non_ref_paths() {
  const VertexId ref_source = reference_source_vertex();
  if (ref_source == kNoVertex || reference_sink_vertex() == kNoVertex) return;
  // Non-reference edges reachable backwards from the source through non-reference edges go,
  // then those reachable forwards from the sink. The set removed does not depend on the order
  // GATK's HashSet visits them in.
  std::vector<EdgeId> to_check(vertices_[ref_source].in.begin(), vertices_[ref_source].in.end());
  while (!to_check.empty()) {
    const EdgeId e = to_check.back();
    to_check.pop_back();
    if (!contains_edge(e) || edges_[e].data.is_ref()) continue;
    const auto& upstream = vertices_[edges_[e].source].in;
    to_check.insert(to_check.end(), upstream.begin(), upstream.end());
    remove_edge(e);
  }
  const VertexId ref_sink = reference_sink_vertex();
  if (ref_sink != kNoVertex)
    to_check.assign(vertices_[ref_sink].out.begin(), vertices_[ref_sink].out.end());
  while (!to_check.empty()) {
    const EdgeId e = to_check.back();
    to_check.pop_back();
    if (!contains_edge(e) || edges_[e].data.is_ref()) continue;
    const auto& downstream = vertices_[edges_[e].target].out;
    to_check.insert(to_check.end(), downstream.begin(), downstream.end());
    remove_edge(e);
  }
  remove_singleton_orphan_vertices();
}

void BaseGraph::remove_singleton_orphan_vertices() {
  std::vector<VertexId> to_remove;
  for (VertexId v : live_vertices()) {
    if (in_degree(v) == 0 && out_degree(v) == 0 && !is_ref_source(v)) to_remove.push_back(v);
  }
  remove_all_vertices(to_remove);
}

void BaseGraph::remove_vertices_not_connected_to_ref_regardless_of_edge_direction() {
  const VertexId ref_source = reference_source_vertex();
  std::vector<char> keep(vertices_.size(), 0);
  if (ref_source != kNoVertex) keep = reachable(ref_source, true, true);
  std::vector<VertexId> to_remove;
  for (VertexId v : live_vertices()) {
    if (!keep[v]) to_remove.push_back(v);
  }
  remove_all_vertices(to_remove);
}

void BaseGraph::remove_paths_not_connected_to_ref() {
  const VertexId ref_source = reference_source_vertex();
  const VertexId ref_sink = reference_sink_vertex();
  if (ref_source == kNoVertex || ref_sink == kNoVertex) {
    throw Error("assembly graph: graph must have ref source and sink vertices");
  }
  const std::vector<char> from_source = reachable(ref_source, false, true);
  const std::vector<char> to_sink = reachable(ref_sink, true, false);
  std::vector<VertexId> to_remove;
  for (VertexId v : live_vertices()) {
    if (!(from_source[v] && to_sink[v])) to_remove.push_back(v);
  }
  remove_all_vertices(to_remove);
  if (sinks().size() > 1) {
    throw Error("assembly graph: should have eliminated all but the reference sink");
  }
  if (sources().size() > 1) {
    throw Error("assembly graph: should have eliminated all but the reference source");
  }
}

bool BaseGraph::has_cycles() const {
  // Iterative depth-first search; a grey vertex reached again closes a cycle.
  enum : char { kWhite, kGrey, kBlack };
  std::vector<char> colour(vertices_.size(), kWhite);
  std::vector<std::pair<VertexId, std::size_t>> stack;
  for (VertexId root : live_vertices()) {
    if (colour[root] != kWhite) continue;
    stack.emplace_back(root, 0);
    colour[root] = kGrey;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& out = vertices_[v].out;
      if (next == out.size()) {
        colour[v] = kBlack;
        stack.pop_back();
        continue;
      }
      const VertexId w = edges_[out[next++]].target;
      if (colour[w] == kGrey) return true;
      if (colour[w] == kWhite) {
        colour[w] = kGrey;
        stack.emplace_back(w, 0);
      }
    }
  }
  return false;
}

bool BaseGraph::graph_equals(const BaseGraph& g1, const BaseGraph& g2) {
  if (g1.vertex_count() != g2.vertex_count() || g1.edge_count() != g2.edge_count()) return false;
  std::set<std::string> sequences2;
  for (VertexId v : g2.vertex_set()) sequences2.insert(g2.sequence(v));
  for (VertexId v : g1.vertex_set()) {
    if (!sequences2.count(g1.sequence(v))) return false;
  }
  using EdgeKey = std::pair<std::string, std::string>;
  const auto edge_keys = [](const BaseGraph& g) {
    std::set<EdgeKey> keys;
    for (EdgeId e : g.edge_set()) {
      keys.emplace(g.sequence(g.edge_source(e)), g.sequence(g.edge_target(e)));
    }
    return keys;
  };
  return edge_keys(g1) == edge_keys(g2);
}

}  // namespace gpp::stages::call
