// Building the read-threading graph (GATK AbstractReadThreadingGraph.addSequence, addRead,
// buildGraphIfNecessary, threadSequence, extendChainByOne, increaseCountsInMatchedKmers and
// ReadThreadingGraph's non-unique k-mer rules); see read_threading_graph.hpp.
#include "stages/call/read_threading_graph.hpp"

#include <string>
#include <unordered_set>

#include "core/error.hpp"

namespace gpp::stages::call {

ReadThreadingGraph::ReadThreadingGraph(int kmer_size, std::uint8_t min_base_quality,
                                       int num_pruning_samples,
                                       int min_matching_bases_for_dangling_end_recovery)
    : BaseGraph(kmer_size, VertexKind::kKmer, num_pruning_samples),
      min_base_quality_(min_base_quality),
      num_pruning_samples_(num_pruning_samples),
      min_matching_bases_(min_matching_bases_for_dangling_end_recovery) {}

AssemblyEdge ReadThreadingGraph::new_edge(bool is_ref, int multiplicity) const {
  return AssemblyEdge::multi_sample(is_ref, multiplicity, num_pruning_samples_);
}

void ReadThreadingGraph::add_sequence(std::string_view bases, bool is_ref) {
  add_sequence(bases, 0, static_cast<int>(bases.size()), 1, is_ref, kAnonymousSample);
}

void ReadThreadingGraph::add_sequence(std::string_view bases, int start, int stop, int count,
                                      bool is_ref, std::int64_t sample) {
  if (built_) throw Error("read threading: attempting to add sequence to a built graph");
  if (start < 0 || stop < start || stop > static_cast<int>(bases.size()) || count <= 0) {
    throw Error("read threading: invalid sequence range or count");
  }
  PendingSample* target = nullptr;
  for (PendingSample& p : pending_) {
    if (p.sample == sample) target = &p;
  }
  if (target == nullptr) target = &pending_.emplace_back(PendingSample{sample, {}});
  target->sequences.push_back(
      SequenceForKmers{std::string(bases.substr(0, stop)), start, stop, count, is_ref});
}

void ReadThreadingGraph::add_read(std::string_view bases, std::span<const std::uint8_t> quals,
                                  std::uint32_t sample) {
  if (quals.size() != bases.size()) {
    throw Error("read threading: a read's qualities and bases differ in length");
  }
  const int length = static_cast<int>(bases.size());
  int last_good = -1;
  for (int end = 0; end <= length; ++end) {
    if (end == length || bases[end] == 'N' || quals[end] < min_base_quality_) {
      const int start = last_good;
      if (start != -1 && end - start >= kmer_size()) {
        add_sequence(bases, start, end, 1, false, sample);
      }
      last_good = -1;
    } else if (last_good == -1) {
      last_good = end;
    }
  }
}

std::vector<std::string> ReadThreadingGraph::determine_non_unique_kmers(std::string_view sequence,
                                                                        int stop, int kmer_size) {
  std::unordered_set<std::string_view> all_kmers;
  std::vector<std::string> non_unique;
  for (int i = 0; i <= stop - kmer_size; ++i) {
    const std::string_view kmer = sequence.substr(i, kmer_size);
    if (!all_kmers.insert(kmer).second) non_unique.emplace_back(kmer);
  }
  return non_unique;
}

void ReadThreadingGraph::build_graph_if_necessary() {
  if (built_) return;
  // ReadThreadingGraph.preprocessReads: non-unique k-mers of every queued sequence.
  for (const PendingSample& p : pending_) {
    for (const SequenceForKmers& s : p.sequences) {
      for (std::string& kmer : determine_non_unique_kmers(s.sequence, s.stop, kmer_size())) {
        non_unique_kmers_.insert(std::move(kmer));
      }
    }
  }
  for (const PendingSample& p : pending_) {
    for (const SequenceForKmers& s : p.sequences) thread_sequence(s);
    for (EdgeId e : edge_set()) edge(e).flush_single_sample_multiplicity();
  }
  pending_.clear();
  built_ = true;
}

bool ReadThreadingGraph::is_low_quality_graph() const {
  return non_unique_kmers_.size() * 4 > kmer_to_vertex_.size();
}

VertexId ReadThreadingGraph::find_kmer(std::string_view kmer) const {
  const auto it = kmer_to_vertex_.find(kmer);
  return it == kmer_to_vertex_.end() ? kNoVertex : it->second;
}

bool ReadThreadingGraph::remove_vertex(VertexId v) {
  if (!BaseGraph::remove_vertex(v)) return false;
  // GATK forgets the k-mer itself, whichever vertex the map held for it.
  const auto it = kmer_to_vertex_.find(sequence(v));
  if (it != kmer_to_vertex_.end()) kmer_to_vertex_.erase(it);
  return true;
}

void ReadThreadingGraph::remove_singleton_orphan_vertices() {
  std::vector<VertexId> to_remove;
  for (VertexId v : vertex_set()) {
    if (in_degree(v) == 0 && out_degree(v) == 0) to_remove.push_back(v);
  }
  remove_all_vertices(to_remove);
}

int ReadThreadingGraph::find_start(const SequenceForKmers& s) const {
  if (s.is_ref) return 0;
  for (int i = s.start; i < s.stop - kmer_size(); ++i) {
    const std::string_view kmer = std::string_view(s.sequence).substr(i, kmer_size());
    const bool threading_start = start_only_at_existing_ ? kmer_to_vertex_.contains(kmer)
                                                         : !non_unique_kmers_.contains(kmer);
    if (threading_start) return i;
  }
  return -1;
}

VertexId ReadThreadingGraph::kmer_vertex(std::string_view kmer, bool allow_ref_source) const {
  if (!allow_ref_source && ref_source_kmer_ && *ref_source_kmer_ == kmer) return kNoVertex;
  return find_kmer(kmer);
}

VertexId ReadThreadingGraph::create_vertex(std::string_view kmer) {
  const VertexId v = add_vertex(std::string(kmer));
  // ReadThreadingGraph.trackKmer: only unique k-mers, and only their first vertex.
  if (!non_unique_kmers_.contains(kmer) && !kmer_to_vertex_.contains(kmer)) {
    kmer_to_vertex_.emplace(std::string(kmer), v);
  }
  return v;
}

void ReadThreadingGraph::thread_sequence(const SequenceForKmers& s) {
  const int start = find_start(s);
  if (start == -1) return;
  const std::string_view start_kmer = std::string_view(s.sequence).substr(start, kmer_size());
  VertexId vertex = kmer_vertex(start_kmer, true);
  if (vertex == kNoVertex) vertex = create_vertex(start_kmer);
  increase_counts_in_matched_kmers(s, vertex, sequence(vertex), kmer_size() - 2);
  if (s.is_ref) {
    if (ref_source_kmer_) throw Error("read threading: found two reference sources");
    ref_source_kmer_ = s.sequence.substr(s.start, kmer_size());
  }
  for (int i = start + 1; i <= s.stop - kmer_size(); ++i) {
    vertex = extend_chain_by_one(vertex, s.sequence, i, s.count, s.is_ref);
  }
}

void ReadThreadingGraph::increase_counts_in_matched_kmers(const SequenceForKmers& s,
                                                          VertexId vertex,
                                                          const std::string& original_kmer,
                                                          int offset) {
  if (offset == -1) return;
  const std::vector<EdgeId> incoming = incoming_edges(vertex);
  for (EdgeId e : incoming) {
    const VertexId prev = edge_source(e);
    if (sequence(prev).back() == original_kmer[offset] &&
        (increase_through_branches_ || in_degree(vertex) == 1)) {
      edge(e).inc_multiplicity(s.count);
      increase_counts_in_matched_kmers(s, prev, original_kmer, offset - 1);
    }
  }
}

VertexId ReadThreadingGraph::extend_chain_by_one(VertexId prev, const std::string& sequence_bases,
                                                 int kmer_start, int count, bool is_ref) {
  const char next_base = sequence_bases[kmer_start + kmer_size() - 1];
  for (EdgeId e : outgoing_edges(prev)) {
    const VertexId target = edge_target(e);
    if (sequence(target).back() == next_base) {
      edge(e).inc_multiplicity(count);
      return target;
    }
  }
  const std::string_view kmer = std::string_view(sequence_bases).substr(kmer_start, kmer_size());
  const VertexId merge_vertex = kmer_vertex(kmer, false);
  if (is_ref && merge_vertex != kNoVertex) {
    throw Error("read threading: found a unique vertex to merge into the reference graph");
  }
  const VertexId next = merge_vertex == kNoVertex ? create_vertex(kmer) : merge_vertex;
  add_edge(prev, next, new_edge(is_ref, count));
  return next;
}

}  // namespace gpp::stages::call
