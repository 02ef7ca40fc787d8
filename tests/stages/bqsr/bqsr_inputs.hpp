// Real BQSR inputs for the counting and kernel tests: reads, reference bases and known sites.
#pragma once

#include <string>
#include <vector>

#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"
#include "stages/bqsr/base_recalibrator.hpp"

namespace gpp::test {

struct BqsrInput {
  std::string name;
  io::Header header;
  io::ReadBatch reads;
  stages::bqsr::GenomeContext genome;
};

/// A BAM under tests/data with its reference and known-sites files.
BqsrInput load_bqsr_input(const std::string& bam, const std::string& fasta,
                          const std::vector<std::string>& vcfs);

/// The nf-core chr22 test2 BAM (dbSNP + Mills) and GATK's NA12878 chr17 BAM (dbSNP).
std::vector<BqsrInput> bqsr_inputs();

}  // namespace gpp::test
