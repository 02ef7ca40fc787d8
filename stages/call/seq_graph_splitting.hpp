// Splitting and merging shared sequence among sibling vertices of a sequence graph (GATK
// graphs/SharedVertexSequenceSplitter, CommonSuffixSplitter, SharedSequenceMerger, GraphUtils).
//
//  - SharedVertexSequenceSplitter: vertices V_i = prefix + s_i + suffix become
//    prefix -> s_i -> suffix (empty s_i become a direct prefix -> suffix edge), relinked to a
//    top and/or bottom vertex;
//  - CommonSuffixSplitter: the incoming vertices of v that share a suffix each get a copy of it;
//  - SharedSequenceMerger: incoming vertices of v with equal sequences merge into v.
//
// @code
//   // A -> {ACT, AGT} -> T (diamond): prefix "A", suffix "T", middles "C" and "G"
//   SharedVertexSequenceSplitter s(graph, {act, agt});
//   s.split_and_update(top, bottom);
// @endcode
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stages/call/seq_graph.hpp"

namespace gpp::stages::call {

/// GraphUtils.commonMaximumPrefixLength: bases shared at the start of all sequences.
int common_maximum_prefix_length(std::span<const std::string_view> sequences);
/// GraphUtils.commonMaximumSuffixLength, looking at most min_length bases back.
int common_maximum_suffix_length(std::span<const std::string_view> sequences, int min_length);
/// SharedVertexSequenceSplitter.commonPrefixAndSuffixOfVertices: (prefix, suffix), the suffix
/// taken from what the prefix leaves of the shortest sequence.
std::pair<std::string, std::string> common_prefix_and_suffix(
    std::span<const std::string_view> sequences);

class SharedVertexSequenceSplitter {
 public:
  /// @throws gpp::Error with fewer than two vertices or vertices not in the graph
  SharedVertexSequenceSplitter(SeqGraph& graph, std::vector<VertexId> to_split);

  const std::string& prefix() const { return prefix_; }
  const std::string& suffix() const { return suffix_; }
  bool meets_min_mergable_sequence_for_prefix(int min_common) const {
    return static_cast<int>(prefix_.size()) >= min_common;
  }
  bool meets_min_mergable_sequence_for_suffix(int min_common) const {
    return static_cast<int>(suffix_.size()) >= min_common;
  }
  bool meets_min_mergable_sequence_for_either_prefix_or_suffix(int min_common) const {
    return meets_min_mergable_sequence_for_prefix(min_common) ||
           meets_min_mergable_sequence_for_suffix(min_common);
  }
  /// split() then update_graph(top, bottom); true. kNoVertex stands for GATK's null.
  bool split_and_update(VertexId top, VertexId bottom);
  /// Builds the split subgraph (prefix vertex, middles, suffix vertex).
  void split();
  /// Replaces the split vertices in the graph by the split subgraph, linked to top / bottom.
  /// @throws gpp::Error if split() was not called or neither top nor bottom is given
  void update_graph(VertexId top, VertexId bottom);

  // The split subgraph, for tests.
  const SeqGraph& split_graph() const { return *split_graph_; }
  VertexId split_prefix_vertex() const { return split_prefix_; }
  VertexId split_suffix_vertex() const { return split_suffix_; }
  const std::vector<VertexId>& new_middles() const { return new_middles_; }

 private:
  AssemblyEdge edge_to_remove(VertexId v, EdgeId e);

  SeqGraph& outer_;
  std::vector<VertexId> to_split_;
  std::string prefix_;
  std::string suffix_;
  std::optional<SeqGraph> split_graph_;
  VertexId split_prefix_ = kNoVertex;
  VertexId split_suffix_ = kNoVertex;
  std::vector<VertexId> new_middles_;    ///< ids in the split subgraph
  std::vector<EdgeId> edges_to_remove_;  ///< ids in the outer graph
};

/// CommonSuffixSplitter.split: true if v's incoming vertices were split.
bool split_common_suffix(SeqGraph& graph, VertexId v);
/// SharedSequenceMerger.merge: true if v's incoming vertices were merged into it.
bool merge_shared_sequence(SeqGraph& graph, VertexId v);

}  // namespace gpp::stages::call
