// GATK GraphBasedKBestHaplotypeFinder.findBestHaplotypes and KBestHaplotypeFinder's cycle
// removal, with java.util.PriorityQueue's heap order; see kbest_haplotype_finder.hpp.
#include "stages/call/kbest_haplotype_finder.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "core/java_priority_queue.hpp"

namespace gpp::stages::call {

int detail::java_double_compare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  // Double.doubleToLongBits: one canonical NaN, compared as signed 64-bit integers.
  const auto bits = [](double x) {
    return std::isnan(x) ? std::int64_t{0x7ff8000000000000} : std::bit_cast<std::int64_t>(x);
  };
  const std::int64_t ba = bits(a);
  const std::int64_t bb = bits(b);
  return ba == bb ? 0 : (ba < bb ? -1 : 1);
}

namespace {

/// findGuiltyVerticesAndEdgesToRemoveCycles: `parents` holds every vertex expanded so far from
/// this source (GATK never takes one out), so an edge to any of them is dropped.
bool find_guilty(const BaseGraph& graph, VertexId current, const std::vector<char>& is_sink,
                 std::vector<char>& edges_to_remove, std::vector<char>& vertices_to_remove,
                 std::vector<char>& parents) {
  if (is_sink[current]) return true;
  parents[current] = 1;
  bool reaches_sink = false;
  for (EdgeId e : graph.outgoing_edges(current)) {
    const VertexId child = graph.edge_target(e);
    if (parents[child]) {
      edges_to_remove[e] = 1;
    } else {
      const bool child_reaches =
          find_guilty(graph, child, is_sink, edges_to_remove, vertices_to_remove, parents);
      reaches_sink = reaches_sink || child_reaches;
    }
  }
  if (!reaches_sink) vertices_to_remove[current] = 1;
  return reaches_sink;
}

/// A search path: a persistent list through its parent, bases built on demand.
struct PathNode {
  std::uint32_t parent;
  EdgeId edge;
  VertexId last;
  double score;
  mutable std::optional<std::string> bases;
};
constexpr std::uint32_t kNoParent = std::numeric_limits<std::uint32_t>::max();

class PathQueue {
 public:
  PathQueue(const BaseGraph& graph, std::vector<PathNode>& nodes) : graph_(graph), nodes_(nodes) {}
  PathQueue(const PathQueue&) = delete;  // its comparator points at it
  PathQueue& operator=(const PathQueue&) = delete;

  bool empty() const { return queue_.empty(); }
  void offer(std::uint32_t x) { queue_.offer(x); }
  std::uint32_t poll() { return queue_.poll(); }
  const std::string& bases(std::uint32_t i) const {
    const PathNode& node = nodes_[i];
    if (!node.bases) {
      if (node.parent == kNoParent) {
        node.bases.emplace(graph_.additional_sequence(node.last, true));
      } else {
        std::string b = bases(node.parent);
        b += graph_.additional_sequence(node.last, false);
        node.bases = std::move(b);
      }
    }
    return *node.bases;
  }

 private:
  // K_BEST_HAPLOTYPE_COMPARATOR: score descending, then bases descending.
  int compare(std::uint32_t a, std::uint32_t b) const {
    const int by_score = detail::java_double_compare(nodes_[b].score, nodes_[a].score);
    if (by_score != 0) return by_score;
    const int by_bases = bases(b).compare(bases(a));
    return by_bases < 0 ? -1 : (by_bases > 0 ? 1 : 0);
  }

  // The queue's comparator: this queue's compare.
  struct Order {
    const PathQueue* paths;
    int operator()(std::uint32_t a, std::uint32_t b) const { return paths->compare(a, b); }
  };

  const BaseGraph& graph_;
  std::vector<PathNode>& nodes_;
  JavaPriorityQueue<std::uint32_t, Order> queue_{Order{this}};
};

}  // namespace

GraphBasedKBestHaplotypeFinder::GraphBasedKBestHaplotypeFinder(const BaseGraph& graph,
                                                               std::vector<VertexId> sources,
                                                               std::vector<VertexId> sinks)
    : graph_(&graph), sources_(std::move(sources)), sinks_(std::move(sinks)) {
  for (VertexId v : sources_) {
    if (!graph.contains_vertex(v)) throw Error("k-best haplotypes: source not in the graph");
  }
  for (VertexId v : sinks_) {
    if (!graph.contains_vertex(v)) throw Error("k-best haplotypes: sink not in the graph");
  }
  if (!graph.has_cycles()) return;
  std::vector<char> is_sink(graph.vertex_capacity(), 0);
  for (VertexId v : sinks_) is_sink[v] = 1;
  std::vector<char> edges_to_remove(graph.edge_capacity(), 0);
  std::vector<char> vertices_to_remove(graph.vertex_capacity(), 0);
  bool found_some_path = false;
  for (VertexId source : sources_) {
    std::vector<char> parents(graph.vertex_capacity(), 0);
    found_some_path =
        find_guilty(graph, source, is_sink, edges_to_remove, vertices_to_remove, parents) ||
        found_some_path;
  }
  if (!found_some_path) {
    throw Error(
        "k-best haplotypes: could not find any path from the source vertex to the sink "
        "vertex after removing cycles");
  }
  std::vector<EdgeId> edges;
  for (EdgeId e = 0; e < edges_to_remove.size(); ++e) {
    if (edges_to_remove[e]) edges.push_back(e);
  }
  std::vector<VertexId> vertices;
  for (VertexId v = 0; v < vertices_to_remove.size(); ++v) {
    if (vertices_to_remove[v]) vertices.push_back(v);
  }
  if (edges.empty() && vertices.empty()) {
    throw Error("k-best haplotypes: cannot find a way to remove the cycles");
  }
  cycle_free_copy_ = std::make_unique<BaseGraph>(graph);
  cycle_free_copy_->remove_all_edges(edges);
  cycle_free_copy_->remove_all_vertices(vertices);
  graph_ = cycle_free_copy_.get();
}

GraphBasedKBestHaplotypeFinder::GraphBasedKBestHaplotypeFinder(const BaseGraph& graph)
    : GraphBasedKBestHaplotypeFinder(graph, graph.sources(), graph.sinks()) {}

std::vector<KBestHaplotype> GraphBasedKBestHaplotypeFinder::find_best_haplotypes(
    int max_number_of_haplotypes) const {
  const BaseGraph& graph = *graph_;
  std::vector<PathNode> nodes;
  PathQueue queue(graph, nodes);
  for (VertexId source : sources_) {
    nodes.push_back(PathNode{kNoParent, kNoEdge, source, 0.0, std::nullopt});
    queue.offer(static_cast<std::uint32_t>(nodes.size() - 1));
  }
  std::vector<char> is_sink(graph.vertex_capacity(), 0);
  for (VertexId v : sinks_) is_sink[v] = 1;
  std::vector<int> vertex_counts(graph.vertex_capacity(), 0);

  std::vector<KBestHaplotype> result;
  while (!queue.empty() && static_cast<int>(result.size()) < max_number_of_haplotypes) {
    const std::uint32_t path = queue.poll();
    const VertexId last = nodes[path].last;
    if (is_sink[last]) {
      KBestHaplotype haplotype;
      haplotype.bases = queue.bases(path);
      haplotype.score = nodes[path].score;
      for (std::uint32_t i = path; i != kNoParent; i = nodes[i].parent) {
        haplotype.vertices.push_back(nodes[i].last);
        if (nodes[i].edge != kNoEdge) haplotype.edges.push_back(nodes[i].edge);
      }
      std::reverse(haplotype.vertices.begin(), haplotype.vertices.end());
      std::reverse(haplotype.edges.begin(), haplotype.edges.end());
      result.push_back(std::move(haplotype));
    } else if (vertex_counts[last]++ < max_number_of_haplotypes) {
      int total_outgoing_multiplicity = 0;
      for (EdgeId e : graph.outgoing_edges(last)) {
        total_outgoing_multiplicity += graph.edge(e).multiplicity();
      }
      for (EdgeId e : graph.outgoing_edges(last)) {
        // KBestHaplotype.computeLogPenaltyScore, added to the parent's score.
        const double penalty = std::log10(static_cast<double>(graph.edge(e).multiplicity())) -
                               std::log10(static_cast<double>(total_outgoing_multiplicity));
        const double score = nodes[path].score + penalty;
        nodes.push_back(PathNode{path, e, graph.edge_target(e), score, std::nullopt});
        queue.offer(static_cast<std::uint32_t>(nodes.size() - 1));
      }
    }
  }
  return result;
}

}  // namespace gpp::stages::call
