#include "io/alignment_writer.hpp"

#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>

#include "io/hts_handles.hpp"
#include "io/output_file.hpp"
#include "io/record_codec.hpp"
#include "kernels/error.hpp"

namespace gpp::io {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// BAI bins cover at most 2^29 - 1 bases; longer contigs need CSI.
constexpr std::int64_t kMaxBaiContigLength = (std::int64_t{1} << 29) - 1;
constexpr int kCsiMinShift = 14;

bool needs_csi(const Header& header) {
  for (const Contig& contig : header.contigs()) {
    if (contig.length > kMaxBaiContigLength) return true;
  }
  return false;
}

void write_records(const std::string& path, const Header& header, const ReadBatch& batch,
                   std::size_t count, const std::function<std::size_t(std::size_t)>& record_at,
                   const WriterOptions& options) {
  check_output_writable(path);
  const std::string format = output_format_for(path);
  if (format == "cram" && options.reference.empty()) {
    throw Error(path + ": CRAM output needs the reference: pass -R/--reference");
  }
  std::string mode = format == "sam" ? "w" : (format == "cram" ? "wc" : "wb");
  if (options.compression_level >= 0 && format != "sam") {
    mode += std::to_string(std::min(options.compression_level, 9));
  }
  const bool indexed = options.write_index && format != "sam";

  OutputFile output(path);
  std::optional<OutputFile> index_output;
  if (indexed) index_output.emplace(index_path_for(path, header));
  {
    hts::File fp(hts_open(output.temp_path().c_str(), mode.c_str()));
    if (!fp) throw Error(path + ": cannot create (" + std::strerror(errno ? errno : EIO) + ")");
    if (format == "cram" && hts_set_fai_filename(fp.get(), options.reference.c_str()) != 0) {
      throw Error(options.reference + ": cannot use as the CRAM reference");
    }
    if (options.threads > 0 && hts_set_threads(fp.get(), options.threads) != 0) {
      throw Error(path + ": cannot start " + std::to_string(options.threads) + " compression threads");
    }
    if (sam_hdr_write(fp.get(), header.get()) != 0) throw Error(path + ": cannot write the header");
    if (indexed) {
      const int min_shift = format == "bam" && needs_csi(header) ? kCsiMinShift : 0;
      if (sam_idx_init(fp.get(), header.get(), min_shift, index_output->temp_path().c_str()) != 0) {
        throw Error(path + ": cannot start the index");
      }
    }
    hts::Record record(bam_init1());
    for (std::size_t k = 0; k < count; ++k) {
      detail::encode_record(batch, record_at(k), *record);
      if (sam_write1(fp.get(), header.get(), record.get()) < 0) {
        throw Error(path + ": cannot write record " + std::to_string(k + 1) +
                    (indexed ? " (records must be coordinate-sorted to be indexed)" : ""));
      }
    }
    if (indexed && sam_idx_save(fp.get()) != 0) throw Error(path + ": cannot write the index");
    if (hts_close(fp.release()) != 0) throw Error(path + ": cannot finish writing (disk full?)");
  }
  if (index_output) index_output->commit();
  output.commit();
}

}  // namespace

std::string output_format_for(const std::string& path) {
  if (ends_with(path, ".sam")) return "sam";
  if (ends_with(path, ".cram")) return "cram";
  return "bam";
}

std::string index_path_for(const std::string& path, const Header& header) {
  const std::string format = output_format_for(path);
  if (format == "cram") return path + ".crai";
  return path + (needs_csi(header) ? ".csi" : ".bai");
}

void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      std::span<const std::uint32_t> order, const WriterOptions& options) {
  if (order.size() != batch.size()) {
    throw Error(path + ": internal error: write order has " + std::to_string(order.size()) +
                " entries for " + std::to_string(batch.size()) + " records");
  }
  write_records(path, header, batch, order.size(), [&](std::size_t k) { return order[k]; }, options);
}

void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      const WriterOptions& options) {
  write_records(path, header, batch, batch.size(), [](std::size_t k) { return k; }, options);
}

}  // namespace gpp::io
