// The PairHMM batch text format of gpuPairHMM and MauricioCarneiro/PairHMM (shared/data/README.md):
//   R H                              a region: R reads, H haplotypes
//   read qual ins del gcp            x R, five fields of equal length, qualities Phred+33
//   haplotype                        x H
// repeated; blank lines between records are allowed. Used by `gpu-pipeline pairhmm`, the tests and
// bench_pairhmm.
#pragma once

#include <string>

#include "kernels/pairhmm.hpp"

namespace gpp::kernels {

/**
 * @brief Reads a batch file into `batch` (cleared first).
 * @throws gpp::Error "FILE:LINE: what is wrong" for an unreadable file, a malformed count line, a
 *         read line without exactly five fields, fields of unequal length, bases other than
 *         A, C, G, T, N (either case), quality characters outside '!'..'~', or a truncated record
 */
void read_pairhmm_batch_file(const std::string& path, PairHmmBatch& batch);

/// Parses batch text (as read from `name`, which only appears in error messages).
void parse_pairhmm_batch(const std::string& text, const std::string& name, PairHmmBatch& batch);

}  // namespace gpp::kernels
