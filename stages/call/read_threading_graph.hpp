// The read-threading de Bruijn graph of HaplotypeCaller's assembler (GATK
// readthreading/AbstractReadThreadingGraph + ReadThreadingGraph): k-mer vertices, edge
// multiplicities, reads threaded after the reference, and the recovery of dangling heads and
// tails (dangling_chain_recovery.cpp).
//
// Threading rules reproduced:
//  - sequences are queued per sample (the reference under its own sample, first) and threaded
//    when the graph is built, sample by sample; per-sample edge counts are flushed after each
//    sample (MultiSampleEdge);
//  - a read contributes each maximal run of bases that are not 'N' and have quality >= the
//    minimum, when the run is at least k long;
//  - k-mers occurring twice within one queued sequence (scanned from the sequence's first base,
//    as GATK does) are non-unique: they never get a vertex of their own in the k-mer map, so
//    every occurrence makes a new vertex and nothing merges into them;
//  - a read starts at its first unique k-mer (not its last one); the counts of the edges into
//    that start vertex are raised backwards while the read's bases match and the vertex has one
//    incoming edge;
//  - extending follows an outgoing edge whose target ends with the next base, else merges into
//    the unique vertex of the next k-mer (never the reference source k-mer), else makes a vertex.
//
// @code
//   ReadThreadingGraph g(11);
//   g.add_sequence("CATGCACTTTAAAACTTGCCTTTTTAACAAGACTTCCAGATG", true);
//   g.add_sequence("CATGCACTTTAAAACTTGCCGTTTTAACAAGACTTCCAGATG", false);
//   g.build_graph_if_necessary();   // 32 reference vertices + 11 for the SNP bubble
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stages/call/assembly_graph.hpp"
#include "stages/call/dangling_end_aligner.hpp"
#include "stages/call/kmer_table.hpp"

namespace gpp::stages::call {

/// What dangling-branch recovery aligned (GATK DanglingChainMergeHelper).
struct DanglingChainMergeHelper {
  std::vector<VertexId> dangling_path;
  std::vector<VertexId> reference_path;
  std::string dangling_path_string;
  std::string reference_path_string;
  std::vector<std::uint32_t> cigar;  ///< BAM-packed, trailing deletion removed
};

class ReadThreadingGraph : public BaseGraph {
 public:
  /// The sample GATK files the reference and addSequence() sequences under.
  static constexpr std::int64_t kAnonymousSample = -1;

  /**
   * @param kmer_size          k (>= 1)
   * @param min_base_quality   bases below this quality break a read (GATK's test constructor
   *                           uses 6; HaplotypeCaller passes --min-base-quality-score, 10)
   * @param num_pruning_samples samples an edge's pruning multiplicity looks at
   * @param min_matching_bases_for_dangling_end_recovery -1: GATK's legacy rules (the default)
   * @throws gpp::Error if kmer_size < 1
   */
  explicit ReadThreadingGraph(int kmer_size, std::uint8_t min_base_quality = 6,
                              int num_pruning_samples = 1,
                              int min_matching_bases_for_dangling_end_recovery = -1);

  void set_threading_start_only_at_existing_vertex(bool value) { start_only_at_existing_ = value; }
  void set_increase_counts_through_branches(bool value) { increase_through_branches_ = value; }
  void set_min_matching_bases_to_dangling_end_recovery(int value) { min_matching_bases_ = value; }
  void set_max_mismatches_in_dangling_head(int value) { max_mismatches_in_dangling_head_ = value; }

  /// Queues all of `bases` (count 1) under the anonymous sample.
  void add_sequence(std::string_view bases, bool is_ref);
  /// Queues bases[start, stop) with weight `count` under `sample`.
  /// @throws gpp::Error if the graph is built, start/stop are out of order or count <= 0
  void add_sequence(std::string_view bases, int start, int stop, int count, bool is_ref,
                    std::int64_t sample);
  /// GATK addRead: queues each run of usable bases at least k long.
  /// @throws gpp::Error if quals and bases differ in length
  void add_read(std::string_view bases, std::span<const std::uint8_t> quals,
                std::uint32_t sample = 0);
  /// Threads every queued sequence (once).
  void build_graph_if_necessary();
  bool built() const { return built_; }

  /// More than a fifth of the tracked k-mers are non-unique (ReadThreadingGraph
  /// .isLowQualityGraph).
  bool is_low_quality_graph() const;
  /// The vertex tracked for kmer, or kNoVertex.
  VertexId find_kmer(std::string_view kmer) const;
  /// The non-unique k-mers (iterates as std::string, in the order found).
  const KmerTable& non_unique_kmers() const { return non_unique_kmers_; }
  /// k-mers occurring more than once in sequence[0, stop) (duplicates listed per repeat).
  static std::vector<std::string> determine_non_unique_kmers(std::string_view sequence, int stop,
                                                             int kmer_size);

  bool remove_vertex(VertexId v) override;
  /// The read-threading override: removes every vertex without edges.
  void remove_singleton_orphan_vertices() override;

  // ---- dangling branches (dangling_chain_recovery.cpp) ----
  /// Tries to merge every non-reference sink back into the reference path; returns how many.
  /// @throws gpp::Error if the graph is not built or arguments are negative
  int recover_dangling_tails(int prune_factor, int min_dangling_branch_length, bool recover_all,
                             const DanglingEndAligner& aligner);
  /// Same for every non-reference source.
  int recover_dangling_heads(int prune_factor, int min_dangling_branch_length, bool recover_all,
                             const DanglingEndAligner& aligner);
  std::optional<DanglingChainMergeHelper> generate_cigar_against_downwards_reference_path(
      VertexId vertex, int prune_factor, int min_dangling_branch_length, bool recover_all,
      const DanglingEndAligner& aligner);
  std::optional<DanglingChainMergeHelper> generate_cigar_against_upwards_reference_path(
      VertexId vertex, int prune_factor, int min_dangling_branch_length, bool recover_all,
      const DanglingEndAligner& aligner);
  /// 1 if an edge was added, 0 otherwise. @throws gpp::Error if the CIGAR does not end in M
  int merge_dangling_tail(const DanglingChainMergeHelper& helper);
  /// @throws gpp::Error if the CIGAR does not start with M
  int merge_dangling_head(DanglingChainMergeHelper& helper);
  int merge_dangling_head_legacy(DanglingChainMergeHelper& helper);
  /// Each vertex's last base; a source's whole k-mer reversed when expand_source.
  std::string bases_for_path(std::span<const VertexId> path, bool expand_source) const;
  static bool cigar_is_okay_to_merge(std::span<const std::uint32_t> cigar,
                                     bool require_first_element_m, bool require_last_element_m);
  /// Length of the longest suffix of kmer matching seq ending at seq_start.
  static int longest_suffix_match(std::string_view seq, std::string_view kmer, int seq_start);

 private:
  struct SequenceForKmers {
    std::size_t offset;  ///< bases [0, stop) of the queued sequence: pending_bases_[offset...]
    int start;
    int stop;
    int count;
    bool is_ref;
  };
  struct PendingSample {
    std::int64_t sample;
    std::vector<SequenceForKmers> sequences;
  };

  std::string_view bases_of(const SequenceForKmers& s) const {
    return std::string_view(pending_bases_).substr(s.offset, static_cast<std::size_t>(s.stop));
  }
  int find_start(const SequenceForKmers& s) const;
  void thread_sequence(const SequenceForKmers& s);
  /// The tracked vertex of a k long `kmer` whose KmerTable::hash is `hash`, or kNoVertex.
  VertexId kmer_vertex(std::string_view kmer, std::uint64_t hash, bool allow_ref_source) const;
  /// Whether kmerToVertexMap holds `kmer`.
  bool is_tracked(std::string_view kmer) const { return find_kmer(kmer) != kNoVertex; }
  VertexId create_vertex(std::string_view kmer, std::uint64_t hash);
  void increase_counts_in_matched_kmers(const SequenceForKmers& s, VertexId vertex,
                                        std::string_view original_kmer, int offset);
  VertexId extend_chain_by_one(VertexId prev, std::string_view sequence, int kmer_start, int count,
                               bool is_ref);
  AssemblyEdge new_edge(bool is_ref, int multiplicity) const;

  // dangling-branch helpers
  int recover_dangling_tail(VertexId v, int prune_factor, int min_length, bool recover_all,
                            const DanglingEndAligner& aligner);
  int recover_dangling_head(VertexId v, int prune_factor, int min_length, bool recover_all,
                            const DanglingEndAligner& aligner);
  std::optional<std::vector<VertexId>> find_path_upwards_to_lowest_common_ancestor(
      VertexId v, int prune_factor, bool give_up_at_branch) const;
  std::optional<std::vector<VertexId>> find_path_downwards_to_highest_common_descendant(
      VertexId v, int prune_factor, bool give_up_at_branch) const;
  std::vector<VertexId> reference_path_from(VertexId start, bool downwards,
                                            EdgeId blacklisted) const;
  EdgeId heaviest_incoming_edge(VertexId v) const;
  EdgeId heaviest_outgoing_edge(VertexId v) const;
  bool has_incident_ref_edge(VertexId v) const;
  std::pair<int, int> best_prefix_match(std::span<const std::uint32_t> cigar,
                                        std::string_view path1, std::string_view path2) const;
  int best_prefix_match_legacy(std::string_view path1, std::string_view path2, int max_index) const;
  bool extend_dangling_path_against_reference(DanglingChainMergeHelper& helper,
                                              int num_nodes_to_extend,
                                              std::span<const std::uint32_t> cigar);

  std::uint8_t min_base_quality_;
  int num_pruning_samples_;
  int min_matching_bases_;
  int max_mismatches_in_dangling_head_ = -1;
  bool start_only_at_existing_ = false;
  bool increase_through_branches_ = false;
  bool built_ = false;
  std::vector<PendingSample> pending_;
  std::string pending_bases_;  ///< the queued sequences' bases, one after the other
  // GATK's kmerToVertexMap: kmer_vertices_[id of the k-mer in kmers_], kNoVertex once removed.
  KmerTable kmers_;
  std::vector<VertexId> kmer_vertices_;
  std::size_t tracked_kmers_ = 0;  ///< entries of kmer_vertices_ other than kNoVertex
  /// Per vertex made by create_vertex: the id of its k-mer in kmers_, kUntracked for a
  /// non-unique k-mer (never in kmers_); vertices beyond the end are looked up by sequence.
  std::vector<std::uint32_t> vertex_kmer_ids_;
  static constexpr std::uint32_t kUntracked = KmerTable::kAbsent - 1;
  KmerTable non_unique_kmers_;
  std::optional<std::string> ref_source_kmer_;
};

}  // namespace gpp::stages::call
