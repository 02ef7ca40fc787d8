#include "io/alignment_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "io/hts_handles.hpp"
#include "io/output_file.hpp"
#include "io/record_codec.hpp"
#include "io/thread_pool.hpp"
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
  return std::any_of(header.contigs().begin(), header.contigs().end(),
                     [](const Contig& c) { return c.length > kMaxBaiContigLength; });
}

}  // namespace

std::string output_format_for(const std::string& path) {
  if (ends_with(path, ".sam")) return "sam";
  if (ends_with(path, ".cram")) return "cram";
  return "bam";
}

std::string index_path_for(const std::string& path, const Header& header) {
  if (output_format_for(path) == "cram") return path + ".crai";
  return path + (needs_csi(header) ? ".csi" : ".bai");
}

struct AlignmentWriter::State {
  std::string path;
  Header header;
  bool indexed = false;
  std::optional<OutputFile> output;
  std::optional<OutputFile> index_output;
  hts::File file;
  hts::Record record{bam_init1()};
  std::uint64_t written = 0;

  void write_one(const ReadBatch& batch, std::size_t i) {
    detail::encode_record(batch, i, *record);
    if (sam_write1(file.get(), header.get(), record.get()) < 0) {
      throw Error(path + ": cannot write record " + std::to_string(written + 1) +
                  (indexed ? " (records must be coordinate-sorted to be indexed)" : ""));
    }
    ++written;
  }
};

AlignmentWriter::AlignmentWriter(const std::string& path, const Header& header,
                                 const WriterOptions& options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = path;
  s.header = header;
  check_output_writable(path);
  const std::string format = output_format_for(path);
  if (format == "cram" && options.reference.empty()) {
    throw Error(path + ": CRAM output needs the reference: pass -R/--reference");
  }
  std::string mode = format == "sam" ? "w" : (format == "cram" ? "wc" : "wb");
  if (options.compression_level >= 0 && format != "sam") {
    mode += std::to_string(std::min(options.compression_level, 9));
  }
  s.indexed = options.write_index && format != "sam";
  s.output.emplace(path);
  if (s.indexed) s.index_output.emplace(index_path_for(path, header));

  s.file.reset(hts_open(s.output->temp_path().c_str(), mode.c_str()));
  if (!s.file) throw Error(path + ": cannot create (" + std::strerror(errno ? errno : EIO) + ")");
  htsFile* fp = s.file.get();
  if (format == "cram" && hts_set_fai_filename(fp, options.reference.c_str()) != 0) {
    throw Error(options.reference + ": cannot use as the CRAM reference");
  }
  if (options.pool != nullptr) {
    if (hts_set_thread_pool(fp, static_cast<htsThreadPool*>(options.pool->native())) != 0) {
      throw Error(path + ": cannot attach the I/O thread pool");
    }
  } else if (options.threads > 0 && hts_set_threads(fp, options.threads) != 0) {
    throw Error(path + ": cannot start " + std::to_string(options.threads) + " compression threads");
  }
  if (sam_hdr_write(fp, header.get()) != 0) throw Error(path + ": cannot write the header");
  if (s.indexed) {
    const int min_shift = format == "bam" && needs_csi(header) ? kCsiMinShift : 0;
    if (sam_idx_init(fp, header.get(), min_shift, s.index_output->temp_path().c_str()) != 0) {
      throw Error(path + ": cannot start the index");
    }
  }
}

AlignmentWriter::~AlignmentWriter() = default;  // uncommitted outputs remove themselves

void AlignmentWriter::write(const ReadBatch& batch) {
  for (std::size_t i = 0; i < batch.size(); ++i) state_->write_one(batch, i);
}

void AlignmentWriter::write(const ReadBatch& batch, std::span<const std::uint32_t> order) {
  for (const std::uint32_t i : order) {
    if (i >= batch.size()) throw Error(state_->path + ": internal error: write order out of range");
    state_->write_one(batch, i);
  }
}

void AlignmentWriter::finish() {
  State& s = *state_;
  if (!s.file) throw Error(s.path + ": internal error: finished twice");
  if (s.indexed && sam_idx_save(s.file.get()) != 0) throw Error(s.path + ": cannot write the index");
  if (hts_close(s.file.release()) != 0) throw Error(s.path + ": cannot finish writing (disk full?)");
  if (s.index_output) s.index_output->commit();
  s.output->commit();
}

std::uint64_t AlignmentWriter::records_written() const { return state_->written; }

void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      std::span<const std::uint32_t> order, const WriterOptions& options) {
  if (order.size() != batch.size()) {
    throw Error(path + ": internal error: write order has " + std::to_string(order.size()) +
                " entries for " + std::to_string(batch.size()) + " records");
  }
  AlignmentWriter writer(path, header, options);
  writer.write(batch, order);
  writer.finish();
}

void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      const WriterOptions& options) {
  AlignmentWriter writer(path, header, options);
  writer.write(batch);
  writer.finish();
}

}  // namespace gpp::io
