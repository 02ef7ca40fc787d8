// Building the read-threading graph (GATK AbstractReadThreadingGraph.addSequence, addRead,
// buildGraphIfNecessary, threadSequence, extendChainByOne, increaseCountsInMatchedKmers and
// ReadThreadingGraph's non-unique k-mer rules); see read_threading_graph.hpp.
#include "stages/call/read_threading_graph.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

constexpr std::uint32_t kNoPosition = 0xFFFFFFFFu;

/// A rolling polynomial hash (mod 2^64, then a finaliser) of every k-mer of `bases`, for telling
/// repeats within one sequence apart cheaply.
void rolling_kmer_hashes(std::string_view bases, std::size_t k, std::vector<std::uint64_t>& out) {
  constexpr std::uint64_t kBase = 0x100000001B3ull;
  const auto finish = [](std::uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
  };
  out.clear();
  std::uint64_t top = 1;  // kBase^(k-1)
  for (std::size_t i = 1; i < k; ++i) top *= kBase;
  std::uint64_t h = 0;
  for (std::size_t i = 0; i < k; ++i) h = h * kBase + static_cast<unsigned char>(bases[i]);
  out.push_back(finish(h));
  for (std::size_t i = k; i < bases.size(); ++i) {
    h = (h - top * static_cast<unsigned char>(bases[i - k])) * kBase +
        static_cast<unsigned char>(bases[i]);
    out.push_back(finish(h));
  }
}

/// Calls repeated(i) for each i in [0, stop - k] whose k-mer occurs at an earlier position
/// of sequence, in increasing i (ReadThreadingGraph.determineNonUniqueKmers' scan). `hashes` and
/// `slots` are scratch space.
template <typename Repeated>
void for_each_repeated_kmer(std::string_view sequence, int stop, int kmer_size,
                            std::vector<std::uint64_t>& hashes, std::vector<std::uint32_t>& slots,
                            Repeated repeated) {
  if (kmer_size < 1 || stop < kmer_size) return;
  const std::string_view bases =
      sequence.substr(0, std::min(sequence.size(), static_cast<std::size_t>(stop)));
  const auto k = static_cast<std::size_t>(kmer_size);
  rolling_kmer_hashes(bases, k, hashes);
  std::size_t capacity = 16;
  while (capacity < 2 * hashes.size()) capacity *= 2;
  slots.assign(capacity, kNoPosition);
  const std::size_t mask = capacity - 1;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    const std::uint64_t h = hashes[i];
    std::size_t slot = h & mask;
    bool seen = false;
    for (;; slot = (slot + 1) & mask) {
      const std::uint32_t j = slots[slot];
      if (j == kNoPosition) break;
      if (hashes[j] == h && std::memcmp(bases.data() + j, bases.data() + i, k) == 0) {
        seen = true;
        break;
      }
    }
    if (seen) {
      repeated(i);
    } else {
      slots[slot] = static_cast<std::uint32_t>(i);
    }
  }
}

}  // namespace

ReadThreadingGraph::ReadThreadingGraph(int kmer_size, std::uint8_t min_base_quality,
                                       int num_pruning_samples,
                                       int min_matching_bases_for_dangling_end_recovery)
    : BaseGraph(kmer_size, VertexKind::kKmer, num_pruning_samples),
      min_base_quality_(min_base_quality),
      num_pruning_samples_(num_pruning_samples),
      min_matching_bases_(min_matching_bases_for_dangling_end_recovery),
      kmers_(kmer_size),
      non_unique_kmers_(kmer_size) {}

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
  target->sequences.push_back(SequenceForKmers{pending_bases_.size(), start, stop, count, is_ref});
  pending_bases_.append(bases.substr(0, static_cast<std::size_t>(stop)));
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
  std::vector<std::uint64_t> hashes;
  std::vector<std::uint32_t> slots;
  std::vector<std::string> non_unique;
  for_each_repeated_kmer(sequence, stop, kmer_size, hashes, slots, [&](std::size_t i) {
    non_unique.emplace_back(sequence.substr(i, kmer_size));
  });
  return non_unique;
}

void ReadThreadingGraph::build_graph_if_necessary() {
  if (built_) return;
  // ReadThreadingGraph.preprocessReads: non-unique k-mers of every queued sequence.
  std::vector<std::uint64_t> hashes;
  std::vector<std::uint32_t> slots;
  for (const PendingSample& p : pending_) {
    for (const SequenceForKmers& s : p.sequences) {
      const std::string_view bases = bases_of(s);
      for_each_repeated_kmer(bases, s.stop, kmer_size(), hashes, slots, [&](std::size_t i) {
        non_unique_kmers_.insert(bases.substr(i, kmer_size()));
      });
    }
  }
  // Most vertices come from the reference; room for about twice as many avoids most regrowth.
  std::size_t reference_kmers = 0;
  for (const PendingSample& p : pending_) {
    for (const SequenceForKmers& s : p.sequences) {
      if (s.is_ref && s.stop - s.start >= kmer_size()) {
        reference_kmers += static_cast<std::size_t>(s.stop - s.start - kmer_size() + 1);
      }
    }
  }
  reserve(2 * reference_kmers + 16, 2 * reference_kmers + 16);
  kmers_.reserve(2 * reference_kmers + 16);
  for (const PendingSample& p : pending_) {
    for (const SequenceForKmers& s : p.sequences) thread_sequence(s);
    for (EdgeId e = 0; e < edge_capacity(); ++e) {
      if (contains_edge(e)) edge(e).flush_single_sample_multiplicity();
    }
  }
  pending_.clear();
  pending_bases_ = std::string();
  built_ = true;
}

bool ReadThreadingGraph::is_low_quality_graph() const {
  return non_unique_kmers_.size() * 4 > tracked_kmers_;
}

VertexId ReadThreadingGraph::find_kmer(std::string_view kmer) const {
  const std::uint32_t id = kmers_.find(kmer);
  return id == KmerTable::kAbsent ? kNoVertex : kmer_vertices_[id];
}

bool ReadThreadingGraph::remove_vertex(VertexId v) {
  if (!BaseGraph::remove_vertex(v)) return false;
  // GATK forgets the k-mer itself, whichever vertex the map held for it.
  std::uint32_t id = v < vertex_kmer_ids_.size() ? vertex_kmer_ids_[v] : KmerTable::kAbsent;
  if (id == KmerTable::kAbsent) id = kmers_.find(sequence(v));
  if (id != KmerTable::kAbsent && id != kUntracked && kmer_vertices_[id] != kNoVertex) {
    kmer_vertices_[id] = kNoVertex;
    --tracked_kmers_;
  }
  return true;
}

void ReadThreadingGraph::remove_singleton_orphan_vertices() {
  std::vector<VertexId> to_remove;
  for (VertexId v : live_vertices()) {
    if (in_degree(v) == 0 && out_degree(v) == 0) to_remove.push_back(v);
  }
  remove_all_vertices(to_remove);
}

int ReadThreadingGraph::find_start(const SequenceForKmers& s) const {
  if (s.is_ref) return 0;
  for (int i = s.start; i < s.stop - kmer_size(); ++i) {
    const std::string_view kmer = bases_of(s).substr(i, kmer_size());
    const bool threading_start =
        start_only_at_existing_ ? is_tracked(kmer) : !non_unique_kmers_.contains(kmer);
    if (threading_start) return i;
  }
  return -1;
}

VertexId ReadThreadingGraph::kmer_vertex(std::string_view kmer, std::uint64_t hash,
                                         bool allow_ref_source) const {
  if (!allow_ref_source && ref_source_kmer_ && *ref_source_kmer_ == kmer) return kNoVertex;
  const std::uint32_t id = kmers_.find(kmer, hash);
  return id == KmerTable::kAbsent ? kNoVertex : kmer_vertices_[id];
}

VertexId ReadThreadingGraph::create_vertex(std::string_view kmer, std::uint64_t hash) {
  const VertexId v = add_vertex(std::string(kmer));
  if (vertex_kmer_ids_.size() <= v) vertex_kmer_ids_.resize(v + 1, KmerTable::kAbsent);
  vertex_kmer_ids_[v] = kUntracked;
  // ReadThreadingGraph.trackKmer: only unique k-mers, and only their first vertex.
  if (!non_unique_kmers_.contains(kmer, hash)) {
    const auto [id, added] = kmers_.insert(kmer, hash);
    vertex_kmer_ids_[v] = id;
    if (added) {
      kmer_vertices_.push_back(v);
      ++tracked_kmers_;
    } else if (kmer_vertices_[id] == kNoVertex) {
      kmer_vertices_[id] = v;
      ++tracked_kmers_;
    }
  }
  return v;
}

void ReadThreadingGraph::thread_sequence(const SequenceForKmers& s) {
  const int start = find_start(s);
  if (start == -1) return;
  const std::string_view bases = bases_of(s);
  const std::string_view start_kmer = bases.substr(start, kmer_size());
  const std::uint64_t start_hash = KmerTable::hash(start_kmer);
  VertexId vertex = kmer_vertex(start_kmer, start_hash, true);
  if (vertex == kNoVertex) vertex = create_vertex(start_kmer, start_hash);
  increase_counts_in_matched_kmers(s, vertex, sequence(vertex), kmer_size() - 2);
  if (s.is_ref) {
    if (ref_source_kmer_) throw Error("read threading: found two reference sources");
    ref_source_kmer_ = std::string(bases.substr(s.start, kmer_size()));
  }
  for (int i = start + 1; i <= s.stop - kmer_size(); ++i) {
    vertex = extend_chain_by_one(vertex, bases, i, s.count, s.is_ref);
  }
}

void ReadThreadingGraph::increase_counts_in_matched_kmers(const SequenceForKmers& s,
                                                          VertexId vertex,
                                                          std::string_view original_kmer,
                                                          int offset) {
  if (offset == -1) return;
  // Only multiplicities change below, so the edge list can be walked in place.
  for (EdgeId e : incoming_edges(vertex)) {
    const VertexId prev = edge_source(e);
    if (last_base(prev) == original_kmer[offset] &&
        (increase_through_branches_ || in_degree(vertex) == 1)) {
      edge(e).inc_multiplicity(s.count);
      increase_counts_in_matched_kmers(s, prev, original_kmer, offset - 1);
    }
  }
}

VertexId ReadThreadingGraph::extend_chain_by_one(VertexId prev, std::string_view sequence_bases,
                                                 int kmer_start, int count, bool is_ref) {
  const char next_base = sequence_bases[kmer_start + kmer_size() - 1];
  for (EdgeId e : outgoing_edges(prev)) {
    const VertexId target = edge_target(e);
    if (last_base(target) == next_base) {
      edge(e).inc_multiplicity(count);
      return target;
    }
  }
  const std::string_view kmer = sequence_bases.substr(kmer_start, kmer_size());
  const std::uint64_t hash = KmerTable::hash(kmer);
  const VertexId merge_vertex = kmer_vertex(kmer, hash, false);
  if (is_ref && merge_vertex != kNoVertex) {
    throw Error("read threading: found a unique vertex to merge into the reference graph");
  }
  const VertexId next = merge_vertex == kNoVertex ? create_vertex(kmer, hash) : merge_vertex;
  add_edge(prev, next, new_edge(is_ref, count));
  return next;
}

}  // namespace gpp::stages::call
