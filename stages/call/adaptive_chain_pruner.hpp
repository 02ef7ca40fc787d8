// Adaptive pruning of an assembly graph's chains (GATK graphs/AdaptiveChainPruner, Mutect2's
// pruner, in HaplotypeCaller with --adaptive-pruning).
//
// Instead of one multiplicity cutoff, each chain (chain_pruner.hpp's find_all_chains) gets a left
// and a right log odds of being real variation rather than sequencing error: at its first vertex,
// its first edge's multiplicity against the other outgoing edges' (0 at a source), at its last
// vertex its last edge's against the other incoming edges' (0 at a sink), through Mutect2's
// likelihood ratio at a base error rate. A subgraph of good chains is grown from seeds — the chain
// holding the heaviest edge, and every vertex where more than two chains pass the seeding
// threshold on both sides — through the chains that pass the threshold on the side that touches
// it (any chain starting with a reference edge also does), highest log odds first; once more than
// --max-unpruned-variants vertices have two good outgoing chains no further chain is added. The
// chains outside it are errors. This runs twice: with the initial error rate, then with the rate
// those errors show (their last edges' multiplicity over all chains' edge multiplicities), and the
// second pass's errors that hold no reference edge are removed, with the vertices left alone.
//
// Edge multiplicities are the total ones (BaseEdge.getMultiplicity), not the pruning ones. Ties in
// the order chains are added are broken by the chain's first vertex's sequence, then its bases,
// as GATK's comparator does. The arithmetic is GATK's step for step with the C library's exp and
// log in place of Java's FastMath (within an ulp), so a log odds lying within rounding of a
// threshold could fall the other way.
//
// @code
//   AdaptivePruning pruning;                 // GATK defaults: 0.001, ln 10, 4 ln 10, 100
//   prune_chains_adaptively(graph, pruning);
// @endcode
#pragma once

#include <numbers>

#include "stages/call/assembly_graph.hpp"

namespace gpp::stages::call {

/// --adaptive-pruning-initial-error-rate, --pruning-lod-threshold,
/// --pruning-seeding-lod-threshold and --max-unpruned-variants with GATK's defaults.
struct AdaptivePruning {
  double initial_error_rate = 0.001;
  double log_odds_threshold = std::numbers::ln10;              ///< natural log; log10 odds 1
  double seeding_log_odds_threshold = 4 * std::numbers::ln10;  ///< natural log; log10 odds 4
  int max_unpruned_variants = 100;
};

/**
 * @brief Mutect2Engine.logLikelihoodRatio(refCount, altCount, errorProbability): the natural log
 *        odds that `alt_count` observations among `ref_count + alt_count` are a real allele of
 *        unknown fraction (flat Beta prior) rather than errors of probability `error_probability`,
 *        taken as a Phred quality rounded to an integer in [1, 93] (QualityUtils.errorProbToQual).
 * @throws gpp::Error unless 0 <= error_probability <= 1 and both counts are >= 0
 */
double mutect_log_likelihood_ratio(int ref_count, int alt_count, double error_probability);

/**
 * @brief AdaptiveChainPruner through ChainPruner.pruneLowWeightChains: removes the chains judged
 *        to be errors and then the vertices left without edges.
 * @throws gpp::Error unless the initial error rate is in (0, 1]
 */
void prune_chains_adaptively(BaseGraph& graph, const AdaptivePruning& pruning);

}  // namespace gpp::stages::call
