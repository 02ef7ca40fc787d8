// Reference bases and known sites for BQSR, loaded for the contigs that carry reads.
#pragma once

#include <string>
#include <vector>

#include "io/genome/contig_reader.hpp"
#include "io/genome/known_sites.hpp"
#include "io/genome/reference.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "stages/bqsr/base_recalibrator.hpp"

namespace gpp::pipeline {

/// A GenomeContext filled in as reads arrive: a contig's bases (from the reference) and known
/// sites (the union of every known-sites file's spans, sorted by start) are loaded when the first
/// mapped read on it is seen, and stay where they are from then on.
class GenomeContextLoader {
 public:
  /// Opens the known-sites files; throws gpp::Error naming a file that cannot be used.
  GenomeContextLoader(const io::Reference& reference, const io::Header& header,
                      const std::vector<std::string>& known_sites);

  /// Loads every contig that a mapped read of `reads` is on and that is not loaded yet.
  void load_contigs_of(const io::ReadBatch& reads);

  /// Frees the bases and known sites of the contigs before `t` (header order), for reads that
  /// arrive in coordinate order: none of them is needed again, and a genome's bases and known
  /// sites are gigabytes. They are not loaded again.
  void unload_before(std::size_t t);

  const stages::bqsr::GenomeContext& genome() const { return genome_; }
  stages::bqsr::GenomeContext release() { return std::move(genome_); }

 private:
  void load(std::size_t t);

  const io::Reference& reference_;
  io::ContigReader contigs_;  ///< the reference's contigs, read in parallel pieces
  const io::Header& header_;
  std::vector<io::KnownSites> sites_;
  std::vector<bool> loaded_;
  stages::bqsr::GenomeContext genome_;
};

/// The contigs of `header` holding a mapped read of `reads`, loaded as GenomeContextLoader does.
stages::bqsr::GenomeContext load_genome_context(const io::Reference& reference,
                                                const io::Header& header,
                                                const io::ReadBatch& reads,
                                                const std::vector<std::string>& known_sites);

}  // namespace gpp::pipeline
