// GATK SharedVertexSequenceSplitter, CommonSuffixSplitter, SharedSequenceMerger and GraphUtils;
// see seq_graph_splitting.hpp. Graph edits happen in GATK's order so insertion orders match.
#include "stages/call/seq_graph_splitting.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

std::vector<std::string_view> sequences_of(const BaseGraph& graph,
                                           std::span<const VertexId> vertices) {
  std::vector<std::string_view> sequences;
  for (VertexId v : vertices) sequences.push_back(graph.sequence(v));
  return sequences;
}

int min_length(std::span<const std::string_view> sequences) {
  int result = sequences.empty() ? 0 : std::numeric_limits<int>::max();
  for (std::string_view s : sequences) result = std::min(result, static_cast<int>(s.size()));
  return result;
}

bool contains(std::span<const VertexId> vertices, VertexId v) {
  return std::find(vertices.begin(), vertices.end(), v) != vertices.end();
}

}  // namespace

int common_maximum_prefix_length(std::span<const std::string_view> sequences) {
  const int shortest = min_length(sequences);
  for (int i = 0; i < shortest; ++i) {
    for (std::size_t j = 1; j < sequences.size(); ++j) {
      if (sequences[j][i] != sequences[0][i]) return i;
    }
  }
  return shortest;
}

int common_maximum_suffix_length(std::span<const std::string_view> sequences, int min_length) {
  for (int suffix = 0; suffix < min_length; ++suffix) {
    const char b = sequences[0][sequences[0].size() - suffix - 1];
    for (std::size_t j = 1; j < sequences.size(); ++j) {
      if (sequences[j][sequences[j].size() - suffix - 1] != b) return suffix;
    }
  }
  return min_length;
}

std::pair<std::string, std::string> common_prefix_and_suffix(
    std::span<const std::string_view> sequences) {
  const int prefix_length = common_maximum_prefix_length(sequences);
  const int suffix_length =
      common_maximum_suffix_length(sequences, min_length(sequences) - prefix_length);
  const std::string_view first = sequences[0];
  return {std::string(first.substr(0, prefix_length)),
          std::string(first.substr(first.size() - suffix_length))};
}

// ---------------------------------------------------------------------------------------------
// SharedVertexSequenceSplitter
// ---------------------------------------------------------------------------------------------

SharedVertexSequenceSplitter::SharedVertexSequenceSplitter(SeqGraph& graph,
                                                           std::vector<VertexId> to_split)
    : outer_(graph), to_split_(std::move(to_split)) {
  if (to_split_.size() < 2) throw Error("sequence splitter: can only split at least 2 vertices");
  for (VertexId v : to_split_) {
    if (!graph.contains_vertex(v)) throw Error("sequence splitter: vertex not in the graph");
  }
  std::tie(prefix_, suffix_) = common_prefix_and_suffix(sequences_of(graph, to_split_));
}

bool SharedVertexSequenceSplitter::split_and_update(VertexId top, VertexId bottom) {
  split();
  update_graph(top, bottom);
  return true;
}

AssemblyEdge SharedVertexSequenceSplitter::edge_to_remove(VertexId v, EdgeId e) {
  // No edge: a zero-weight stand-in keeps the weights through the diamond unchanged.
  if (e == kNoEdge) return AssemblyEdge(outer_.is_reference_node(v), 0);
  edges_to_remove_.push_back(e);
  return outer_.edge(e).copy();
}

void SharedVertexSequenceSplitter::split() {
  split_graph_.emplace(outer_.kmer_size());
  SeqGraph& sg = *split_graph_;
  new_middles_.clear();
  edges_to_remove_.clear();
  split_prefix_ = sg.add_vertex(prefix_);
  split_suffix_ = sg.add_vertex(suffix_);
  for (VertexId mid : to_split_) {
    const AssemblyEdge to_mid = edge_to_remove(mid, outer_.incoming_edge_of(mid));
    const AssemblyEdge from_mid = edge_to_remove(mid, outer_.outgoing_edge_of(mid));
    const std::string& s = outer_.sequence(mid);
    const int remaining_length = static_cast<int>(s.size() - prefix_.size() - suffix_.size());
    if (remaining_length > 0) {
      const VertexId remaining = sg.add_vertex(s.substr(prefix_.size(), remaining_length));
      new_middles_.push_back(remaining);
      sg.add_edge(split_prefix_, remaining, to_mid);
      sg.add_edge(remaining, split_suffix_, from_mid);
    } else {
      sg.add_or_update_edge(split_prefix_, split_suffix_, to_mid.copy().add(from_mid));
    }
  }
}

void SharedVertexSequenceSplitter::update_graph(VertexId top, VertexId bottom) {
  for (VertexId v : to_split_) {
    if (!outer_.contains_vertex(v)) throw Error("sequence splitter: vertex not in the graph");
  }
  if (top == kNoVertex && bottom == kNoVertex) {
    throw Error("sequence splitter: cannot update graph without a top or bottom vertex");
  }
  if ((top != kNoVertex && !outer_.contains_vertex(top)) ||
      (bottom != kNoVertex && !outer_.contains_vertex(bottom))) {
    throw Error("sequence splitter: top or bottom not in the graph");
  }
  if (!split_graph_) throw Error("sequence splitter: updateGraph before split()");
  const SeqGraph& sg = *split_graph_;

  outer_.remove_all_vertices(to_split_);
  outer_.remove_all_edges(edges_to_remove_);
  // Split-subgraph vertex -> outer vertex, and which split edges the outer graph now holds
  // (GATK moves the same edge objects, and adding one already present does nothing).
  std::vector<VertexId> in_outer(sg.vertex_capacity(), kNoVertex);
  std::vector<char> edge_added(sg.edge_capacity(), 0);
  for (VertexId m : new_middles_) in_outer[m] = outer_.add_vertex(sg.sequence(m));

  const bool has_prefix_suffix_edge = sg.get_edge(split_prefix_, split_suffix_) != kNoEdge;
  const bool only_prefix_suffix_edges = has_prefix_suffix_edge && sg.out_degree(split_prefix_) == 1;
  const bool need_prefix = !prefix_.empty() || (top == kNoVertex && !only_prefix_suffix_edges);
  const bool need_suffix = !suffix_.empty() || (bottom == kNoVertex && !only_prefix_suffix_edges);

  const auto or_edge = [&sg](std::span<const EdgeId> edges) {
    bool any_ref = false;
    for (EdgeId e : edges) any_ref = any_ref || sg.edge(e).is_ref();
    return AssemblyEdge(any_ref, 1);
  };
  if (need_prefix) {
    in_outer[split_prefix_] = outer_.add_vertex(prefix_);
    if (top != kNoVertex) {
      outer_.add_edge(top, in_outer[split_prefix_], or_edge(sg.outgoing_edges(split_prefix_)));
    }
  }
  if (need_suffix) {
    in_outer[split_suffix_] = outer_.add_vertex(suffix_);
    if (bottom != kNoVertex) {
      outer_.add_edge(in_outer[split_suffix_], bottom, or_edge(sg.incoming_edges(split_suffix_)));
    }
  }
  const VertexId top_for_connect = need_prefix ? in_outer[split_prefix_] : top;
  const VertexId bottom_for_connect = need_suffix ? in_outer[split_suffix_] : bottom;
  const auto add_split_edge = [&](VertexId u, VertexId v, EdgeId e) {
    if (edge_added[e]) return;
    if (u == kNoVertex || v == kNoVertex) throw Error("sequence splitter: no such vertex");
    if (outer_.add_edge(u, v, sg.edge(e)) != kNoEdge) edge_added[e] = 1;
  };
  if (top_for_connect != kNoVertex) {
    for (EdgeId e : sg.outgoing_edges(split_prefix_)) {
      const VertexId target = sg.edge_target(e);
      if (target == split_suffix_) {
        if (bottom_for_connect != kNoVertex) add_split_edge(top_for_connect, bottom_for_connect, e);
      } else {
        add_split_edge(top_for_connect, in_outer[target], e);
      }
    }
  }
  if (bottom_for_connect != kNoVertex) {
    for (EdgeId e : sg.incoming_edges(split_suffix_)) {
      add_split_edge(in_outer[sg.edge_source(e)], bottom_for_connect, e);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CommonSuffixSplitter
// ---------------------------------------------------------------------------------------------

bool split_common_suffix(SeqGraph& graph, VertexId v) {
  if (!graph.contains_vertex(v)) throw Error("suffix splitter: graph doesn't contain vertex");
  if (graph.in_degree(v) < 2) return false;  // (checked before building any list)
  const std::vector<VertexId> to_split = graph.incoming_vertices(v);
  if (to_split.size() < 2) return false;
  // safeToSplit: each has one outgoing edge, to v; none is v or an outgoing vertex of v.
  const std::vector<VertexId> outgoing_of_bottom = graph.outgoing_vertices(v);
  for (VertexId m : to_split) {
    if (m == v || graph.out_degree(m) != 1 || !contains(graph.outgoing_vertices(m), v)) {
      return false;
    }
    if (contains(outgoing_of_bottom, m)) return false;
  }
  const std::vector<std::string_view> sequences = sequences_of(graph, to_split);
  const int suffix_length = common_maximum_suffix_length(sequences, min_length(sequences));
  if (suffix_length == 0) return false;
  const std::string suffix(sequences[0].substr(sequences[0].size() - suffix_length));
  for (VertexId m : to_split) {  // wouldEliminateRefSource: the first reference source decides
    if (graph.is_ref_source(m)) {
      if (static_cast<int>(graph.sequence(m).size()) == suffix_length) return false;
      break;
    }
  }
  bool all_are_suffix = true;
  for (VertexId m : to_split) {
    all_are_suffix = all_are_suffix && static_cast<int>(graph.sequence(m).size()) == suffix_length;
  }
  if (all_are_suffix) return false;

  std::vector<EdgeId> edges_to_remove;
  for (VertexId mid : to_split) {
    const VertexId suffix_v = graph.add_vertex(suffix);
    const EdgeId out = graph.outgoing_edge_of(mid);
    const int prefix_size = static_cast<int>(graph.sequence(mid).size()) - suffix_length;
    VertexId incoming_target = suffix_v;
    if (prefix_size > 0) {
      incoming_target = graph.add_vertex(graph.sequence(mid).substr(0, prefix_size));
      graph.add_edge(incoming_target, suffix_v, AssemblyEdge(graph.edge(out).is_ref(), 1));
      edges_to_remove.push_back(out);
    }
    graph.add_edge(suffix_v, graph.edge_target(out), graph.edge(out).copy());
    const auto incoming_span = graph.incoming_edges(mid);
    const std::vector<EdgeId> incoming(incoming_span.begin(), incoming_span.end());
    for (EdgeId in : incoming) {
      graph.add_edge(graph.edge_source(in), incoming_target, graph.edge(in).copy());
      edges_to_remove.push_back(in);
    }
  }
  graph.remove_all_vertices(to_split);
  graph.remove_all_edges(edges_to_remove);
  return true;
}

// ---------------------------------------------------------------------------------------------
// SharedSequenceMerger
// ---------------------------------------------------------------------------------------------

bool merge_shared_sequence(SeqGraph& graph, VertexId v) {
  if (!graph.contains_vertex(v)) throw Error("sequence merger: graph doesn't contain vertex");
  if (graph.in_degree(v) == 0) return false;
  const std::vector<VertexId> prevs = graph.incoming_vertices(v);
  if (prevs.empty()) return false;
  for (VertexId prev : prevs) {  // canMerge
    if (graph.sequence(prev) != graph.sequence(prevs[0])) return false;
    if (graph.out_degree(prev) != 1) return false;
    if (graph.edge_target(graph.outgoing_edges(prev).front()) != v) return false;
    if (graph.in_degree(prev) == 0) return false;
  }
  std::vector<EdgeId> edges_to_remove;
  const VertexId merged = graph.add_vertex(graph.sequence(prevs[0]) + graph.sequence(v));
  for (VertexId prev : prevs) {
    const auto incoming_span = graph.incoming_edges(prev);
    const std::vector<EdgeId> incoming(incoming_span.begin(), incoming_span.end());
    for (EdgeId in : incoming) {
      graph.add_edge(graph.edge_source(in), merged, graph.edge(in).copy());
      edges_to_remove.push_back(in);
    }
  }
  const auto outgoing_span = graph.outgoing_edges(v);
  const std::vector<EdgeId> outgoing(outgoing_span.begin(), outgoing_span.end());
  for (EdgeId e : outgoing) graph.add_edge(merged, graph.edge_target(e), graph.edge(e).copy());
  graph.remove_all_vertices(prevs);
  graph.remove_vertex(v);
  graph.remove_all_edges(edges_to_remove);
  return true;
}

}  // namespace gpp::stages::call
