// Helpers shared by the local-assembly tests: GATK's BaseGraph.addEdges chains, paths' bases and
// reads with flat qualities (ArtificialReadUtils.createArtificialRead).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/assembly_graph.hpp"
#include "stages/call/kbest_haplotype_finder.hpp"
#include "stages/call/read_threading_assembler.hpp"

namespace gpp::stages::call::testing {

/// BaseGraph.addEdges(start, remaining...): factory edges along the chain.
inline void add_edges(BaseGraph& graph, std::initializer_list<VertexId> chain) {
  const auto* it = chain.begin();
  for (VertexId prev = *it++; it != chain.end(); prev = *it++) graph.add_edge(prev, *it);
}

/// BaseGraph.addEdges(template, start, remaining...): a copy of `edge` on each link.
inline void add_edges(BaseGraph& graph, const AssemblyEdge& edge,
                      std::initializer_list<VertexId> chain) {
  const auto* it = chain.begin();
  for (VertexId prev = *it++; it != chain.end(); prev = *it++) graph.add_edge(prev, *it, edge);
}

inline std::vector<std::string> path_bases(const std::vector<KBestHaplotype>& paths) {
  std::vector<std::string> bases;
  for (const auto& p : paths) bases.push_back(p.bases);
  return bases;
}

inline std::vector<std::string> sorted_distinct(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

inline std::set<std::string> vertex_sequences(const BaseGraph& graph) {
  std::set<std::string> result;
  for (VertexId v : graph.vertex_set()) result.insert(graph.sequence(v));
  return result;
}

/// ReadThreadingGraphUnitTest.getBytes: an alignment string without its gaps.
inline std::string ungapped(std::string_view alignment) {
  std::string s;
  for (char c : alignment) {
    if (c != '-') s += c;
  }
  return s;
}

/// Reads owning their bases and flat qualities, viewable as AssemblyRead.
class TestReads {
 public:
  void add(std::string bases, std::uint8_t quality = 30) {
    quals_.emplace_back(bases.size(), quality);
    bases_.push_back(std::move(bases));
  }
  std::vector<AssemblyRead> reads() const {
    std::vector<AssemblyRead> reads;
    for (std::size_t i = 0; i < bases_.size(); ++i) {
      reads.push_back(AssemblyRead{bases_[i], quals_[i], static_cast<std::uint32_t>(i), 0});
    }
    return reads;
  }

 private:
  std::vector<std::string> bases_;
  std::vector<std::vector<std::uint8_t>> quals_;
};

/// A reproducible pseudo-random reference (64-bit LCG), free of the low-complexity stretches a
/// real genome has: the assembler tests' stand-in for GATK's hg19 chr1 window.
inline std::string pseudo_random_bases(std::size_t length, std::uint64_t seed) {
  std::string s;
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < length; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    s += "ACGT"[(state >> 33) & 3];
  }
  return s;
}

}  // namespace gpp::stages::call::testing
