// Recovery of dangling heads and tails in the read-threading graph (GATK
// AbstractReadThreadingGraph.recoverDanglingTails / recoverDanglingHeads and their helpers:
// findPath, getReferencePath, getBasesForPath, cigarIsOkayToMerge, mergeDanglingTail,
// mergeDanglingHead, mergeDanglingHeadLegacy, bestPrefixMatch(Legacy),
// extendDanglingPathAgainstReference, longestSuffixMatch).
//
// A dangling tail is a non-reference sink: its branch is followed upwards to where it left
// another path, aligned (Smith-Waterman, see dangling_end_aligner.hpp) to the path below that
// point, and joined back by one edge where its suffix matches. Heads mirror this upwards.
#include <algorithm>
#include <deque>
#include <string>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/read_threading_graph.hpp"

namespace gpp::stages::call {

namespace {

constexpr std::size_t kMaxCigarComplexity = 3;

std::vector<std::uint32_t> remove_trailing_deletion(std::vector<std::uint32_t> cigar) {
  if (!cigar.empty() && cigar_op(cigar.back()) == CigarOp::kDeletion) cigar.pop_back();
  return cigar;
}

int cigar_read_length(std::span<const std::uint32_t> cigar) {
  return static_cast<int>(cigar_query_length(cigar));
}
int cigar_ref_length(std::span<const std::uint32_t> cigar) {
  return static_cast<int>(cigar_reference_length(cigar));
}

void require_arguments(bool built, int prune_factor, int min_length) {
  if (prune_factor < 0) throw Error("dangling recovery: pruneFactor must be non-negative");
  if (min_length < 0) throw Error("dangling recovery: minDanglingBranchLength must be >= 0");
  if (!built) throw Error("dangling recovery requires the graph be already built");
}

}  // namespace

bool ReadThreadingGraph::cigar_is_okay_to_merge(std::span<const std::uint32_t> cigar,
                                                bool require_first_element_m,
                                                bool require_last_element_m) {
  if (cigar.empty() || cigar.size() > kMaxCigarComplexity) return false;
  if (require_first_element_m && cigar_op(cigar.front()) != CigarOp::kMatch) return false;
  if (require_last_element_m && cigar_op(cigar.back()) != CigarOp::kMatch) return false;
  return true;
}

int ReadThreadingGraph::longest_suffix_match(std::string_view seq, std::string_view kmer,
                                             int seq_start) {
  const int kmer_length = static_cast<int>(kmer.size());
  for (int len = 1; len <= kmer_length; ++len) {
    const int seq_i = seq_start - len + 1;
    if (seq_i < 0 || seq[seq_i] != kmer[kmer_length - len]) return len - 1;
  }
  return kmer_length;
}

std::string ReadThreadingGraph::bases_for_path(std::span<const VertexId> path,
                                               bool expand_source) const {
  std::string bases;
  for (VertexId v : path) {
    if (expand_source && is_source(v)) {
      bases.append(sequence(v).rbegin(), sequence(v).rend());
    } else {
      bases += sequence(v).back();
    }
  }
  return bases;
}

bool ReadThreadingGraph::has_incident_ref_edge(VertexId v) const {
  for (EdgeId e : incoming_edges(v)) {
    if (edge(e).is_ref()) return true;
  }
  return false;
}

EdgeId ReadThreadingGraph::heaviest_incoming_edge(VertexId v) const {
  // Stream.max keeps the first of equal maxima.
  EdgeId best = kNoEdge;
  for (EdgeId e : incoming_edges(v)) {
    if (best == kNoEdge || edge(e).multiplicity() > edge(best).multiplicity()) best = e;
  }
  return best;
}

EdgeId ReadThreadingGraph::heaviest_outgoing_edge(VertexId v) const {
  EdgeId best = kNoEdge;
  for (EdgeId e : outgoing_edges(v)) {
    if (best == kNoEdge || edge(e).multiplicity() > edge(best).multiplicity()) best = e;
  }
  return best;
}

// GATK findPath: walks from v until `done`, dropping the path so far whenever an edge's pruning
// multiplicity is below the prune factor; null on a loop or if the end fails `return_path`.
template <typename Done, typename ReturnPath, typename NextEdge, typename NextNode>
static std::optional<std::vector<VertexId>> find_path(const BaseGraph& graph, VertexId vertex,
                                                      int prune_factor, Done done,
                                                      ReturnPath return_path, NextEdge next_edge,
                                                      NextNode next_node) {
  std::deque<VertexId> path;
  std::vector<char> in_path(graph.vertex_capacity(), 0);
  std::vector<char> visited(graph.vertex_capacity(), 0);
  VertexId v = vertex;
  while (!done(v)) {
    const EdgeId e = next_edge(v);
    if (graph.edge(e).pruning_multiplicity() < prune_factor) {
      for (VertexId p : path) {
        visited[p] = 1;
        in_path[p] = 0;
      }
      path.clear();
    } else {
      path.push_front(v);
      in_path[v] = 1;
    }
    v = next_node(e);
    if (in_path[v] || visited[v]) return std::nullopt;  // "Dangling End recovery killed ..."
  }
  path.push_front(v);
  if (!return_path(v)) return std::nullopt;
  return std::vector<VertexId>(path.begin(), path.end());
}

std::optional<std::vector<VertexId>>
ReadThreadingGraph::find_path_upwards_to_lowest_common_ancestor(VertexId v, int prune_factor,
                                                                bool give_up_at_branch) const {
  const auto source = [this](EdgeId e) { return edge_source(e); };
  if (give_up_at_branch) {
    return find_path(
        *this, v, prune_factor,
        [this](VertexId x) { return in_degree(x) != 1 || out_degree(x) >= 2; },
        [this](VertexId x) { return out_degree(x) > 1; },
        [this](VertexId x) { return incoming_edge_of(x); }, source);
  }
  return find_path(
      *this, v, prune_factor,
      [this](VertexId x) { return has_incident_ref_edge(x) || in_degree(x) == 0; },
      [this](VertexId x) { return out_degree(x) > 1 && has_incident_ref_edge(x); },
      [this](VertexId x) { return heaviest_incoming_edge(x); }, source);
}

std::optional<std::vector<VertexId>>
ReadThreadingGraph::find_path_downwards_to_highest_common_descendant(VertexId v, int prune_factor,
                                                                     bool give_up_at_branch) const {
  const auto target = [this](EdgeId e) { return edge_target(e); };
  const auto is_ref = [this](VertexId x) { return is_reference_node(x); };
  if (give_up_at_branch) {
    return find_path(
        *this, v, prune_factor,
        [this](VertexId x) { return is_reference_node(x) || out_degree(x) != 1; }, is_ref,
        [this](VertexId x) { return outgoing_edge_of(x); }, target);
  }
  return find_path(
      *this, v, prune_factor,
      [this](VertexId x) { return is_reference_node(x) || out_degree(x) == 0; }, is_ref,
      [this](VertexId x) { return heaviest_outgoing_edge(x); }, target);
}

std::vector<VertexId> ReadThreadingGraph::reference_path_from(VertexId start, bool downwards,
                                                              EdgeId blacklisted) const {
  std::vector<VertexId> path;
  for (VertexId v = start; v != kNoVertex;
       v = downwards ? next_reference_vertex(v, true, blacklisted) : prev_reference_vertex(v)) {
    if (path.size() > vertex_count()) throw Error("dangling recovery: the reference path loops");
    path.push_back(v);
  }
  return path;
}

std::optional<DanglingChainMergeHelper>
ReadThreadingGraph::generate_cigar_against_downwards_reference_path(
    VertexId vertex, int prune_factor, int min_dangling_branch_length, bool recover_all,
    const DanglingEndAligner& aligner) {
  const int min_tail_path_length = std::max(1, min_dangling_branch_length);
  auto alt_path = find_path_upwards_to_lowest_common_ancestor(vertex, prune_factor, !recover_all);
  if (!alt_path || is_ref_source(alt_path->front()) ||
      static_cast<int>(alt_path->size()) < min_tail_path_length + 1) {
    return std::nullopt;
  }
  auto ref_path =
      reference_path_from(alt_path->front(), true, heaviest_incoming_edge((*alt_path)[1]));
  DanglingChainMergeHelper helper;
  helper.reference_path_string = bases_for_path(ref_path, false);
  helper.dangling_path_string = bases_for_path(*alt_path, false);
  helper.cigar =
      remove_trailing_deletion(aligner(helper.reference_path_string, helper.dangling_path_string));
  helper.dangling_path = std::move(*alt_path);
  helper.reference_path = std::move(ref_path);
  return helper;
}

std::optional<DanglingChainMergeHelper>
ReadThreadingGraph::generate_cigar_against_upwards_reference_path(
    VertexId vertex, int prune_factor, int min_dangling_branch_length, bool recover_all,
    const DanglingEndAligner& aligner) {
  auto alt_path =
      find_path_downwards_to_highest_common_descendant(vertex, prune_factor, !recover_all);
  if (!alt_path || is_ref_sink(alt_path->front()) ||
      static_cast<int>(alt_path->size()) < min_dangling_branch_length + 1) {
    return std::nullopt;
  }
  auto ref_path = reference_path_from(alt_path->front(), false, kNoEdge);
  DanglingChainMergeHelper helper;
  helper.reference_path_string = bases_for_path(ref_path, true);
  helper.dangling_path_string = bases_for_path(*alt_path, true);
  helper.cigar =
      remove_trailing_deletion(aligner(helper.reference_path_string, helper.dangling_path_string));
  helper.dangling_path = std::move(*alt_path);
  helper.reference_path = std::move(ref_path);
  return helper;
}

int ReadThreadingGraph::recover_dangling_tails(int prune_factor, int min_dangling_branch_length,
                                               bool recover_all,
                                               const DanglingEndAligner& aligner) {
  require_arguments(built_, prune_factor, min_dangling_branch_length);
  int recovered = 0;
  // Tail merges only add edges, so walking the live vertex set in order is GATK's loop.
  for (VertexId v = 0; v < vertex_capacity(); ++v) {
    if (contains_vertex(v) && out_degree(v) == 0 && !is_ref_sink(v)) {
      recovered +=
          recover_dangling_tail(v, prune_factor, min_dangling_branch_length, recover_all, aligner);
    }
  }
  return recovered;
}

int ReadThreadingGraph::recover_dangling_heads(int prune_factor, int min_dangling_branch_length,
                                               bool recover_all,
                                               const DanglingEndAligner& aligner) {
  require_arguments(built_, prune_factor, min_dangling_branch_length);
  std::vector<VertexId> dangling_heads;
  for (VertexId v : live_vertices()) {
    if (in_degree(v) == 0 && !is_ref_source(v)) dangling_heads.push_back(v);
  }
  int recovered = 0;
  for (VertexId v : dangling_heads) {
    recovered +=
        recover_dangling_head(v, prune_factor, min_dangling_branch_length, recover_all, aligner);
  }
  return recovered;
}

int ReadThreadingGraph::recover_dangling_tail(VertexId v, int prune_factor, int min_length,
                                              bool recover_all, const DanglingEndAligner& aligner) {
  if (out_degree(v) != 0) throw Error("dangling recovery: a dangling tail has out-degree > 0");
  const auto helper = generate_cigar_against_downwards_reference_path(v, prune_factor, min_length,
                                                                      recover_all, aligner);
  if (!helper || !cigar_is_okay_to_merge(helper->cigar, false, true)) return 0;
  return merge_dangling_tail(*helper);
}

int ReadThreadingGraph::recover_dangling_head(VertexId v, int prune_factor, int min_length,
                                              bool recover_all, const DanglingEndAligner& aligner) {
  if (in_degree(v) != 0) throw Error("dangling recovery: a dangling head has in-degree > 0");
  auto helper = generate_cigar_against_upwards_reference_path(v, prune_factor, min_length,
                                                              recover_all, aligner);
  if (!helper || !cigar_is_okay_to_merge(helper->cigar, true, false)) return 0;
  return min_matching_bases_ >= 0 ? merge_dangling_head(*helper)
                                  : merge_dangling_head_legacy(*helper);
}

int ReadThreadingGraph::merge_dangling_tail(const DanglingChainMergeHelper& helper) {
  const auto& cigar = helper.cigar;
  if (cigar.empty() || cigar_op(cigar.back()) != CigarOp::kMatch) {
    throw Error("dangling recovery: the last Cigar element must be an M");
  }
  const int last_ref_index = cigar_ref_length(cigar) - 1;
  const int matching_suffix =
      std::min(longest_suffix_match(helper.reference_path_string, helper.dangling_path_string,
                                    last_ref_index),
               static_cast<int>(cigar_length(cigar.back())));
  if (min_matching_bases_ >= 0 ? matching_suffix < min_matching_bases_ : matching_suffix == 0) {
    return 0;
  }
  const int alt_index_to_merge = std::max(cigar_read_length(cigar) - matching_suffix - 1, 0);
  // A left-aligned deletion that swallowed the common ancestor: merge one reference vertex on.
  const bool leading_deletion =
      cigar_op(cigar.front()) == CigarOp::kDeletion &&
      static_cast<int>(cigar_length(cigar.front())) + matching_suffix == last_ref_index + 1;
  const int ref_index_to_merge = last_ref_index - matching_suffix + 1 + (leading_deletion ? 1 : 0);
  // The whole tail in an insertion would merge back into the ancestor and make a cycle.
  if (ref_index_to_merge == 0) return 0;
  add_edge(helper.dangling_path[alt_index_to_merge], helper.reference_path[ref_index_to_merge],
           new_edge(false, 1));
  return 1;
}

}  // namespace gpp::stages::call
