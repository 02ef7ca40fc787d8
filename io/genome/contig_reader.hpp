// ContigReader: whole contigs of a FASTA read in 1 Mb pieces on the oneTBB threads, each thread
// through a faidx handle of its own (faidx is not thread-safe). Read on one thread, a chromosome
// takes seconds (10 Mb took 0.12-0.19 s of the caller's critical path on a 16-core host, two
// 250 Mb contigs 3.9 s of run's counting pass); in pieces, a hundredth of that.
//
// @code
//   io::ContigReader contigs(reference.path());
//   const std::string bases = contigs.read("chr20", reference.contig_length("chr20"));
// @endcode
#pragma once

#include <oneapi/tbb/enumerable_thread_specific.h>

#include <cstdint>
#include <optional>
#include <string>

#include "io/genome/reference.hpp"

namespace gpp::io {

class ContigReader {
 public:
  /// Handles on the FASTA at `path` are opened as threads first need them.
  explicit ContigReader(std::string path) : path_(std::move(path)) {}

  /// Bases [0, length) of `name` exactly as stored in the FASTA; throws gpp::Error naming the
  /// file and the piece that cannot be read.
  std::string read(const std::string& name, std::int64_t length);

 private:
  std::string path_;
  oneapi::tbb::enumerable_thread_specific<std::optional<Reference>> handles_;
};

}  // namespace gpp::io
