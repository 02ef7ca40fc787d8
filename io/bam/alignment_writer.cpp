#include "io/bam/alignment_writer.hpp"

#include <htslib/hfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>
#include <optional>

#include "core/error.hpp"
#include "core/prefetch.hpp"
#include "io/bam/bam_encoding.hpp"
#include "io/bam/bgzf_writer.hpp"
#include "io/bam/hts_handles.hpp"
#include "io/bam/record_codec.hpp"
#include "io/bam/thread_pool.hpp"
#include "io/output_file.hpp"

namespace gpp::io {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// BAI bins cover at most 2^29 - 1 bases; longer contigs need CSI.
constexpr std::int64_t kMaxBaiContigLength = (std::int64_t{1} << 29) - 1;
/// The smallest bin's shift: BAI's, and CSI's as sam_idx_init makes it.
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

void remove_stale_indexes(const std::string& path, const std::string& written_index) {
  // HTSlib looks for <path>.csi/.bai/.crai, then x.bai for x.bam (Picard's name) and x.crai for
  // x.cram: an index of the file this one replaced would answer region queries wrongly. (x.csi
  // could be another format's index of the same name: kept.)
  std::error_code ec;
  if (is_streamed_output(path) || !std::filesystem::is_regular_file(path, ec)) return;
  std::vector<std::string> candidates;
  for (const char* extension : {".csi", ".bai", ".crai"}) candidates.push_back(path + extension);
  const std::filesystem::path file(path);
  const auto sibling = [&](const char* extension) {
    return (file.parent_path() / (file.stem().string() + extension)).string();
  };
  if (file.extension() == ".bam") candidates.push_back(sibling(".bai"));
  if (file.extension() == ".cram") candidates.push_back(sibling(".crai"));
  for (const std::string& candidate : candidates) {
    if (candidate == written_index || candidate == path ||
        !std::filesystem::is_regular_file(candidate, ec)) {
      continue;
    }
    if (!std::filesystem::remove(candidate, ec) || ec) {
      throw Error(candidate + ": cannot remove this index of the file " + path + " replaced (" +
                  ec.message() + ")");
    }
  }
}

std::string index_path_for(const std::string& path, const Header& header) {
  if (output_format_for(path) == "cram") return path + ".crai";
  return path + (needs_csi(header) ? ".csi" : ".bai");
}

// BAM goes through our own encoder and parallel BGZF writer (records serialised and blocks
// compressed on all threads, index built from the virtual offsets); SAM and CRAM through HTSlib.
struct AlignmentWriter::State {
  std::string path;
  Header header;
  bool indexed = false;
  std::optional<OutputFile> output;
  std::optional<OutputFile> index_output;
  // HTSlib path (SAM, CRAM)
  hts::File file;
  hts::Record record{bam_init1()};
  // native BAM path
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> bam_file{nullptr, std::fclose};
  std::optional<detail::BgzfWriter> bgzf;
  hts::Index index;
  int index_format = HTS_FMT_BAI;
  std::vector<std::uint64_t> record_ends;
  std::uint64_t written = 0;
  bool large_chunks = false;
  std::size_t max_step_bytes = 0;
  bool closed = false;
  BamWriteSeconds closed_seconds{};  ///< the BAM writer's, kept when close() lets it go

  void write_one(const ReadBatch& batch, std::size_t i) {
    detail::encode_record(batch, i, *record);
    if (sam_write1(file.get(), header.get(), record.get()) < 0) {
      throw Error(path + ": cannot write record " + std::to_string(written + 1) +
                  (indexed ? " (records must be coordinate-sorted to be indexed)" : ""));
    }
    ++written;
  }

  // Chunks bound the compressed bytes held before writing, whatever the batch size.
  // A block deflater (a GPU) wants many blocks per call: 16 times as many records. Under
  // max_step_bytes, as many records as fit at the batch's bytes per record.
  template <class Rows>
  std::size_t chunk_records(const Rows& rows) const {
    const std::size_t most = std::size_t{1} << (large_chunks ? 22 : 18);
    if (max_step_bytes == 0) return most;
    constexpr std::size_t kKeptRecordBytes = 512;  // kept records are not in memory_bytes()
    std::size_t records = 0;
    std::size_t bytes = 0;
    for (const ReadBatch* source : rows.sources()) {
      records += source->size();
      bytes +=
          source->keeps_bam_records() ? kKeptRecordBytes * source->size() : source->memory_bytes();
    }
    if (records == 0) return most;
    const std::size_t per_record = std::max<std::size_t>(64, bytes / records);
    return std::clamp(max_step_bytes / per_record, std::size_t{4096}, most);
  }

  template <class Rows>
  void write_native(const Rows& rows) {
    const std::size_t kChunk = chunk_records(rows);
    // The index takes one record at a time (HTSlib's hts_idx_push), on a second thread: a
    // chunk's records as soon as their virtual offsets are final, while its later blocks are
    // still being compressed, so little is left to index when the last block is written. Two
    // vectors of virtual offsets take turns; pushes run one after the other.
    std::vector<std::uint64_t> chunk_virtual_ends[2];
    std::shared_future<void> indexed;           // the last push (declared after what it uses)
    std::shared_future<void> chunk_indexed[2];  // the last push from each vector
    std::size_t c = 0;
    for (std::size_t from = 0; from < rows.size(); from += kChunk, ++c) {
      const Rows chunk = rows.subspan(from, std::min(kChunk, rows.size() - from));
      std::vector<std::uint64_t>& ends = chunk_virtual_ends[c % 2];
      if (chunk_indexed[c % 2].valid())
        chunk_indexed[c % 2].get();  // done with the vector's last chunk
      std::size_t pushed = 0;
      const auto push = [&](std::size_t final_ends) {
        if (final_ends == pushed) return;
        indexed =
            std::async(std::launch::async, [this, &ends, chunk, from_k = pushed, to_k = final_ends,
                                            first = written, before = std::move(indexed)] {
              if (before.valid()) before.get();
              push_to_index(chunk.subspan(from_k, to_k - from_k),
                            std::span(ends).subspan(from_k, to_k - from_k), first + from_k);
            }).share();
        pushed = final_ends;
      };
      detail::bam_record_ends(chunk, record_ends);
      bgzf->write_records(
          record_ends,
          [&](std::size_t k, std::uint8_t* dst) {
            detail::prefetch_rows(chunk, k);
            detail::encode_bam_record(chunk.batch(k), chunk.row(k), dst);
          },
          ends,
          index ? std::function<void(std::size_t)>(push) : std::function<void(std::size_t)>());
      chunk_indexed[c % 2] = indexed;
      written += chunk.size();
    }
    if (indexed.valid()) indexed.get();
  }

  template <class Rows>
  void push_to_index(const Rows& chunk, std::span<const std::uint64_t> ends, std::uint64_t first) {
    // Rows in write order are scattered over the columns: ask for those a few places ahead.
    constexpr std::size_t kAhead = 16;
    for (std::size_t k = 0; k < chunk.size(); ++k) {
      if (k + kAhead < chunk.size()) {
        const ReadBatch& b = chunk.batch(k + kAhead);
        const std::size_t ahead = chunk.row(k + kAhead);
        prefetch(&b.tid[ahead], &b.pos[ahead], &b.end[ahead], &b.flag[ahead]);
      }
      const ReadBatch& batch = chunk.batch(k);
      const std::size_t i = chunk.row(k);
      if (hts_idx_push(index.get(), batch.tid[i], batch.pos[i], batch.end[i], ends[k],
                       !(batch.flag[i] & flag::kUnmapped)) < 0) {
        throw Error(path + ": cannot index record " + std::to_string(first + k + 1) +
                    " (records must be coordinate-sorted to be indexed)");
      }
    }
  }

  void open_native(const WriterOptions& options) {
    bam_file.reset(open_output_stream(output->temp_path()));
    if (!bam_file)
      throw Error(path + ": cannot create (" + std::strerror(errno ? errno : EIO) + ")");
    bgzf.emplace(path, bam_file.get(), options.compression_level, options.deflate_offload,
                 options.deflater_blocks);
    large_chunks = static_cast<bool>(options.deflate_offload);
    max_step_bytes = options.max_step_bytes;
    const auto header_bytes = detail::encode_bam_header(header);
    bgzf->write_and_flush(header_bytes);
    if (indexed) {
      // As HTSlib's sam_idx_init: BAI (14-bit bins, 5 levels) or CSI sized to the longest contig.
      int min_shift = kCsiMinShift;
      int levels = 5;
      if (needs_csi(header)) {
        index_format = HTS_FMT_CSI;
        std::int64_t max_length = 0;
        for (const Contig& c : header.contigs()) max_length = std::max(max_length, c.length);
        max_length += 256;
        levels = 0;
        for (std::int64_t span = std::int64_t{1} << min_shift; max_length > span; span <<= 3)
          ++levels;
      }
      index.reset(hts_idx_init(static_cast<int>(header.contigs().size()), index_format,
                               bgzf->tell(), min_shift, levels));
      if (!index) throw Error(path + ": cannot start the index");
    }
  }

  void finish_native() {
    bgzf->finish();
    if (index) {
      // The index ends where the records end: before the EOF marker block.
      if (hts_idx_finish(index.get(), bgzf->tell() - (std::uint64_t{28} << 16)) != 0 ||
          hts_idx_save_as(index.get(), nullptr, index_output->temp_path().c_str(), index_format) !=
              0) {
        throw Error(path + ": cannot write the index");
      }
    }
    if (std::fflush(bam_file.get()) != 0 || std::fclose(bam_file.release()) != 0) {
      throw Error(path + ": cannot finish writing (disk full?)");
    }
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
  // A stream (standard output, a FIFO) gets no index: there is no file beside it to index.
  s.indexed = options.write_index && format != "sam" && !is_streamed_output(path);
  s.output.emplace(path);
  if (s.indexed) s.index_output.emplace(index_path_for(path, header));
  if (format == "bam") {
    s.open_native(options);
    return;
  }

  const std::string mode = format == "sam" ? "w" : "wc";
  // Opened as open_output_stream opens, then handed to HTSlib (its hts_open truncates).
  const int fd = open_output_descriptor(s.output->temp_path());
  hFILE* handle = fd < 0 ? nullptr : hdopen(fd, "w");
  if (fd >= 0 && handle == nullptr) ::close(fd);
  if (handle != nullptr)
    s.file.reset(hts_hopen(handle, s.output->temp_path().c_str(), mode.c_str()));
  if (!s.file) {
    const int error = errno ? errno : EIO;
    if (handle != nullptr) hclose_abruptly(handle);
    throw Error(path + ": cannot create (" + std::strerror(error) + ")");
  }
  htsFile* fp = s.file.get();
  if (format == "cram" && hts_set_fai_filename(fp, options.reference.c_str()) != 0) {
    throw Error(options.reference + ": cannot use as the CRAM reference");
  }
  if (options.pool != nullptr) {
    if (hts_set_thread_pool(fp, static_cast<htsThreadPool*>(options.pool->native())) != 0) {
      throw Error(path + ": cannot attach the I/O thread pool");
    }
  } else if (options.threads > 0 && hts_set_threads(fp, options.threads) != 0) {
    throw Error(path + ": cannot start " + std::to_string(options.threads) +
                " compression threads");
  }
  if (sam_hdr_write(fp, header.get()) != 0) throw Error(path + ": cannot write the header");
  if (s.indexed && sam_idx_init(fp, header.get(), 0, s.index_output->temp_path().c_str()) != 0) {
    throw Error(path + ": cannot start the index");
  }
}

AlignmentWriter::~AlignmentWriter() = default;  // uncommitted outputs remove themselves

void AlignmentWriter::write(const ReadBatch& batch) {
  std::vector<std::uint32_t> order(batch.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  write(batch, order);
}

void AlignmentWriter::write(const ReadBatch& batch, std::span<const std::uint32_t> order) {
  State& s = *state_;
  for (const std::uint32_t i : order) {
    if (i >= batch.size()) throw Error(s.path + ": internal error: write order out of range");
  }
  const RowsOf rows(batch, order);
  if (s.bgzf) {
    s.write_native(rows);
    return;
  }
  for (const std::uint32_t i : order) s.write_one(batch, i);
}

void AlignmentWriter::write(const RowsAcross& rows) {
  State& s = *state_;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const ReadBatch::RowRef ref = rows.ref(k);
    if (ref.source >= rows.sources().size() || ref.row >= rows.sources()[ref.source]->size()) {
      throw Error(s.path + ": internal error: a written row out of range");
    }
  }
  if (s.bgzf) {
    s.write_native(rows);
    return;
  }
  for (std::size_t k = 0; k < rows.size(); ++k) s.write_one(rows.batch(k), rows.row(k));
}

void AlignmentWriter::finish() {
  close();
  commit();
}

void AlignmentWriter::close() {
  State& s = *state_;
  if (s.closed) throw Error(s.path + ": internal error: closed twice");
  if (s.bgzf) {
    s.finish_native();
    // What stays until commit() is the files: the encoder's buffers and what it borrowed (a GPU
    // block encoder) go now.
    s.closed_seconds = s.bgzf->stage_seconds();
    s.bgzf.reset();
    s.index.reset();
    s.record_ends = {};
  } else {
    if (s.indexed && sam_idx_save(s.file.get()) != 0)
      throw Error(s.path + ": cannot write the index");
    if (hts_close(s.file.release()) != 0)
      throw Error(s.path + ": cannot finish writing (disk full?)");
  }
  s.closed = true;
}

void AlignmentWriter::commit() {
  State& s = *state_;
  if (!s.closed) throw Error(s.path + ": internal error: named before it was complete");
  // The data first: an index older than its data draws a warning from HTSlib.
  s.output->commit();
  if (s.index_output) s.index_output->commit();
  remove_stale_indexes(s.path, s.index_output ? s.index_output->final_path() : std::string());
}

std::uint64_t AlignmentWriter::records_written() const { return state_->written; }

BamWriteSeconds AlignmentWriter::bam_stage_seconds() const {
  return state_->bgzf ? state_->bgzf->stage_seconds() : state_->closed_seconds;
}

void write_alignments(const std::string& path, const Header& header, const ReadBatch& batch,
                      std::span<const std::uint32_t> order, const WriterOptions& options) {
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
