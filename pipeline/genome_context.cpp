#include "pipeline/genome_context.hpp"

#include <algorithm>

#include "io/known_sites.hpp"

namespace gpp::pipeline {

stages::bqsr::GenomeContext load_genome_context(const io::Reference& reference, const io::Header& header,
                                                const io::ReadBatch& reads,
                                                const std::vector<std::string>& known_sites) {
  const std::size_t contigs = header.contigs().size();
  std::vector<bool> used(contigs, false);
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (reads.tid[i] >= 0 && !(reads.flag[i] & io::flag::kUnmapped)) used[static_cast<std::size_t>(reads.tid[i])] = true;
  }
  stages::bqsr::GenomeContext genome;
  genome.contig_bases.resize(contigs);
  genome.known_sites.resize(contigs);
  genome.max_site_span.assign(contigs, 0);
  std::vector<io::KnownSites> sites;
  for (const std::string& path : known_sites) sites.emplace_back(path);
  for (std::size_t t = 0; t < contigs; ++t) {
    if (!used[t]) continue;
    const io::Contig& contig = header.contigs()[t];
    genome.contig_bases[t] = reference.fetch(contig.name, 0, contig.length);
    auto& spans = genome.known_sites[t];
    for (io::KnownSites& file : sites) {
      const std::vector<io::VariantSpan> found = file.contig_sites(contig.name);
      spans.insert(spans.end(), found.begin(), found.end());
    }
    std::stable_sort(spans.begin(), spans.end(),
                     [](const io::VariantSpan& a, const io::VariantSpan& b) { return a.start < b.start; });
    for (const io::VariantSpan& span : spans) {
      genome.max_site_span[t] = std::max(genome.max_site_span[t], span.end - span.start);
    }
  }
  return genome;
}

}  // namespace gpp::pipeline
