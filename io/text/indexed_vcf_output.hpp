// Writing VCF text: plain (.vcf) or BGZF-compressed and indexed (.vcf.gz, .g.vcf.gz: TBI),
// streamed so that a genome's records need not be held in memory. Compressed text is cut into
// blocks at line ends where a line fits (as HTSlib cuts BAM records) and compressed on the oneTBB
// threads behind the caller; the index is the one `tabix -p vcf` would build from the file, built
// as the lines are placed (io/text/tabix_index.hpp) instead of by reading the file back.
//
// @code
//   io::VcfOutput out("sample.g.vcf.gz");   // temporary names until commit()
//   out.write(header_text);
//   for (...) out.write(record_lines);       // sorted by contig and position
//   out.commit();                            // index built, then file and index renamed
// @endcode
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "io/output_file.hpp"

namespace gpp::io {

class VcfOutput {
 public:
  /// Opens the temporary file; a path ending in ".gz" is BGZF-compressed and indexed.
  /// @throws gpp::Error naming `path` when its directory cannot be written
  explicit VcfOutput(const std::string& path);
  VcfOutput(const VcfOutput&) = delete;
  VcfOutput& operator=(const VcfOutput&) = delete;
  ~VcfOutput();

  /// Appends text (whole lines). @throws gpp::Error naming the path when the write fails
  void write(std::string_view text);

  /// Closes the file and builds the index (compressed output), both still unnamed.
  /// @throws gpp::Error naming the path (disk full, records not sorted for the index)
  void close();
  /// Closes the file unless close() did, then moves it and its index into place.
  /// @throws gpp::Error as close()
  void commit();

 private:
  struct Stream;
  std::string path_;
  bool compressed_ = false;
  bool closed_ = false;
  OutputFile output_;
  std::unique_ptr<OutputFile> index_;
  std::unique_ptr<Stream> stream_;
};

/// A complete VCF written at once through VcfOutput.
void write_indexed_vcf(const std::string& path, const std::string& vcf_text);

}  // namespace gpp::io
