// Writing ReadBatch columns back to SAM, BAM or CRAM (format from the file extension), with
// multi-threaded compression and, for coordinate-sorted output, a BAI (CSI when a contig is
// longer than BAI's 2^29 - 1 limit; CRAI for CRAM) built on the fly. Output appears only when
// complete (io/output_file.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "io/header.hpp"
#include "io/read_batch.hpp"

namespace gpp::io {

struct WriterOptions {
  int threads = 0;             ///< compression threads beside the calling one (samtools -@)
  std::string reference;       ///< FASTA, required for CRAM output
  int compression_level = -1;  ///< 0-9; -1 = HTSlib's default (as samtools)
  bool write_index = false;    ///< index the output (records must be coordinate-sorted)
};

/// "bam", "sam" or "cram" from the extension of `path` (anything else is BAM).
std::string output_format_for(const std::string& path);

/// Path of the index written beside `path` (".bai", ".csi" or ".crai").
std::string index_path_for(const std::string& path, const Header& header);

/**
 * @brief Writes the records of `batch` in the order given by `order` (record order[0] first).
 * @throws gpp::Error naming `path` when it cannot be written; nothing is left behind then
 */
void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      std::span<const std::uint32_t> order, const WriterOptions& options);

/// Writes every record of `batch` in batch order.
void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      const WriterOptions& options);

}  // namespace gpp::io
