// Joining an aligned dangling head back to the reference path (GATK AbstractReadThreadingGraph
// .mergeDanglingHead, mergeDanglingHeadLegacy, bestPrefixMatch, bestPrefixMatchLegacy,
// getMaxMismatchesLegacy and extendDanglingPathAgainstReference).
//
// Both paths run upwards from their shared vertex, so index 0 of each string is that vertex and
// later indices go towards the sources.
#include <algorithm>
#include <string>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/read_threading_graph.hpp"

namespace gpp::stages::call {

std::pair<int, int> ReadThreadingGraph::best_prefix_match(std::span<const std::uint32_t> cigar,
                                                          std::string_view path1,
                                                          std::string_view path2) const {
  int ref_index = static_cast<int>(cigar_reference_length(cigar)) - 1;
  int read_index = static_cast<int>(path2.size()) - 1;
  // Walk back through the trailing M elements while the bases agree.
  bool mismatch = false;
  for (auto it = cigar.rbegin(); it != cigar.rend() && !mismatch; ++it) {
    const CigarOp op = cigar_op(*it);
    if (!(consumes_query(op) && consumes_reference(op))) break;
    for (std::uint32_t j = 0; j < cigar_length(*it); ++j, --ref_index, --read_index) {
      if (path1[ref_index] != path2[read_index]) {
        mismatch = true;
        break;
      }
    }
  }
  const int matches = static_cast<int>(path2.size()) - 1 - read_index;
  return matches < min_matching_bases_ ? std::pair{-1, -1} : std::pair{ref_index, read_index};
}

int ReadThreadingGraph::best_prefix_match_legacy(std::string_view path1, std::string_view path2,
                                                 int max_index) const {
  // getMaxMismatchesLegacy: preset (tests) or one per k bases of the branch, at least one.
  const int max_mismatches = max_mismatches_in_dangling_head_ > 0
                                 ? max_mismatches_in_dangling_head_
                                 : std::max(1, max_index / kmer_size());
  int mismatches = 0;
  int last_good_index = -1;
  for (int index = 0; index < max_index; ++index) {
    if (path1[index] != path2[index]) {
      if (++mismatches > max_mismatches) return -1;
      last_good_index = index;
    }
  }
  return last_good_index;
}

bool ReadThreadingGraph::extend_dangling_path_against_reference(
    DanglingChainMergeHelper& helper, int num_nodes_to_extend,
    std::span<const std::uint32_t> cigar) {
  const int last_dangling_index = static_cast<int>(helper.dangling_path.size()) - 1;
  int ref_minus_read = 0;
  for (std::uint32_t element : cigar) {
    const CigarOp op = cigar_op(element);
    const int length = static_cast<int>(cigar_length(element));
    ref_minus_read += (consumes_reference(op) ? length : 0) - (consumes_query(op) ? length : 0);
  }
  const int ref_node_index = last_dangling_index + ref_minus_read + num_nodes_to_extend;
  if (ref_node_index >= static_cast<int>(helper.reference_path.size())) return false;
  if (ref_node_index < 0) throw Error("dangling recovery: no reference vertex to extend from");

  const std::string& ref_node_sequence = sequence(helper.reference_path[ref_node_index]);
  if (num_nodes_to_extend > static_cast<int>(ref_node_sequence.size())) {
    throw Error("dangling recovery: cannot extend a dangling head past a reference k-mer");
  }
  const VertexId dangling_source = helper.dangling_path.back();
  helper.dangling_path.pop_back();
  const std::string to_extend =
      ref_node_sequence.substr(0, num_nodes_to_extend) + sequence(dangling_source);

  // Replace the source by num_nodes_to_extend new vertices reaching further up the reference.
  const EdgeId source_edge = heaviest_outgoing_edge(dangling_source);
  const int source_multiplicity = edge(source_edge).multiplicity();
  VertexId prev = edge_target(source_edge);
  remove_edge(dangling_source, prev);
  for (int i = num_nodes_to_extend; i > 0; --i) {
    const VertexId new_vertex = add_vertex(to_extend.substr(i, kmer_size()));
    const EdgeId new_edge_id = add_edge(new_vertex, prev);
    edge(new_edge_id).set_multiplicity(source_multiplicity);
    helper.dangling_path.push_back(new_vertex);
    prev = new_vertex;
  }
  return true;
}

int ReadThreadingGraph::merge_dangling_head(DanglingChainMergeHelper& helper) {
  const auto& cigar = helper.cigar;
  if (cigar.empty() || cigar_op(cigar.front()) != CigarOp::kMatch) {
    throw Error("dangling recovery: the first Cigar element must be an M");
  }
  const auto [ref_index, dangling_index] =
      best_prefix_match(cigar, helper.reference_path_string, helper.dangling_path_string);
  if (ref_index <= 0 || dangling_index <= 0) return 0;
  // The reference path cannot be pushed back, but the dangling path can be extended.
  if (ref_index >= static_cast<int>(helper.reference_path.size()) - 1) return 0;
  const int dangling_size = static_cast<int>(helper.dangling_path.size());
  if (dangling_index >= dangling_size &&
      !extend_dangling_path_against_reference(helper, dangling_index - dangling_size + 2, cigar)) {
    return 0;
  }
  add_edge(helper.reference_path[ref_index + 1], helper.dangling_path[dangling_index],
           new_edge(false, 1));
  return 1;
}

int ReadThreadingGraph::merge_dangling_head_legacy(DanglingChainMergeHelper& helper) {
  const auto& cigar = helper.cigar;
  if (cigar.empty() || cigar_op(cigar.front()) != CigarOp::kMatch) {
    throw Error("dangling recovery: the first Cigar element must be an M");
  }
  const int index_to_merge =
      best_prefix_match_legacy(helper.reference_path_string, helper.dangling_path_string,
                               static_cast<int>(cigar_length(cigar.front())));
  if (index_to_merge <= 0) return 0;
  if (index_to_merge >= static_cast<int>(helper.reference_path.size()) - 1) return 0;
  const int dangling_size = static_cast<int>(helper.dangling_path.size());
  if (index_to_merge >= dangling_size &&
      !extend_dangling_path_against_reference(helper, index_to_merge - dangling_size + 2, cigar)) {
    return 0;
  }
  add_edge(helper.reference_path[index_to_merge + 1], helper.dangling_path[index_to_merge],
           new_edge(false, 1));
  return 1;
}

}  // namespace gpp::stages::call
