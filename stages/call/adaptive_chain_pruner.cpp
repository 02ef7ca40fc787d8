// GATK AdaptiveChainPruner and Mutect2Engine.logLikelihoodRatio; see adaptive_chain_pruner.hpp.
#include "stages/call/adaptive_chain_pruner.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "stages/call/activity_math.hpp"
#include "stages/call/chain_pruner.hpp"
#include "stages/call/log10_math.hpp"

namespace gpp::stages::call {

namespace {

/// SAMUtils.MAX_PHRED_SCORE, QualityUtils.errorProbToQual's cap.
constexpr int kMaxSamQual = 93;

/// QualityUtils.errorProbToQual(errorRate): round(-10 log10 p) bounded to [1, 93].
int error_prob_to_qual(double error_probability) {
  if (!(error_probability >= 0.0 && error_probability <= 1.0)) {
    throw Error("adaptive pruning: error rate must be a probability, got " +
                std::to_string(error_probability));
  }
  // Java rounds +infinity (p = 0) to Long.MAX_VALUE, which the int cast saturates; the bound
  // then gives the cap.
  if (error_probability == 0.0) return kMaxSamQual;
  const std::int64_t rounded = java_round(-10.0 * std::log10(error_probability));
  if (rounded > kMaxSamQual) return kMaxSamQual;
  return rounded < 1 ? 1 : static_cast<int>(rounded);
}

/// MathUtils.fastBernoulliEntropy: an approximation of -p ln p - (1 - p) ln(1 - p).
double fast_bernoulli_entropy(double p) {
  const double product = p * (1 - p);
  return product * (11 + 33 * product) / (2 + 20 * product);
}

/// Java's Double.compare: numeric order, -0.0 before 0.0, NaN last.
int java_double_compare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  auto bits = [](double v) {
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    std::int64_t out;
    std::memcpy(&out, &v, sizeof out);
    return out;
  };
  const std::int64_t x = bits(a);
  const std::int64_t y = bits(b);
  return x == y ? 0 : (x < y ? -1 : 1);
}

/// One chain as the pruner looks at it.
struct Chain {
  std::vector<EdgeId> edges;
  VertexId first = kNoVertex;
  VertexId last = kNoVertex;
  std::string bases;  ///< Path.getBases(): the tie-breaker after the first vertex's sequence
  bool starts_with_ref = false;
  bool holds_ref = false;
  int max_multiplicity = 0;
  std::int64_t multiplicity_sum = 0;
};

std::vector<Chain> describe_chains(const BaseGraph& graph) {
  std::vector<Chain> chains;
  for (GraphChain& found : find_all_chains(graph)) {
    Chain chain;
    chain.edges = std::move(found.edges);
    chain.first = graph.edge_source(chain.edges.front());
    chain.last = found.last_vertex;
    chain.bases = graph.additional_sequence(chain.first, true);
    chain.starts_with_ref = graph.edge(chain.edges.front()).is_ref();
    for (EdgeId e : chain.edges) {
      const AssemblyEdge& edge = graph.edge(e);
      chain.bases += graph.additional_sequence(graph.edge_target(e), false);
      chain.holds_ref = chain.holds_ref || edge.is_ref();
      chain.max_multiplicity = std::max(chain.max_multiplicity, edge.multiplicity());
      chain.multiplicity_sum += edge.multiplicity();
    }
    chains.push_back(std::move(chain));
  }
  return chains;
}

int multiplicity_sum(const BaseGraph& graph, std::span<const EdgeId> edges) {
  int sum = 0;
  for (EdgeId e : edges) sum += graph.edge(e).multiplicity();
  return sum;
}

struct LogOdds {
  double left = 0;
  double right = 0;
};

/// chainLogOdds: the first edge against its vertex's other outgoing edges, the last edge against
/// its vertex's other incoming edges.
LogOdds chain_log_odds(const BaseGraph& graph, const Chain& chain, double error_rate) {
  const int left_total = multiplicity_sum(graph, graph.outgoing_edges(chain.first));
  const int right_total = multiplicity_sum(graph, graph.incoming_edges(chain.last));
  const int left = graph.edge(chain.edges.front()).multiplicity();
  const int right = graph.edge(chain.edges.back()).multiplicity();
  LogOdds odds;
  if (!graph.is_source(chain.first)) {
    odds.left = mutect_log_likelihood_ratio(left_total - left, left, error_rate);
  }
  if (!graph.is_sink(chain.last)) {
    odds.right = mutect_log_likelihood_ratio(right_total - right, right, error_rate);
  }
  return odds;
}

/// getMaxWeightChain: the heaviest edge, then the most edges, then the greatest first-vertex
/// sequence; the earliest chain among equals (Stream.max keeps the first).
std::size_t max_weight_chain(const BaseGraph& graph, const std::vector<Chain>& chains) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < chains.size(); ++i) {
    const Chain& a = chains[best];
    const Chain& b = chains[i];
    int cmp = (a.max_multiplicity > b.max_multiplicity) - (a.max_multiplicity < b.max_multiplicity);
    if (cmp == 0) cmp = (a.edges.size() > b.edges.size()) - (a.edges.size() < b.edges.size());
    if (cmp == 0) cmp = graph.sequence(a.first).compare(graph.sequence(b.first));
    if (cmp < 0) best = i;
  }
  return best;
}

/// likelyErrorChains: per chain, whether it stays outside the grown subgraph of good chains.
std::vector<char> likely_error_chains(const BaseGraph& graph, const std::vector<Chain>& chains,
                                      double error_rate, const AdaptivePruning& pruning) {
  std::vector<LogOdds> odds;
  odds.reserve(chains.size());
  for (const Chain& chain : chains) odds.push_back(chain_log_odds(graph, chain, error_rate));

  const std::size_t vertex_capacity = graph.vertex_capacity();
  std::vector<std::vector<std::uint32_t>> seedable(vertex_capacity);
  std::vector<std::vector<std::uint32_t>> good_incoming(vertex_capacity);
  std::vector<std::vector<std::uint32_t>> good_outgoing(vertex_capacity);
  for (std::uint32_t c = 0; c < chains.size(); ++c) {
    const Chain& chain = chains[c];
    if (odds[c].right >= pruning.log_odds_threshold || chain.starts_with_ref) {
      good_incoming[chain.last].push_back(c);
    }
    if (odds[c].left >= pruning.log_odds_threshold || chain.starts_with_ref) {
      good_outgoing[chain.first].push_back(c);
    }
    if (odds[c].right >= pruning.seeding_log_odds_threshold &&
        odds[c].left >= pruning.seeding_log_odds_threshold) {
      seedable[chain.first].push_back(c);
      seedable[chain.last].push_back(c);
    }
  }

  // The queue of chains to add, highest log odds first; ties by the first vertex's sequence,
  // then the chain's bases (GATK's comparator), then discovery order.
  struct Candidate {
    std::uint32_t chain;
    double log_odds;
  };
  auto polls_later = [&](const Candidate& a, const Candidate& b) {
    int cmp = java_double_compare(-a.log_odds, -b.log_odds);
    if (cmp == 0)
      cmp = graph.sequence(chains[a.chain].first).compare(graph.sequence(chains[b.chain].first));
    if (cmp == 0) cmp = chains[a.chain].bases.compare(chains[b.chain].bases);
    if (cmp == 0) cmp = (a.chain > b.chain) - (a.chain < b.chain);
    return cmp > 0;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(polls_later)> to_add(polls_later);
  std::vector<char> processed(vertex_capacity, 0);
  auto enqueue_incident = [&](VertexId v) {
    for (std::uint32_t c : good_outgoing[v]) to_add.push({c, odds[c].left});
    for (std::uint32_t c : good_incoming[v]) to_add.push({c, odds[c].right});
    processed[v] = 1;
  };

  to_add.push({static_cast<std::uint32_t>(max_weight_chain(graph, chains)),
               std::numeric_limits<double>::infinity()});
  for (VertexId v = 0; v < vertex_capacity; ++v) {
    if (seedable[v].size() > 2) enqueue_incident(v);
  }

  std::vector<char> good(chains.size(), 0);
  std::vector<char> has_good_outgoing(vertex_capacity, 0);
  int variant_count = 0;
  while (!to_add.empty() && variant_count <= pruning.max_unpruned_variants) {
    const std::uint32_t c = to_add.top().chain;
    to_add.pop();
    if (good[c]) continue;
    good[c] = 1;
    // A second good chain out of one vertex is a variant.
    const bool new_variant = has_good_outgoing[chains[c].first] != 0;
    has_good_outgoing[chains[c].first] = 1;
    if (new_variant && ++variant_count > pruning.max_unpruned_variants) continue;
    for (VertexId v : {chains[c].first, chains[c].last}) {
      if (!processed[v]) enqueue_incident(v);
    }
  }
  for (char& g : good) g = !g;
  return good;
}

}  // namespace

double mutect_log_likelihood_ratio(int ref_count, int alt_count, double error_probability) {
  if (ref_count < 0 || alt_count < 0) {
    throw Error("adaptive pruning: negative read count");
  }
  const int qual = error_prob_to_qual(error_probability);
  const int n = ref_count + alt_count;
  const double f_tilde_ratio =
      std::exp(activity_math::digamma(ref_count + 1) - activity_math::digamma(alt_count + 1));
  // QualityUtils.qualToErrorProb and NaturalLogUtils.qualToLogErrorProb / qualToLogProb.
  const double epsilon = std::pow(10.0, qual / -10.0);
  const double log_epsilon = qual * (-std::log(10.0) / 10);
  const double log_one_minus_epsilon = log1mexp(log_epsilon);
  const double z_bar_alt = (1 - epsilon) / (1 - epsilon + epsilon * f_tilde_ratio);
  const double read_sum =
      z_bar_alt * (log_one_minus_epsilon - log_epsilon) + fast_bernoulli_entropy(z_bar_alt);
  const double beta_entropy =
      -std::log(n + 1) - activity_math::binomial_coefficient_log(n, alt_count);
  return beta_entropy + read_sum * alt_count;
}

void prune_chains_adaptively(BaseGraph& graph, const AdaptivePruning& pruning) {
  if (!(pruning.initial_error_rate > 0 && pruning.initial_error_rate <= 1)) {
    throw Error("adaptive pruning: the initial error rate must be in (0, 1]");
  }
  const std::vector<Chain> chains = describe_chains(graph);
  if (chains.empty()) return;

  // The error rate the first pass's errors show: their last edges over every chain's edges.
  const std::vector<char> probable_errors =
      likely_error_chains(graph, chains, pruning.initial_error_rate, pruning);
  std::int64_t error_count = 0;
  std::int64_t total_bases = 0;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    if (probable_errors[c]) error_count += graph.edge(chains[c].edges.back()).multiplicity();
    total_bases += chains[c].multiplicity_sum;
  }
  const double error_rate = static_cast<double>(error_count) / static_cast<double>(total_bases);

  const std::vector<char> errors = likely_error_chains(graph, chains, error_rate, pruning);
  std::vector<EdgeId> to_remove;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    if (errors[c] && !chains[c].holds_ref) {
      to_remove.insert(to_remove.end(), chains[c].edges.begin(), chains[c].edges.end());
    }
  }
  graph.remove_all_edges(to_remove);
  graph.remove_singleton_orphan_vertices();
}

}  // namespace gpp::stages::call
