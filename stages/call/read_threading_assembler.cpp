// GATK ReadThreadingAssembler.assemble, createGraph, getAssemblyResult, cleanupSeqGraph and
// runLocalAssembly / assembleKmerGraphsAndHaplotypeCall; see read_threading_assembler.hpp.
#include "stages/call/read_threading_assembler.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "stages/call/chain_pruner.hpp"
#include "stages/call/read_threading_graph.hpp"

namespace gpp::stages::call {

namespace {

constexpr int kKmerSizeIterationIncrease = 10;
constexpr int kMaxKmerIterationsToAttempt = 6;

/// cleanupSeqGraph: zip, drop what is not connected to the reference, simplify, keep only
/// reference source-to-sink paths, simplify again.
AssemblyResult cleanup_seq_graph(SeqGraph graph, int kmer_size) {
  graph.zip_linear_chains();
  graph.remove_singleton_orphan_vertices();
  graph.remove_vertices_not_connected_to_ref_regardless_of_edge_direction();
  graph.simplify_graph();
  if (graph.reference_source_vertex() == kNoVertex || graph.reference_sink_vertex() == kNoVertex) {
    return AssemblyResult{AssemblyStatus::kJustAssembledReference, kmer_size, std::move(graph)};
  }
  graph.remove_paths_not_connected_to_ref();
  graph.simplify_graph();
  if (graph.vertex_count() == 1) {
    // Everything collapsed into the reference: an empty vertex keeps source and sink distinct.
    const VertexId complete = graph.vertex_set().front();
    const VertexId dummy = graph.add_vertex("");
    graph.add_edge(complete, dummy, AssemblyEdge(true, 0));
  }
  return AssemblyResult{AssemblyStatus::kAssembledSomeVariation, kmer_size, std::move(graph)};
}

/// createGraph: std::nullopt where GATK returns null (k rejected).
std::optional<AssemblyResult> create_graph(const LocalAssemblyInput& input, int kmer_size,
                                           bool allow_low_complexity_graphs,
                                           bool allow_non_unique_kmers_in_ref,
                                           const ReadThreadingAssemblerArgs& args,
                                           const DanglingEndAligner& aligner) {
  const std::string_view ref = input.ref_haplotype;
  if (static_cast<int>(ref.size()) < kmer_size) {
    return AssemblyResult{AssemblyStatus::kFailed, kmer_size, std::nullopt};
  }
  if (!allow_non_unique_kmers_in_ref &&
      !ReadThreadingGraph::determine_non_unique_kmers(ref, static_cast<int>(ref.size()), kmer_size)
           .empty()) {
    return std::nullopt;
  }
  ReadThreadingGraph graph(kmer_size, args.min_base_quality_to_use, args.num_pruning_samples,
                           args.min_matching_bases_to_dangling_end_recovery);
  graph.set_threading_start_only_at_existing_vertex(!args.recover_dangling_branches);
  graph.add_sequence(ref, 0, static_cast<int>(ref.size()), 1, true,
                     ReadThreadingGraph::kAnonymousSample);
  for (const AssemblyRead& read : input.reads) graph.add_read(read.bases, read.quals, read.sample);
  graph.build_graph_if_necessary();

  // Prune before looking for cycles, so sequencing errors do not make false ones.
  if (args.adaptive_pruning) {
    prune_chains_adaptively(graph, *args.adaptive_pruning);
  } else {
    prune_low_weight_chains(graph, args.prune_factor);
  }
  if (graph.has_cycles()) return std::nullopt;
  if (!allow_low_complexity_graphs && graph.is_low_quality_graph()) return std::nullopt;

  // getAssemblyResult
  if (args.recover_dangling_branches) {
    graph.recover_dangling_tails(args.prune_factor, args.min_dangling_branch_length,
                                 args.recover_all_dangling_branches, aligner);
    graph.recover_dangling_heads(args.prune_factor, args.min_dangling_branch_length,
                                 args.recover_all_dangling_branches, aligner);
  }
  if (args.remove_paths_not_connected_to_ref) graph.remove_paths_not_connected_to_ref();
  SeqGraph seq_graph = to_sequence_graph(graph);
  if (args.just_return_raw_graph) {
    return AssemblyResult{AssemblyStatus::kAssembledSomeVariation, kmer_size, std::move(seq_graph)};
  }
  seq_graph.clean_non_ref_paths();
  AssemblyResult result = cleanup_seq_graph(std::move(seq_graph), kmer_size);
  if (args.recover_all_dangling_branches && graph.has_cycles()) return std::nullopt;
  return result;
}

}  // namespace

std::vector<AssemblyResult> assemble_graphs(const LocalAssemblyInput& input,
                                            const ReadThreadingAssemblerArgs& args,
                                            const DanglingEndAligner& aligner) {
  if (args.kmer_sizes.empty()) throw Error("local assembly: no kmer sizes given");
  if (args.max_num_haplotypes_in_population < 1) {
    throw Error("local assembly: numBestHaplotypesPerGraph should be >= 1");
  }
  if (args.prune_factor < 0) throw Error("local assembly: pruning factor cannot be negative");
  std::vector<int> kmer_sizes = args.kmer_sizes;
  std::sort(kmer_sizes.begin(), kmer_sizes.end());

  std::vector<AssemblyResult> results;
  for (int k : kmer_sizes) {
    auto result = create_graph(input, k, args.dont_increase_kmer_sizes_for_cycles,
                               args.allow_non_unique_kmers_in_ref, args, aligner);
    if (result) results.push_back(std::move(*result));
  }
  // None worked: larger k, the last attempt accepting low complexity and non-unique k-mers.
  if (results.empty() && !args.dont_increase_kmer_sizes_for_cycles) {
    int k = kmer_sizes.back() + kKmerSizeIterationIncrease;
    for (int iteration = 1; results.empty() && iteration <= kMaxKmerIterationsToAttempt;
         ++iteration, k += kKmerSizeIterationIncrease) {
      const bool last_attempt = iteration == kMaxKmerIterationsToAttempt;
      auto result = create_graph(input, k, last_attempt, last_attempt, args, aligner);
      if (result) results.push_back(std::move(*result));
    }
  }
  return results;
}

LocalAssemblyResult run_local_assembly(const LocalAssemblyInput& input,
                                       const ReadThreadingAssemblerArgs& args,
                                       const DanglingEndAligner& aligner) {
  LocalAssemblyResult result;
  result.ref_start = input.ref_start;
  for (const AssemblyResult& assembled : assemble_graphs(input, args, aligner)) {
    if (assembled.status != AssemblyStatus::kAssembledSomeVariation) continue;
    const SeqGraph& graph = *assembled.graph;
    // sanityCheckReferenceGraph
    const VertexId source = graph.reference_source_vertex();
    const VertexId sink = graph.reference_sink_vertex();
    if (source == kNoVertex || sink == kNoVertex) {
      throw Error("local assembly: all reference graphs must have a reference source and sink");
    }
    if (graph.reference_bytes(source, sink, true, true) != input.ref_haplotype) {
      throw Error(
          "local assembly: mismatch between the reference haplotype and the reference "
          "assembly graph path for kmer size " +
          std::to_string(assembled.kmer_size));
    }
    result.graphs.push_back(KmerGraphPaths{
        assembled.kmer_size, GraphBasedKBestHaplotypeFinder(graph, {source}, {sink})
                                 .find_best_haplotypes(args.max_num_haplotypes_in_population)});
  }
  result.haplotypes = collect_haplotypes(result.graphs, input.ref_haplotype);
  return result;
}

}  // namespace gpp::stages::call
