#include "io/bam/alignment_reader.hpp"

#include <htslib/bgzf.h>
#include <htslib/cram.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "io/bam/bam_bytes.hpp"
#include "io/bam/bam_chunk_reader.hpp"
#include "io/bam/bam_decoding.hpp"
#include "io/bam/hts_handles.hpp"
#include "io/bam/record_codec.hpp"
#include "io/bam/thread_pool.hpp"
#include "io/detail/bgzf_end.hpp"

namespace gpp::io {

// BAM records are inflated and parsed by our own parallel reader; SAM and CRAM go through
// HTSlib record by record. HTSlib reads every header.
struct AlignmentReader::State {
  hts::File file;  // SAM, CRAM, and BAM read through its index
  hts::Record record{bam_init1()};
  hts::Index index;        // restrict_to()'s
  hts::Iterator iterator;  // over restrict_to()'s ranges
  int threads = 0;
  ThreadPool* pool = nullptr;
  std::optional<detail::BamChunkReader> bam;  // BAM
  detail::BamChunk chunk;                     // inflated BAM records, decoded up to `next_record`
  std::size_t next_record = 0;
  std::size_t records_read = 0;
  bool bgzf = false;
  bool keep_records = false;
  bool stream = false;  // standard input, a pipe or a FIFO
  // HTSlib's multi-threaded SAM parser waits for ever on a read after the end: remember the end.
  bool at_end = false;
  RecordVisitor* visitor = nullptr;

  std::size_t read_bam(const std::string& path, const Header& header, ReadBatch& batch,
                       std::size_t max_records);

  // Reading a whole file: extrapolate from the first chunk (records [first, size)) and reserve
  // the columns once, so they are not copied as they grow.
  void reserve_for_file(ReadBatch& batch, std::size_t first) const {
    const std::size_t n = batch.size() - first;
    const std::uint64_t consumed = chunk.compressed_end;
    if (n == 0 || consumed == 0 || consumed >= bam->file_size()) return;
    const double scale =
        1.05 * static_cast<double>(bam->file_size() - consumed) / static_cast<double>(consumed);
    const auto per_record = [&](const Column<std::uint64_t>& offsets) {
      if (offsets.size() <= batch.size())
        return std::size_t{0};  // a column left empty (kept records)
      return static_cast<std::size_t>((offsets[batch.size()] - offsets[first]) / n + 1);
    };
    batch.reserve_more(static_cast<std::size_t>(n * scale), per_record(batch.seq_offset),
                       per_record(batch.name_offset), per_record(batch.cigar_offset),
                       per_record(batch.aux_offset));
    if (visitor != nullptr) visitor->reserve(batch.size() + static_cast<std::size_t>(n * scale));
  }
};

std::size_t AlignmentReader::State::read_bam(const std::string& path, const Header& header,
                                             ReadBatch& batch, std::size_t max_records) {
  std::size_t count = 0;
  while (max_records == 0 || count < max_records) {
    if (next_record == chunk.starts.size()) {
      if (!bam->next(chunk)) break;
      next_record = 0;
    }
    std::size_t take = chunk.starts.size() - next_record;
    if (max_records != 0) take = std::min(take, max_records - count);
    const std::size_t before = batch.size();
    if (keep_records &&
        (batch.bam_record_owners.empty() || batch.bam_record_owners.back() != chunk.slab)) {
      batch.bam_record_owners.push_back(chunk.slab);
    }
    detail::decode_bam_records(chunk.records, std::span(chunk.starts).subspan(next_record, take),
                               header, batch, path, keep_records, visitor);
    next_record += take;
    count += take;
    records_read += take;
    if (max_records == 0 && records_read == take) reserve_for_file(batch, before);
  }
  return count;
}

namespace {

void check_readable(const std::string& path) {
  if (path == kStandardInput) return;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a file");
}

/// Standard input, a pipe, a FIFO or a device: read once, front to back, never seeked.
bool is_stream(const std::string& path) {
  std::error_code ec;
  return path == kStandardInput || !std::filesystem::is_regular_file(path, ec);
}

// Reads past `bytes` bytes of `file`; false when it ends first.
bool skip_bytes(BGZF* file, std::uint64_t bytes) {
  char scratch[1 << 16];
  while (bytes > 0) {
    const auto step = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, sizeof scratch));
    if (bgzf_read(file, scratch, step) != static_cast<ssize_t>(step)) return false;
    bytes -= step;
  }
  return true;
}

bool read_u32(BGZF* file, std::uint32_t& value) {
  std::uint8_t bytes[4];
  if (bgzf_read(file, bytes, 4) != 4) return false;
  value = detail::load32(bytes);
  return true;
}

// A BAM header gives the length of its text and the count of its contigs before them, and
// HTSlib allocates what they claim before reading: 11 bytes can claim 4 GB. Walked here first
// (the lengths read, the bytes skipped), a file that does not hold what it claims is refused
// as truncated before anything is allocated; then it is read again from its start.
void check_bam_header_lengths(BGZF* file, const std::string& path) {
  const std::string truncated = path + ": truncated or corrupt BAM data in the header";
  std::uint32_t magic = 0, text_length = 0, contigs = 0;
  if (!read_u32(file, magic) || !read_u32(file, text_length) || !skip_bytes(file, text_length) ||
      !read_u32(file, contigs)) {
    throw Error(truncated);
  }
  for (std::uint32_t c = 0; c < contigs; ++c) {
    std::uint32_t name_length = 0, length = 0;
    if (!read_u32(file, name_length) || !skip_bytes(file, name_length) || !read_u32(file, length)) {
      throw Error(truncated);
    }
  }
  if (bgzf_seek(file, 0, SEEK_SET) != 0) throw Error(path + ": cannot read the BAM header again");
}

void attach_threads(htsFile* fp, ThreadPool* pool, int threads, const std::string& path) {
  if (pool != nullptr) {
    if (hts_set_thread_pool(fp, static_cast<htsThreadPool*>(pool->native())) != 0) {
      throw Error(path + ": cannot attach the I/O thread pool");
    }
  } else if (threads > 0 && hts_set_threads(fp, threads) != 0) {
    throw Error(path + ": cannot start " + std::to_string(threads) + " decompression threads");
  }
}

// A contig name as HTSlib's region parser takes it whatever characters it holds (a colon, say).
std::string region_of(const Header& header, const ContigRange& range) {
  return "{" + header.contigs()[static_cast<std::size_t>(range.tid)].name +
         "}:" + std::to_string(std::max<std::int64_t>(range.begin, 0) + 1) + "-" +
         std::to_string(range.end);
}

}  // namespace

AlignmentReader::AlignmentReader(const std::string& path, const ReaderOptions& options)
    : path_(path), state_(std::make_unique<State>()) {
  check_readable(path);
  state_->file.reset(hts_open(path.c_str(), "r"));
  if (!state_->file) {
    // HTSlib says ENOEXEC ("Exec format error") for bytes it recognises as no format.
    if (errno == ENOEXEC) throw Error(path + ": not a SAM, BAM or CRAM file");
    throw Error(path + ": cannot open (" + std::strerror(errno ? errno : EIO) + ")");
  }
  htsFile* fp = state_->file.get();
  const htsFormat* format = hts_get_format(fp);
  switch (format->format) {
    case sam:
      format_name_ = "SAM";
      break;
    case bam:
      format_name_ = "BAM";
      break;
    case cram:
      format_name_ = "CRAM";
      break;
    default:
      throw Error(path + ": not a SAM, BAM or CRAM file");
  }
  state_->bgzf = fp->format.compression == bgzf && format->format != cram;
  // Our parallel BAM reader reads a regular file by offset; a stream goes through HTSlib's
  // threaded decompression instead (libdeflate, no mapping), as SAM does.
  state_->stream = is_stream(path);
  const bool native_bam = format->format == bam && !state_->stream;
  state_->keep_records = options.keep_bam_records;
  state_->visitor = options.visitor;
  state_->threads = options.threads;
  state_->pool = options.pool;
  // A BGZF file that lost its tail still decodes up to the cut; refuse it rather than lose reads.
  // Checked before threads start reading ahead, so the cause is reported, not its symptom.
  // A stream cannot be looked at from its end: its marker is checked when it ends.
  if (state_->bgzf && !state_->stream) detail::require_bgzf_end_marker(fp->fp.bgzf, path);
  if (format->format == cram) {
    // The same for CRAM's end-of-file container (HTSlib only warns; a stream answers 2).
    if (!state_->stream && cram_check_EOF(fp->fp.cram) == 0) {
      throw Error(path + ": the CRAM end-of-file container is missing: the file is truncated");
    }
    if (options.reference.empty()) {
      throw Error(path + ": CRAM input needs its reference: pass -R/--reference");
    }
    if (hts_set_fai_filename(fp, options.reference.c_str()) != 0) {
      throw Error(options.reference + ": cannot use as the CRAM reference");
    }
  }
  if (native_bam) {
    // BAM records are read by our own parallel reader after the header (see read_bam).
  } else {
    attach_threads(fp, options.pool, options.threads, path);
  }
  if (format->format == bam && !state_->stream) check_bam_header_lengths(fp->fp.bgzf, path);
  sam_hdr_t* h = sam_hdr_read(fp);
  if (h == nullptr)
    throw Error(path + ": truncated or corrupt " + format_name_ + " data in the header");
  header_ = Header(h);
  reference_ = options.reference;
  if (native_bam) {
    state_->bam.emplace(path, static_cast<std::uint64_t>(bgzf_tell(fp->fp.bgzf)),
                        std::max<std::size_t>(options.read_ahead_bytes, 1 << 16),
                        state_->keep_records, options.inflate_offload, options.inflate_first,
                        options.free_read_bytes);
    state_->file.reset();
  }
}

AlignmentReader::~AlignmentReader() = default;

BamReadSeconds AlignmentReader::bam_stage_seconds() const {
  return state_->bam ? state_->bam->stage_seconds() : BamReadSeconds{};
}

std::optional<std::vector<std::uint64_t>> AlignmentReader::indexed_mapped_counts() const {
  if (state_->stream || format_name_ != "BAM") return std::nullopt;
  hts::File file(hts_open(path_.c_str(), "r"));
  if (!file) return std::nullopt;
  hts::Index index(sam_index_load3(file.get(), path_.c_str(), nullptr, HTS_IDX_SILENT_FAIL));
  if (!index) return std::nullopt;
  std::vector<std::uint64_t> counts(header_.contigs().size());
  bool any = false;
  for (std::size_t tid = 0; tid < counts.size(); ++tid) {
    std::uint64_t mapped = 0;
    std::uint64_t unmapped = 0;
    // A contig without records has no statistics: none mapped.
    if (hts_idx_get_stat(index.get(), static_cast<int>(tid), &mapped, &unmapped) == 0) {
      counts[tid] = mapped;
      any = true;
    }
  }
  // An index without statistics at all (one that did not record them) tells nothing.
  if (!any) return std::nullopt;
  return counts;
}

bool AlignmentReader::restrict_to(std::span<const ContigRange> ranges) {
  if (state_->stream || state_->records_read > 0 || state_->iterator ||
      (format_name_ != "BAM" && format_name_ != "CRAM")) {
    return false;
  }
  // The region parser takes a contig name in braces unless it holds braces itself.
  std::vector<std::string> regions;
  for (const ContigRange& range : ranges) {
    const std::string& name = header_.contigs().at(static_cast<std::size_t>(range.tid)).name;
    if (name.find_first_of("{}") != std::string::npos) return false;
    if (range.end > std::max<std::int64_t>(range.begin, 0)) {
      regions.push_back(region_of(header_, range));
    }
  }
  if (regions.empty()) return false;
  hts::File file(hts_open(path_.c_str(), "r"));
  if (!file) return false;
  if (!reference_.empty() && hts_set_fai_filename(file.get(), reference_.c_str()) != 0) {
    return false;
  }
  hts::SamHeader header(sam_hdr_read(file.get()));
  if (!header) return false;
  hts::Index index(sam_index_load3(file.get(), path_.c_str(), nullptr, HTS_IDX_SILENT_FAIL));
  if (!index) return false;
  attach_threads(file.get(), state_->pool, state_->threads, path_);
  std::vector<char*> names;
  for (std::string& region : regions) names.push_back(region.data());
  // Overlapping regions are merged: each record comes once.
  hts::Iterator iterator(sam_itr_regarray(index.get(), header_.get(), names.data(),
                                          static_cast<unsigned int>(names.size())));
  if (!iterator) throw Error(path_ + ": cannot query its index for the intervals");
  state_->bam.reset();
  state_->file = std::move(file);
  state_->index = std::move(index);
  state_->iterator = std::move(iterator);
  return true;
}

std::size_t AlignmentReader::read_into(ReadBatch& batch, std::size_t max_records) {
  if (state_->bam) return state_->read_bam(path_, header_, batch, max_records);
  if (state_->at_end) return 0;
  htsFile* fp = state_->file.get();
  bam1_t* record = state_->record.get();
  const sam_hdr_t* h = header_.get();
  std::size_t count = 0;
  // HTSlib's records are visited a step at a time, after they are appended.
  constexpr std::size_t kVisitStep = 4096;
  std::size_t unvisited = batch.size();
  auto visit_appended = [&] {
    if (state_->visitor == nullptr || unvisited == batch.size()) return;
    state_->visitor->resize(batch.size());
    state_->visitor->visit(batch, header_, unvisited, batch.size());
    unvisited = batch.size();
  };
  while (max_records == 0 || count < max_records) {
    if (batch.size() - unvisited == kVisitStep) visit_appended();
    const int status = state_->iterator ? sam_itr_next(fp, state_->iterator.get(), record)
                                        : sam_read1(fp, const_cast<sam_hdr_t*>(h), record);
    // With decompression threads a damaged block can surface as a plain end of file: the BGZF
    // error code tells the two apart.
    const bool damaged = status == -1 && state_->bgzf && fp->fp.bgzf->errcode != 0;
    if (status == -1 && !damaged) {
      if (state_->bgzf && state_->stream && fp->fp.bgzf->no_eof_block) {
        throw Error(path_ + ": the BGZF end-of-file marker is missing: the input is truncated");
      }
      state_->at_end = true;
      break;
    }
    if (status < -1 || damaged) throw Error(path_ + ": " + where_unreadable());
    detail::append_record(*record, header_, batch);
    ++count;
    ++state_->records_read;
  }
  visit_appended();
  return count;
}

std::string AlignmentReader::where_unreadable() const {
  const std::string what = "truncated or corrupt " + format_name_ + " data";
  // Threads parse ahead, so the records handed out so far do not say where the fault is: a file
  // is read again on one thread up to it (a stream cannot be).
  if (state_->stream) {
    return what + " at or after record " + std::to_string(state_->records_read + 1);
  }
  hts::File file(hts_open(path_.c_str(), "r"));
  if (!file) return what;
  if (!reference_.empty()) hts_set_fai_filename(file.get(), reference_.c_str());
  hts::SamHeader header(sam_hdr_read(file.get()));
  if (!header) return what + " in the header";
  hts::Record record(bam_init1());
  std::size_t good = 0;
  while (sam_read1(file.get(), header.get(), record.get()) >= 0) ++good;
  std::string where = what + " at record " + std::to_string(good + 1);
  if (format_name_ == "SAM" && file->format.compression == no_compression) {
    // The header's lines come first; the record's line follows the good ones.
    const std::string_view text(sam_hdr_str(header.get()), sam_hdr_length(header.get()));
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    where += " (line " + std::to_string(lines + good + 1) + ")";
  }
  return where;
}

ReadBatch read_alignments(const std::string& path, const ReaderOptions& options, Header& header) {
  AlignmentReader reader(path, options);
  ReadBatch batch;
  reader.read_into(batch);
  header = reader.header();
  return batch;
}

}  // namespace gpp::io
