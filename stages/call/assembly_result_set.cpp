// The haplotype list of a region's AssemblyResultSet as GATK ReadThreadingAssembler.findBestPaths
// leaves it (with AssemblyResultSet.add / replaceAllHaplotypes and Haplotype.equals, which
// compares bases and the reference flag); see read_threading_assembler.hpp.
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "stages/call/read_threading_assembler.hpp"

namespace gpp::stages::call {

std::vector<AssembledHaplotype> collect_haplotypes(std::span<const KmerGraphPaths> graphs,
                                                   std::string_view ref_haplotype,
                                                   const HaplotypeFilter& keep) {
  // A LinkedHashSet<Haplotype>: insertion order, identity = (bases, is_reference).
  std::vector<AssembledHaplotype> listed;
  std::set<std::pair<std::string, bool>, std::less<>> present;
  const auto contains = [&present](std::string_view bases, bool is_reference) {
    return present.count(std::pair<std::string, bool>(bases, is_reference)) != 0;
  };
  const std::string ref(ref_haplotype);
  AssembledHaplotype reference{ref, true, std::numeric_limits<double>::quiet_NaN(), 0};

  for (const KmerGraphPaths& graph : graphs) {
    for (const KBestHaplotype& path : graph.best_paths) {
      // GATK's k-best paths are never flagged reference, so the reference path is listed as a
      // non-reference haplotype here and replaced below.
      if (contains(path.bases, false)) continue;
      if (keep && !keep(path.bases)) continue;
      listed.push_back(AssembledHaplotype{path.bases, false, path.score, graph.kmer_size});
      present.emplace(path.bases, false);
    }
    if (listed.empty()) continue;
    if (contains(ref, false)) {
      std::erase_if(listed, [&ref](const AssembledHaplotype& h) {
        return !h.is_reference && h.bases == ref;
      });
      present.erase(std::pair<std::string, bool>(ref, false));
    }
    if (!contains(ref, true)) {
      listed.push_back(reference);
      present.emplace(ref, true);
    }
  }
  if (listed.empty()) listed.push_back(reference);  // the result set starts with the reference
  return listed;
}

}  // namespace gpp::stages::call
