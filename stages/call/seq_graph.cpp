// GATK SeqGraph (simplifyGraph, zipLinearChains), BaseGraph.toSequenceGraph and the
// VertexBasedTransformer passes MergeDiamonds, MergeTails, SplitCommonSuffices and
// MergeCommonSuffices; see seq_graph.hpp.
#include "stages/call/seq_graph.hpp"

#include <optional>
#include <string>

#include "core/error.hpp"
#include "stages/call/seq_graph_splitting.hpp"

namespace gpp::stages::call {

namespace {

constexpr int kMaxReasonableSimplificationCycles = 100;
/// MergeTails.MIN_COMMON_SEQUENCE_TO_MERGE_SOURCE_SINK_VERTICES.
constexpr int kMinCommonSequenceToMergeSourceSinkVertices = 10;

}  // namespace

SeqGraph to_sequence_graph(const BaseGraph& graph) {
  SeqGraph seq_graph(graph.kmer_size());
  std::vector<VertexId> vertex_map(graph.vertex_capacity(), kNoVertex);
  seq_graph.reserve(graph.vertex_count(), graph.edge_count());
  for (VertexId v : graph.live_vertices()) {
    vertex_map[v] = seq_graph.add_vertex(std::string(graph.additional_sequence(v)));
  }
  for (EdgeId e : graph.edge_set()) {
    seq_graph.add_edge(vertex_map[graph.edge_source(e)], vertex_map[graph.edge_target(e)],
                       graph.edge(e).copy());
  }
  return seq_graph;
}

// ---------------------------------------------------------------------------------------------
// Linear chains
// ---------------------------------------------------------------------------------------------

bool SeqGraph::is_linear_chain_start(VertexId v) const {
  return out_degree(v) == 1 &&
         (in_degree(v) != 1 || out_degree(edge_source(incoming_edges(v).front())) > 1);
}

std::vector<VertexId> SeqGraph::trace_linear_chain(VertexId zip_start) const {
  std::vector<VertexId> chain{zip_start};
  bool last_is_ref = is_reference_node(zip_start);
  VertexId last = zip_start;
  while (out_degree(last) == 1) {
    const VertexId target = edge_target(outgoing_edges(last).front());
    if (in_degree(target) != 1 || last == target) break;
    const bool target_is_ref = is_reference_node(target);
    if (last_is_ref != target_is_ref) break;
    chain.push_back(target);
    last = target;
    last_is_ref = target_is_ref;
  }
  return chain;
}

VertexId SeqGraph::merge_linear_chain_vertex(std::span<const VertexId> chain) {
  if (chain.empty()) throw Error("sequence graph: cannot have a linear chain with 0 elements");
  const VertexId first = chain.front();
  const VertexId last = chain.back();
  if (first == last) return kNoVertex;
  std::string merged_sequence;
  for (VertexId v : chain) merged_sequence += sequence(v);
  const VertexId added = add_vertex(std::move(merged_sequence));
  const std::vector<EdgeId> outgoing(outgoing_edges(last).begin(), outgoing_edges(last).end());
  for (EdgeId e : outgoing) add_edge(added, edge_target(e), edge(e).copy());
  const std::vector<EdgeId> incoming(incoming_edges(first).begin(), incoming_edges(first).end());
  for (EdgeId e : incoming) add_edge(edge_source(e), added, edge(e).copy());
  remove_all_vertices(chain);
  return added;
}

bool SeqGraph::zip_linear_chains() {
  std::vector<VertexId> zip_starts;
  for (VertexId v : live_vertices()) {
    if (is_linear_chain_start(v)) zip_starts.push_back(v);
  }
  bool merged_one = false;
  for (VertexId start : zip_starts) {
    const std::vector<VertexId> chain = trace_linear_chain(start);
    merged_one |= merge_linear_chain_vertex(chain) != kNoVertex;
  }
  return merged_one;
}

// ---------------------------------------------------------------------------------------------
// Transformers
// ---------------------------------------------------------------------------------------------

bool try_merge_diamond(SeqGraph& graph, VertexId top, bool dont_modify) {
  if (graph.out_degree(top) <= 1) return false;  // (checked before building any list)
  const std::vector<VertexId> middles = graph.outgoing_vertices(top);
  if (middles.size() <= 1) return false;
  VertexId bottom = kNoVertex;
  for (VertexId mid : middles) {
    if (graph.out_degree(mid) < 1 || graph.in_degree(mid) != 1) return false;
    for (VertexId below : graph.outgoing_vertices(mid)) {
      if (bottom == kNoVertex) {
        bottom = below;
      } else if (bottom != below) {
        return false;
      }
    }
  }
  if (graph.in_degree(bottom) != middles.size()) return false;
  if (dont_modify) return true;
  SharedVertexSequenceSplitter splitter(graph, middles);
  return splitter.meets_min_mergable_sequence_for_either_prefix_or_suffix(1) &&
         splitter.split_and_update(top, bottom);
}

bool try_merge_tails(SeqGraph& graph, VertexId top, bool dont_modify) {
  if (graph.out_degree(top) <= 1) return false;
  const std::vector<VertexId> tails = graph.outgoing_vertices(top);
  if (tails.size() <= 1) return false;
  for (VertexId t : tails) {
    if (!graph.is_sink(t) || graph.in_degree(t) > 1) return false;
  }
  if (dont_modify) return true;
  SharedVertexSequenceSplitter splitter(graph, tails);
  return splitter.meets_min_mergable_sequence_for_suffix(
             kMinCommonSequenceToMergeSourceSinkVertices) &&
         splitter.split_and_update(top, kNoVertex);
}

bool transform_until_complete(SeqGraph& graph, SeqGraphTransform transform) {
  std::vector<char> already_split;  // SplitCommonSuffices: each bottom is tried once per pass
  bool did_at_least_one = false;
  bool found = true;
  while (found) {
    found = false;
    for (VertexId v = 0; v < graph.vertex_capacity() && !found; ++v) {
      if (!graph.contains_vertex(v)) continue;
      switch (transform) {
        case SeqGraphTransform::kMergeDiamonds:
          found = try_merge_diamond(graph, v);
          break;
        case SeqGraphTransform::kMergeTails:
          found = try_merge_tails(graph, v);
          break;
        case SeqGraphTransform::kSplitCommonSuffices:
          already_split.resize(graph.vertex_capacity(), 0);
          if (!already_split[v]) {
            already_split[v] = 1;
            found = split_common_suffix(graph, v);
          }
          break;
        case SeqGraphTransform::kMergeCommonSuffices:
          found = merge_shared_sequence(graph, v);
          break;
      }
    }
    did_at_least_one = did_at_least_one || found;
  }
  return did_at_least_one;
}

// ---------------------------------------------------------------------------------------------
// simplifyGraph
// ---------------------------------------------------------------------------------------------

void SeqGraph::simplify_graph(int max_cycles) {
  zip_linear_chains();
  std::optional<SeqGraph> previous;
  for (int i = 0; i < max_cycles; ++i) {
    if (i > kMaxReasonableSimplificationCycles) {
      throw Error(
          "sequence graph: infinite loop detected in simplification routines for kmer "
          "graph " +
          std::to_string(kmer_size()));
    }
    bool did_some_work = transform_until_complete(*this, SeqGraphTransform::kMergeDiamonds);
    did_some_work |= transform_until_complete(*this, SeqGraphTransform::kMergeTails);
    did_some_work |= transform_until_complete(*this, SeqGraphTransform::kSplitCommonSuffices);
    did_some_work |= transform_until_complete(*this, SeqGraphTransform::kMergeCommonSuffices);
    did_some_work |= zip_linear_chains();
    if (!did_some_work) break;
    // After five rounds, stop once a round leaves the graph as the previous one did.
    if (i > 5) {
      if (previous && graph_equals(*previous, *this)) break;
      previous = *this;
    }
  }
}

}  // namespace gpp::stages::call
