// Structure and reference-path queries of the assembly graph (GATK BaseGraph, BaseEdge,
// MultiSampleEdge on JGraphT DefaultDirectedGraph); see assembly_graph.hpp.
#include "stages/call/assembly_graph.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

// ---------------------------------------------------------------------------------------------
// AssemblyEdge
// ---------------------------------------------------------------------------------------------

AssemblyEdge::AssemblyEdge(bool is_ref, int multiplicity)
    : multiplicity_(multiplicity), is_ref_(is_ref) {
  if (multiplicity < 0) {
    throw Error("assembly graph: edge multiplicity must be >= 0 but got " +
                std::to_string(multiplicity));
  }
}

AssemblyEdge AssemblyEdge::multi_sample(bool is_ref, int multiplicity, int single_sample_capacity) {
  if (single_sample_capacity <= 0) {
    throw Error("assembly graph: singleSampleCapacity must be > 0");
  }
  AssemblyEdge edge(is_ref, multiplicity);
  edge.single_sample_capacity_ = single_sample_capacity;
  // MultiSampleEdge's constructor seeds the queue with the multiplicity and counts it as the
  // current sample's.
  if (single_sample_capacity <= kInlineSamples) {
    edge.top_inline_[0] = multiplicity;
    edge.top_inline_count_ = 1;
  } else {
    edge.top_overflow_.push_back(multiplicity);
  }
  edge.current_sample_multiplicity_ = multiplicity;
  return edge;
}

void AssemblyEdge::throw_negative_increment(int incr) {
  throw Error("assembly graph: incr must be >= 0 but got " + std::to_string(incr));
}

int AssemblyEdge::pruning_multiplicity() const {
  if (single_sample_capacity_ == 0) return multiplicity_;
  return single_sample_capacity_ <= kInlineSamples ? top_inline_[0] : top_overflow_.front();
}

void AssemblyEdge::flush_single_sample_multiplicity() {
  if (single_sample_capacity_ == 0) return;
  const int count = current_sample_multiplicity_;
  current_sample_multiplicity_ = 0;
  if (single_sample_capacity_ > kInlineSamples) {
    auto& top = top_overflow_;
    top.insert(std::upper_bound(top.begin(), top.end(), count), count);
    // Keep the largest `capacity` counts: drop the smallest once one too many.
    if (static_cast<int>(top.size()) == single_sample_capacity_ + 1) top.erase(top.begin());
    return;
  }
  // The same on the inline array (at most kInlineSamples + 1 entries while inserting).
  std::size_t size = top_inline_count_;
  const auto at = static_cast<std::size_t>(
      std::upper_bound(top_inline_.begin(), top_inline_.begin() + size, count) -
      top_inline_.begin());
  for (std::size_t i = size; i > at; --i) top_inline_[i] = top_inline_[i - 1];
  top_inline_[at] = count;
  ++size;
  if (static_cast<int>(size) == single_sample_capacity_ + 1) {
    for (std::size_t i = 0; i + 1 < size; ++i) top_inline_[i] = top_inline_[i + 1];
    --size;
  }
  top_inline_count_ = static_cast<std::uint8_t>(size);
}

AssemblyEdge AssemblyEdge::copy() const {
  return single_sample_capacity_ > 0 ? multi_sample(is_ref_, multiplicity_, single_sample_capacity_)
                                     : AssemblyEdge(is_ref_, multiplicity_);
}

AssemblyEdge& AssemblyEdge::add(const AssemblyEdge& other) {
  multiplicity_ += other.multiplicity_;
  is_ref_ = is_ref_ || other.is_ref_;
  return *this;
}

void EdgeList::erase(EdgeId e) {
  if (spilled()) {
    overflow_.erase(std::find(overflow_.begin(), overflow_.end(), e));
    if (overflow_.empty()) inline_size_ = 0;
    return;
  }
  const auto last = inline_.begin() + inline_size_;
  const auto it = std::find(inline_.begin(), last, e);
  if (it == last) return;
  std::copy(it + 1, last, it);
  --inline_size_;
}

// ---------------------------------------------------------------------------------------------
// BaseGraph structure
// ---------------------------------------------------------------------------------------------

BaseGraph::BaseGraph(int kmer_size, VertexKind kind, int default_edge_sample_capacity)
    : kmer_size_(kmer_size),
      kind_(kind),
      default_edge_sample_capacity_(default_edge_sample_capacity) {
  if (kmer_size <= 0) {
    throw Error("assembly graph: kmerSize must be > 0 but got " + std::to_string(kmer_size));
  }
}

void BaseGraph::require_vertex(VertexId v) const {
  if (!contains_vertex(v)) throw Error("assembly graph: no such vertex in the graph");
}

VertexId BaseGraph::add_vertex(std::string sequence) {
  last_bases_.push_back(sequence.empty() ? '\0' : sequence.back());
  vertices_.emplace_back(std::move(sequence));
  ++live_vertices_;
  return static_cast<VertexId>(vertices_.size() - 1);
}

EdgeId BaseGraph::add_edge(VertexId u, VertexId v) {
  return add_edge(u, v,
                  default_edge_sample_capacity_ > 0
                      ? AssemblyEdge::multi_sample(false, 1, default_edge_sample_capacity_)
                      : AssemblyEdge(false, 1));
}

EdgeId BaseGraph::add_edge(VertexId u, VertexId v, const AssemblyEdge& edge) {
  require_vertex(u);
  require_vertex(v);
  if (get_edge(u, v) != kNoEdge) return kNoEdge;  // DefaultDirectedGraph: no multiple edges
  const auto id = static_cast<EdgeId>(edges_.size());
  edges_.push_back(EdgeSlot{edge, u, v, true});
  vertices_[u].out.push_back(id);
  vertices_[v].in.push_back(id);
  ++live_edges_;
  return id;
}

void BaseGraph::add_or_update_edge(VertexId u, VertexId v, const AssemblyEdge& edge) {
  const EdgeId previous = get_edge(u, v);
  if (previous != kNoEdge) {
    edges_[previous].data.add(edge);
  } else {
    add_edge(u, v, edge);
  }
}

bool BaseGraph::remove_edge(EdgeId e) {
  if (!contains_edge(e)) return false;
  EdgeSlot& slot = edges_[e];
  vertices_[slot.source].out.erase(e);
  vertices_[slot.target].in.erase(e);
  slot.alive = false;
  --live_edges_;
  return true;
}

bool BaseGraph::remove_edge(VertexId u, VertexId v) {
  if (!contains_vertex(u) || !contains_vertex(v)) return false;
  return remove_edge(get_edge(u, v));
}

bool BaseGraph::remove_vertex(VertexId v) {
  if (!contains_vertex(v)) return false;
  // JGraphT removes edgesOf(v) (incoming, then outgoing), then the vertex; removing an edge only
  // drops its id from the lists that hold it, so the order does not change the graph.
  while (!vertices_[v].in.empty()) remove_edge(vertices_[v].in.front());
  while (!vertices_[v].out.empty()) remove_edge(vertices_[v].out.front());
  vertices_[v].alive = false;  // the sequence stays readable, as GATK's vertex objects do
  --live_vertices_;
  return true;
}

void BaseGraph::remove_all_vertices(std::span<const VertexId> vertices) {
  for (VertexId v : vertices) remove_vertex(v);
}

void BaseGraph::remove_all_edges(std::span<const EdgeId> edges) {
  for (EdgeId e : edges) remove_edge(e);
}

std::vector<VertexId> BaseGraph::vertex_set() const {
  std::vector<VertexId> result;
  result.reserve(live_vertices_);
  for (VertexId v = 0; v < vertices_.size(); ++v) {
    if (vertices_[v].alive) result.push_back(v);
  }
  return result;
}

std::vector<EdgeId> BaseGraph::edge_set() const {
  std::vector<EdgeId> result;
  result.reserve(live_edges_);
  for (EdgeId e = 0; e < edges_.size(); ++e) {
    if (edges_[e].alive) result.push_back(e);
  }
  return result;
}

EdgeId BaseGraph::get_edge(VertexId u, VertexId v) const {
  if (!contains_vertex(u)) return kNoEdge;
  for (EdgeId e : vertices_[u].out) {
    if (edges_[e].target == v) return e;
  }
  return kNoEdge;
}

EdgeId BaseGraph::incoming_edge_of(VertexId v) const {
  const auto& in = vertices_[v].in;
  if (in.size() > 1) throw Error("assembly graph: vertex has multiple incoming edges");
  return in.empty() ? kNoEdge : in.front();
}

EdgeId BaseGraph::outgoing_edge_of(VertexId v) const {
  const auto& out = vertices_[v].out;
  if (out.size() > 1) throw Error("assembly graph: vertex has multiple outgoing edges");
  return out.empty() ? kNoEdge : out.front();
}

std::vector<VertexId> BaseGraph::outgoing_vertices(VertexId v) const {
  std::vector<VertexId> result;
  for (EdgeId e : vertices_[v].out) result.push_back(edges_[e].target);
  return result;  // no multiple edges: already distinct
}

std::vector<VertexId> BaseGraph::incoming_vertices(VertexId v) const {
  std::vector<VertexId> result;
  for (EdgeId e : vertices_[v].in) result.push_back(edges_[e].source);
  return result;
}

std::string_view BaseGraph::additional_sequence(VertexId v, bool as_source) const {
  const std::string& s = vertices_[v].sequence;
  if (kind_ == VertexKind::kSequence || as_source) return s;
  return std::string_view(s).substr(s.size() - 1);
}

// ---------------------------------------------------------------------------------------------
// Reference path
// ---------------------------------------------------------------------------------------------

std::vector<VertexId> BaseGraph::sources() const {
  std::vector<VertexId> result;
  for (VertexId v : live_vertices()) {
    if (is_source(v)) result.push_back(v);
  }
  return result;
}

std::vector<VertexId> BaseGraph::sinks() const {
  std::vector<VertexId> result;
  for (VertexId v : live_vertices()) {
    if (is_sink(v)) result.push_back(v);
  }
  return result;
}

bool BaseGraph::is_reference_node(VertexId v) const {
  for (EdgeId e : vertices_[v].in) {
    if (edges_[e].data.is_ref()) return true;
  }
  for (EdgeId e : vertices_[v].out) {
    if (edges_[e].data.is_ref()) return true;
  }
  return live_vertices_ == 1;  // a one-vertex graph is all reference
}

bool BaseGraph::is_ref_source(VertexId v) const {
  for (EdgeId e : vertices_[v].in) {
    if (edges_[e].data.is_ref()) return false;
  }
  for (EdgeId e : vertices_[v].out) {
    if (edges_[e].data.is_ref()) return true;
  }
  return live_vertices_ == 1;
}

bool BaseGraph::is_ref_sink(VertexId v) const {
  for (EdgeId e : vertices_[v].out) {
    if (edges_[e].data.is_ref()) return false;
  }
  for (EdgeId e : vertices_[v].in) {
    if (edges_[e].data.is_ref()) return true;
  }
  return live_vertices_ == 1;
}

VertexId BaseGraph::reference_source_vertex() const {
  for (VertexId v = 0; v < vertices_.size(); ++v) {
    if (vertices_[v].alive && is_ref_source(v)) return v;
  }
  return kNoVertex;
}

VertexId BaseGraph::reference_sink_vertex() const {
  for (VertexId v = 0; v < vertices_.size(); ++v) {
    if (vertices_[v].alive && is_ref_sink(v)) return v;
  }
  return kNoVertex;
}

VertexId BaseGraph::next_reference_vertex(VertexId v, bool allow_non_ref_paths,
                                          EdgeId blacklisted) const {
  if (v == kNoVertex) return kNoVertex;
  const auto& out = vertices_[v].out;
  if (out.empty()) return kNoVertex;
  for (EdgeId e : out) {
    if (edges_[e].data.is_ref()) return edges_[e].target;
  }
  if (!allow_non_ref_paths) return kNoVertex;
  VertexId only = kNoVertex;
  int count = 0;
  for (EdgeId e : out) {
    if (e == blacklisted) continue;
    only = edges_[e].target;
    if (++count == 2) break;
  }
  return count == 1 ? only : kNoVertex;
}

VertexId BaseGraph::prev_reference_vertex(VertexId v) const {
  if (v == kNoVertex) return kNoVertex;
  for (EdgeId e : vertices_[v].in) {
    if (is_reference_node(edges_[e].source)) return edges_[e].source;
  }
  return kNoVertex;
}

std::string BaseGraph::reference_bytes(VertexId from, VertexId to, bool include_start,
                                       bool include_stop) const {
  require_vertex(from);
  require_vertex(to);
  std::string bytes;
  VertexId v = from;
  if (include_start) bytes += additional_sequence(v);
  v = next_reference_vertex(v);
  std::size_t steps = 0;
  while (v != kNoVertex && v != to) {
    if (++steps > vertices_.size()) throw Error("assembly graph: the reference path has a cycle");
    bytes += additional_sequence(v);
    v = next_reference_vertex(v);
  }
  if (include_stop && v != kNoVertex && v == to) bytes += additional_sequence(v);
  return bytes;
}

}  // namespace gpp::stages::call
