#include "pipeline/genome_context.hpp"

#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "pipeline/log.hpp"

namespace gpp::pipeline {

GenomeContextLoader::GenomeContextLoader(const io::Reference& reference, const io::Header& header,
                                         const std::vector<std::string>& known_sites)
    : reference_(reference), contigs_(reference.path()), header_(header) {
  for (const std::string& path : known_sites) {
    io::KnownSites& sites = sites_.emplace_back(path);
    // Sites on a contig the reference lacks can mask nothing: say so rather than drop them.
    std::vector<std::string> absent;
    for (const std::string& contig : sites.contigs_with_sites()) {
      if (!reference.has_contig(contig)) absent.push_back(contig);
    }
    if (!absent.empty()) {
      std::string names = absent.front();
      for (std::size_t i = 1; i < std::min<std::size_t>(absent.size(), 5); ++i) {
        names += ", " + absent[i];
      }
      if (absent.size() > 5) names += ", ...";
      log::warning(path + ": known sites on " + std::to_string(absent.size()) +
                   " contig(s) the reference " + reference.path() + " lacks (" + names +
                   "): they are not used");
    }
  }
  const std::size_t contigs = header.contigs().size();
  loaded_.assign(contigs, false);
  genome_.contig_bases.resize(contigs);
  genome_.known_sites.resize(contigs);
}

void GenomeContextLoader::load_contigs_of(const io::ReadBatch& reads) {
  std::vector<bool> used(loaded_.size(), false);
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (reads.tid[i] >= 0 && !(reads.flag[i] & io::flag::kUnmapped))
      used[static_cast<std::size_t>(reads.tid[i])] = true;
  }
  for (std::size_t t = 0; t < used.size(); ++t) {
    if (used[t] && !loaded_[t]) load(t);
  }
}

void GenomeContextLoader::unload_before(std::size_t t) {
  for (std::size_t k = 0; k < std::min(t, loaded_.size()); ++k) {
    if (genome_.contig_bases[k].empty() && genome_.known_sites[k].empty()) continue;
    std::string().swap(genome_.contig_bases[k]);
    genome_.known_sites[k] = stages::bqsr::KnownSiteIndex();
    loaded_[k] = true;
  }
}

void GenomeContextLoader::load(std::size_t t) {
  const io::Contig& contig = header_.contigs()[t];
  const std::int64_t length = reference_.contig_length(contig.name);
  if (length < 0) throw Error(reference_.path() + ": no contig '" + contig.name + "'");
  // The known sites are read while the bases are, in pieces on the other threads.
  oneapi::tbb::task_group reading_sites;
  reading_sites.run([&] {
    std::vector<io::VariantSpan> spans;
    for (io::KnownSites& file : sites_) {
      const std::vector<io::VariantSpan> found = file.contig_sites(contig.name, length);
      spans.insert(spans.end(), found.begin(), found.end());
    }
    genome_.known_sites[t] = stages::bqsr::KnownSiteIndex(std::move(spans));
  });
  try {
    genome_.contig_bases[t] = contigs_.read(contig.name, std::min(contig.length, length));
  } catch (...) {
    reading_sites.wait();
    throw;
  }
  reading_sites.wait();
  loaded_[t] = true;
}

stages::bqsr::GenomeContext load_genome_context(const io::Reference& reference,
                                                const io::Header& header,
                                                const io::ReadBatch& reads,
                                                const std::vector<std::string>& known_sites) {
  GenomeContextLoader loader(reference, header, known_sites);
  loader.load_contigs_of(reads);
  return loader.release();
}

}  // namespace gpp::pipeline
