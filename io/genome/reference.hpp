// Reference: a FASTA genome through its faidx index (plain, or bgzip-compressed with .gzi); a
// plain FASTA's bases are read straight from the file (io/genome/plain_fasta.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/reads/header.hpp"

struct faidx_t;

namespace gpp::io {

class PlainFasta;

class Reference {
 public:
  /// Opens `path`, building the .fai when it is missing; throws gpp::Error naming the file.
  explicit Reference(const std::string& path);
  ~Reference();
  Reference(Reference&&) noexcept;
  Reference& operator=(Reference&&) noexcept;

  const std::string& path() const { return path_; }
  const std::vector<Contig>& contigs() const { return contigs_; }
  bool has_contig(const std::string& name) const;
  /// Length of a contig, or -1 when absent.
  std::int64_t contig_length(const std::string& name) const;

  /// Bases [start, end) (0-based, clipped to the contig) exactly as stored in the FASTA.
  /// Not thread-safe: use one Reference per thread.
  std::string fetch(const std::string& contig, std::int64_t start, std::int64_t end) const;

  /// Throws gpp::Error unless every contig of `header` (of file `alignment_path`) is in the
  /// reference with the same length.
  void check_matches(const Header& header, const std::string& alignment_path) const;

 private:
  std::string path_;
  std::unique_ptr<faidx_t, void (*)(faidx_t*)> fai_;
  std::unique_ptr<PlainFasta> plain_;  ///< the bytes read directly (uncompressed FASTA only)
  std::vector<Contig> contigs_;
};

}  // namespace gpp::io
