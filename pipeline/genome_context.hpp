// Reference bases and known sites for BQSR, loaded for the contigs that carry reads.
#pragma once

#include <string>
#include <vector>

#include "io/header.hpp"
#include "io/read_batch.hpp"
#include "io/reference.hpp"
#include "stages/bqsr/base_recalibrator.hpp"

namespace gpp::pipeline {

/// The contigs of `header` holding a mapped read of `reads`: their bases from `reference` and the
/// union of the spans of every known-sites file, sorted by start.
stages::bqsr::GenomeContext load_genome_context(const io::Reference& reference, const io::Header& header,
                                                const io::ReadBatch& reads,
                                                const std::vector<std::string>& known_sites);

}  // namespace gpp::pipeline
