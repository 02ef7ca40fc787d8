// HaplotypeCaller's local assembly of one region (GATK readthreading/ReadThreadingAssembler
// .runLocalAssembly in its default, sequence-graph mode, with the haplotype bookkeeping of
// findBestPaths and AssemblyResultSet), up to, not including, aligning haplotypes to the
// reference (CigarUtils.calculateCigar is stages/call/haplotype_cigar.hpp).
//
// Per k (sorted ascending; then, if none produced a graph, max k + 10, + 20, ... six times, the
// last try accepting low complexity and non-unique reference k-mers):
//   reference k-mers not unique -> skip; thread the reference then the reads; prune chains
//   (--min-pruning); cycles -> skip; low complexity -> skip; recover dangling tails and heads;
//   keep paths between the reference source and sink; convert to a SeqGraph and simplify it;
//   take up to --max-num-haplotypes-in-population best paths from the reference source to sink.
//
// Reads must be as GATK's assembler sees them: finalized for the region and with soft-clipped
// bases removed (ReadClipper.hardClipSoftClippedBases), in the region's read order.
//
// @code
//   LocalAssemblyInput input{ref_haplotype, ref_start, reads};
//   LocalAssemblyResult result = run_local_assembly(input);
//   // result.haplotypes: assembled haplotypes in GATK's order, the reference among them
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/adaptive_chain_pruner.hpp"
#include "stages/call/dangling_end_aligner.hpp"
#include "stages/call/kbest_haplotype_finder.hpp"
#include "stages/call/seq_graph.hpp"

namespace gpp::stages::call {

/// One read of the region, prepared for assembly.
struct AssemblyRead {
  std::string_view bases;               ///< A C G T N
  std::span<const std::uint8_t> quals;  ///< Phred base qualities, one per base
  std::uint32_t read_index = 0;         ///< stable index of the read in the region (carried)
  std::uint32_t sample = 0;             ///< sample of the read (one graph, counts per sample)
};

/// The region to assemble.
struct LocalAssemblyInput {
  std::string_view ref_haplotype;  ///< padded region + extra reference, as GATK builds it
  std::int64_t ref_start = 0;      ///< 0-based contig position of ref_haplotype[0]
  std::span<const AssemblyRead> reads;
};

/// ReadThreadingAssemblerArgumentCollection / HaplotypeCaller defaults.
struct ReadThreadingAssemblerArgs {
  std::vector<int> kmer_sizes{10, 25};  ///< --kmer-size
  bool dont_increase_kmer_sizes_for_cycles = false;
  bool allow_non_unique_kmers_in_ref = false;
  std::uint8_t min_base_quality_to_use = 10;  ///< --min-base-quality-score
  int prune_factor = 2;                       ///< --min-pruning
  /// --adaptive-pruning: chains pruned by their log odds (adaptive_chain_pruner.hpp) instead of
  /// prune_factor, which GATK then sets to 0 (HaplotypeCallerOptions::derive does).
  std::optional<AdaptivePruning> adaptive_pruning;
  int num_pruning_samples = 1;
  int min_dangling_branch_length = 4;
  /// GATK's HaplotypeCaller always ends up with true (setRecoverAllDanglingBranches sets it).
  bool recover_dangling_branches = true;
  bool recover_all_dangling_branches = false;
  int max_num_haplotypes_in_population = 128;
  int min_matching_bases_to_dangling_end_recovery = -1;  ///< -1: legacy dangling-end rules
  // Test hooks of GATK's ReadThreadingAssembler (setRemovePathsNotConnectedToRef,
  // setJustReturnRawGraph).
  bool remove_paths_not_connected_to_ref = true;
  bool just_return_raw_graph = false;
};

enum class AssemblyStatus { kFailed, kJustAssembledReference, kAssembledSomeVariation };

/// One k's graph (GATK AssemblyResult).
struct AssemblyResult {
  AssemblyStatus status = AssemblyStatus::kFailed;
  int kmer_size = 0;
  std::optional<SeqGraph> graph;
};

/// The best paths of one graph with variation.
struct KmerGraphPaths {
  int kmer_size = 0;
  std::vector<KBestHaplotype> best_paths;  ///< reference source to sink, best first
};

/// A haplotype of the result set (GATK Haplotype as findBestPaths leaves it, before its CIGAR).
struct AssembledHaplotype {
  std::string bases;
  bool is_reference = false;
  double score = 0;   ///< k-best score; NaN for the reference haplotype (GATK never sets it)
  int kmer_size = 0;  ///< k of the graph that first produced it; 0 for the reference
};

struct LocalAssemblyResult {
  std::int64_t ref_start = 0;
  std::vector<KmerGraphPaths> graphs;  ///< graphs with variation, in the order assembled
  /// collect_haplotypes(graphs, ref) with every haplotype accepted.
  std::vector<AssembledHaplotype> haplotypes;
};

/// Whether a haplotype survives the caller's alignment checks (GATK findBestPaths drops those
/// whose CIGAR is null, too divergent or spans < 30 reference bases).
using HaplotypeFilter = std::function<bool(std::string_view bases)>;

/**
 * @brief GATK ReadThreadingAssembler.assemble: one result per k tried that produced one.
 *
 * @param input   reference haplotype and reads
 * @param args    assembler settings
 * @param aligner dangling-end Smith-Waterman (align_dangling_end)
 * @return results in the order made; only kAssembledSomeVariation ones carry paths onwards
 * @throws gpp::Error where GATK throws (a graph losing its reference path)
 */
std::vector<AssemblyResult> assemble_graphs(const LocalAssemblyInput& input,
                                            const ReadThreadingAssemblerArgs& args,
                                            const DanglingEndAligner& aligner);

/**
 * @brief GATK ReadThreadingAssembler.runLocalAssembly up to the haplotypes' CIGARs.
 *
 * @param input   reference haplotype, its start and the reads
 * @param args    assembler settings (HaplotypeCaller defaults)
 * @param aligner dangling-end Smith-Waterman
 * @return each graph's best paths and the de-duplicated haplotype list
 * @throws gpp::Error if a graph's reference path does not spell the reference haplotype, or
 *         where GATK throws
 */
LocalAssemblyResult run_local_assembly(const LocalAssemblyInput& input,
                                       const ReadThreadingAssemblerArgs& args = {},
                                       const DanglingEndAligner& aligner = align_dangling_end);

/**
 * @brief The haplotype list GATK's findBestPaths leaves in the AssemblyResultSet.
 *
 * Graph by graph, best path first, each path's bases not yet listed and accepted by `keep` are
 * appended (as non-reference haplotypes, since GATK's paths never carry the reference flag);
 * after each graph that listed something, the non-reference copy of the reference bases is
 * dropped and the reference haplotype appended if absent. With nothing listed: the reference
 * alone.
 *
 * @param graphs        best paths per graph, in assembly order
 * @param ref_haplotype the reference haplotype's bases
 * @param keep          GATK's alignment checks; empty: keep all
 */
std::vector<AssembledHaplotype> collect_haplotypes(std::span<const KmerGraphPaths> graphs,
                                                   std::string_view ref_haplotype,
                                                   const HaplotypeFilter& keep = {});

}  // namespace gpp::stages::call
