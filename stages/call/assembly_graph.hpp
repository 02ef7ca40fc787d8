// The directed graph of HaplotypeCaller's local assembly (GATK graphs/BaseGraph on JGraphT's
// DefaultDirectedGraph, with graphs/BaseEdge, graphs/MultiSampleEdge, graphs/SeqVertex and
// readthreading/MultiDeBruijnVertex).
//
// GATK's results depend on JGraphT's iteration orders, so this graph reproduces them: the vertex
// set, the edge set and each vertex's incoming and outgoing edge lists iterate in insertion order
// (removals keep the order of the rest). Vertex and edge ids grow with every insertion, so
// "ascending id among live elements" is that order. Like DefaultDirectedGraph, the graph holds at
// most one edge from u to v (self-loops allowed): adding a second one does nothing.
//
// Vertices are identified by id, never by sequence (SeqVertex and MultiDeBruijnVertex compare by
// identity). A kmer graph's vertex adds only its last base to a path unless it is a source
// (MultiDeBruijnVertex.getAdditionalSequence); a sequence graph's vertex adds all of its bases.
//
// @code
//   BaseGraph g(11, VertexKind::kSequence);
//   VertexId a = g.add_vertex("A"), c = g.add_vertex("C");
//   g.add_edge(a, c, AssemblyEdge(true, 1));
//   g.reference_source_vertex() == a;  g.reference_bytes(a, c, true, true) == "AC";
// @endcode
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpp::stages::call {

using VertexId = std::uint32_t;
using EdgeId = std::uint32_t;
inline constexpr VertexId kNoVertex = std::numeric_limits<VertexId>::max();
inline constexpr EdgeId kNoEdge = std::numeric_limits<EdgeId>::max();

/// An edge's weight and reference flag (GATK BaseEdge), optionally with MultiSampleEdge's
/// per-sample bookkeeping: the pruning multiplicity is then the smallest of the largest
/// `single_sample_capacity` per-sample counts seen so far.
class AssemblyEdge {
 public:
  /// A plain BaseEdge. @throws gpp::Error if multiplicity < 0.
  AssemblyEdge(bool is_ref, int multiplicity);
  /// A MultiSampleEdge tracking `single_sample_capacity` (> 0) samples.
  static AssemblyEdge multi_sample(bool is_ref, int multiplicity, int single_sample_capacity);

  int multiplicity() const { return multiplicity_; }
  bool is_ref() const { return is_ref_; }
  void set_multiplicity(int value) { multiplicity_ = value; }
  void set_is_ref(bool is_ref) { is_ref_ = is_ref; }
  /// Adds incr (>= 0) to the multiplicity and to the current sample's count.
  void inc_multiplicity(int incr) {
    if (incr < 0) throw_negative_increment(incr);
    multiplicity_ += incr;
    if (single_sample_capacity_ > 0) current_sample_multiplicity_ += incr;
  }
  /// The multiplicity pruning compares with (BaseEdge: the multiplicity).
  int pruning_multiplicity() const;
  /// MultiSampleEdge.flushSingleSampleMultiplicity: closes the current sample's count.
  void flush_single_sample_multiplicity();
  int current_single_sample_multiplicity() const { return current_sample_multiplicity_; }
  /// GATK copy(): same class, same isRef and multiplicity, fresh per-sample state.
  AssemblyEdge copy() const;
  /// BaseEdge.add: sums multiplicities and ORs the reference flags.
  AssemblyEdge& add(const AssemblyEdge& other);

 private:
  [[noreturn]] static void throw_negative_increment(int incr);

  /// Capacities up to this keep their per-sample counts inline (no allocation per edge).
  static constexpr int kInlineSamples = 3;

  int multiplicity_ = 0;
  bool is_ref_ = false;
  std::uint8_t top_inline_count_ = 0;
  int single_sample_capacity_ = 0;  ///< 0: a plain BaseEdge
  int current_sample_multiplicity_ = 0;
  // The largest per-sample counts, ascending (Java's PriorityQueue content): inline for
  // capacities up to kInlineSamples (room for one more while inserting), else in the vector.
  std::array<int, kInlineSamples + 1> top_inline_{};
  std::vector<int> top_overflow_;
};

/// A vertex's incoming or outgoing edge ids, in insertion order: up to two inline (most vertices
/// of an assembly graph have one edge each way), more in a vector.
class EdgeList {
 public:
  std::size_t size() const { return spilled() ? overflow_.size() : inline_size_; }
  bool empty() const { return size() == 0; }
  const EdgeId* data() const { return spilled() ? overflow_.data() : inline_.data(); }
  const EdgeId* begin() const { return data(); }
  const EdgeId* end() const { return data() + size(); }
  EdgeId front() const { return *data(); }
  EdgeId operator[](std::size_t i) const { return data()[i]; }
  operator std::span<const EdgeId>() const { return {data(), size()}; }
  void push_back(EdgeId e) {
    if (!spilled() && inline_size_ < kInline) {
      inline_[inline_size_++] = e;
      return;
    }
    if (!spilled()) {
      overflow_.reserve(2 * kInline);
      overflow_.assign(inline_.begin(), inline_.begin() + inline_size_);
      inline_size_ = 0;
    }
    overflow_.push_back(e);
  }
  /// Removes the first occurrence of e (order of the rest kept).
  void erase(EdgeId e);

 private:
  static constexpr std::uint32_t kInline = 2;
  bool spilled() const { return !overflow_.empty(); }
  std::array<EdgeId, kInline> inline_{};
  std::uint32_t inline_size_ = 0;
  std::vector<EdgeId> overflow_;  ///< all the ids once more than kInline were held
};

/// What a vertex adds to a path: its last base unless it is a source (kKmer), or all its bases.
enum class VertexKind { kKmer, kSequence };

class BaseGraph {
 public:
  /// @param default_edge_sample_capacity 0: add_edge(u, v) creates BaseEdge(false, 1); n > 0:
  ///        MultiSampleEdge(false, 1, n) (ReadThreadingGraph's edge factory).
  /// @throws gpp::Error if kmer_size <= 0.
  BaseGraph(int kmer_size, VertexKind kind, int default_edge_sample_capacity = 0);
  virtual ~BaseGraph() = default;
  BaseGraph(const BaseGraph&) = default;
  BaseGraph& operator=(const BaseGraph&) = default;
  BaseGraph(BaseGraph&&) noexcept = default;
  BaseGraph& operator=(BaseGraph&&) noexcept = default;

  int kmer_size() const { return kmer_size_; }
  VertexKind vertex_kind() const { return kind_; }

  // ---- structure (JGraphT DefaultDirectedGraph) ----
  /// Room for this many vertices and edges in all (ids and orders are unaffected).
  void reserve(std::size_t vertices, std::size_t edges) {
    vertices_.reserve(vertices);
    last_bases_.reserve(vertices);
    edges_.reserve(edges);
  }
  VertexId add_vertex(std::string sequence);
  /// Adds an edge made by the graph's edge factory; kNoEdge if u -> v already exists.
  /// @throws gpp::Error if u or v is not in the graph.
  EdgeId add_edge(VertexId u, VertexId v);
  /// Adds `edge` from u to v; kNoEdge (nothing added) if u -> v already exists.
  EdgeId add_edge(VertexId u, VertexId v, const AssemblyEdge& edge);
  /// Adds `edge` to an existing u -> v edge (BaseEdge.add), or adds it.
  void add_or_update_edge(VertexId u, VertexId v, const AssemblyEdge& edge);
  bool remove_edge(EdgeId e);
  bool remove_edge(VertexId u, VertexId v);
  /// Removes v and its edges; false if v is not in the graph.
  virtual bool remove_vertex(VertexId v);
  void remove_all_vertices(std::span<const VertexId> vertices);
  void remove_all_edges(std::span<const EdgeId> edges);

  bool contains_vertex(VertexId v) const { return v < vertices_.size() && vertices_[v].alive; }
  bool contains_edge(EdgeId e) const { return e < edges_.size() && edges_[e].alive; }
  std::size_t vertex_count() const { return live_vertices_; }
  std::size_t edge_count() const { return live_edges_; }
  /// Live vertex ids in insertion order, read in place: the graph must not change while they
  /// are iterated (vertex_set() copies them for loops that edit the graph).
  class LiveVertices {
   public:
    class iterator {
     public:
      iterator(const BaseGraph* graph, VertexId v) : graph_(graph), v_(v) { skip_dead(); }
      VertexId operator*() const { return v_; }
      iterator& operator++() {
        ++v_;
        skip_dead();
        return *this;
      }
      bool operator==(const iterator& other) const { return v_ == other.v_; }

     private:
      void skip_dead() {
        while (v_ < graph_->vertices_.size() && !graph_->vertices_[v_].alive) ++v_;
      }
      const BaseGraph* graph_;
      VertexId v_;
    };
    explicit LiveVertices(const BaseGraph* graph) : graph_(graph) {}
    iterator begin() const { return {graph_, 0}; }
    iterator end() const { return {graph_, static_cast<VertexId>(graph_->vertices_.size())}; }

   private:
    const BaseGraph* graph_;
  };
  LiveVertices live_vertices() const { return LiveVertices(this); }
  /// Live vertices / edges in insertion order.
  std::vector<VertexId> vertex_set() const;
  std::vector<EdgeId> edge_set() const;
  /// Upper bound of ids handed out so far (for arrays indexed by id).
  std::size_t vertex_capacity() const { return vertices_.size(); }
  std::size_t edge_capacity() const { return edges_.size(); }

  std::span<const EdgeId> incoming_edges(VertexId v) const { return vertices_[v].in; }
  std::span<const EdgeId> outgoing_edges(VertexId v) const { return vertices_[v].out; }
  std::size_t in_degree(VertexId v) const { return vertices_[v].in.size(); }
  std::size_t out_degree(VertexId v) const { return vertices_[v].out.size(); }
  VertexId edge_source(EdgeId e) const { return edges_[e].source; }
  VertexId edge_target(EdgeId e) const { return edges_[e].target; }
  AssemblyEdge& edge(EdgeId e) { return edges_[e].data; }
  const AssemblyEdge& edge(EdgeId e) const { return edges_[e].data; }
  /// The u -> v edge, or kNoEdge.
  EdgeId get_edge(VertexId u, VertexId v) const;
  /// The single incoming / outgoing edge, kNoEdge if none. @throws gpp::Error if several.
  EdgeId incoming_edge_of(VertexId v) const;
  EdgeId outgoing_edge_of(VertexId v) const;
  /// Targets of v's outgoing edges / sources of its incoming edges, in edge order.
  std::vector<VertexId> outgoing_vertices(VertexId v) const;
  std::vector<VertexId> incoming_vertices(VertexId v) const;

  const std::string& sequence(VertexId v) const { return vertices_[v].sequence; }
  /// The last base of v's sequence ('\0' if empty), read without touching the sequence.
  char last_base(VertexId v) const { return last_bases_[v]; }
  /// The bases v adds to a path; `as_source` as if v had no incoming edge.
  std::string_view additional_sequence(VertexId v, bool as_source) const;
  std::string_view additional_sequence(VertexId v) const {
    return additional_sequence(v, is_source(v));
  }

  // ---- reference path (BaseGraph) ----
  bool is_source(VertexId v) const { return in_degree(v) == 0; }
  bool is_sink(VertexId v) const { return out_degree(v) == 0; }
  std::vector<VertexId> sources() const;
  std::vector<VertexId> sinks() const;
  bool is_reference_node(VertexId v) const;
  bool is_ref_source(VertexId v) const;
  bool is_ref_sink(VertexId v) const;
  /// First vertex (insertion order) that is a reference source / sink, or kNoVertex.
  VertexId reference_source_vertex() const;
  VertexId reference_sink_vertex() const;
  /// Target of v's reference edge; else, if allow_non_ref_paths, the target of its only
  /// outgoing edge other than `blacklisted` (kNoEdge: none); else kNoVertex.
  VertexId next_reference_vertex(VertexId v, bool allow_non_ref_paths = false,
                                 EdgeId blacklisted = kNoEdge) const;
  /// The first incoming vertex that is a reference node, or kNoVertex.
  VertexId prev_reference_vertex(VertexId v) const;
  /// Bases along the reference path from `from` to `to` (BaseGraph.getReferenceBytes).
  std::string reference_bytes(VertexId from, VertexId to, bool include_start,
                              bool include_stop) const;

  // ---- clean-up (BaseGraph) ----
  /// Removes non-reference edges before the reference source and after the sink.
  void clean_non_ref_paths();
  /// Removes vertices with no edges, except a reference source.
  virtual void remove_singleton_orphan_vertices();
  /// Keeps only vertices connected to the reference source by edges in either direction.
  void remove_vertices_not_connected_to_ref_regardless_of_edge_direction();
  /// Keeps only vertices on a path from the reference source to the reference sink.
  /// @throws gpp::Error without a reference source or sink (GATK IllegalStateException).
  void remove_paths_not_connected_to_ref();
  /// JGraphT CycleDetector.detectCycles (self-loops count).
  bool has_cycles() const;
  /// GATK BaseGraph.graphEquals: same counts, and every vertex / edge of each graph has one of
  /// the same sequence(s) in the other.
  static bool graph_equals(const BaseGraph& g1, const BaseGraph& g2);

 private:
  struct VertexSlot {
    explicit VertexSlot(std::string bases) : sequence(std::move(bases)) {}
    std::string sequence;
    EdgeList in;
    EdgeList out;
    bool alive = true;
  };
  struct EdgeSlot {
    AssemblyEdge data;
    VertexId source;
    VertexId target;
    bool alive = true;
  };
  void require_vertex(VertexId v) const;
  std::vector<char> reachable(VertexId start, bool follow_incoming, bool follow_outgoing) const;

  int kmer_size_;
  VertexKind kind_;
  int default_edge_sample_capacity_;
  std::vector<VertexSlot> vertices_;
  std::vector<char> last_bases_;  ///< by vertex id (extending a read's path compares them)
  std::vector<EdgeSlot> edges_;
  std::size_t live_vertices_ = 0;
  std::size_t live_edges_ = 0;
};

}  // namespace gpp::stages::call
