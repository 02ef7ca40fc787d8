#include "io/alignment_reader.hpp"

#include <htslib/bgzf.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/hts_handles.hpp"
#include "io/record_codec.hpp"
#include "io/thread_pool.hpp"
#include "kernels/error.hpp"

namespace gpp::io {

struct AlignmentReader::State {
  hts::File file;
  hts::Record record{bam_init1()};
  std::size_t records_read = 0;
  bool bgzf = false;
};

namespace {

void check_readable(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a file");
}

}  // namespace

AlignmentReader::AlignmentReader(const std::string& path, const ReaderOptions& options)
    : path_(path), state_(std::make_unique<State>()) {
  check_readable(path);
  state_->file.reset(hts_open(path.c_str(), "r"));
  if (!state_->file) {
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
  // A BGZF file that lost its tail still decodes up to the cut; refuse it rather than lose reads.
  // Checked before threads start reading ahead, so the cause is reported, not its symptom.
  if (state_->bgzf && bgzf_check_EOF(fp->fp.bgzf) == 0) {
    throw Error(path + ": the BGZF end-of-file marker is missing: the file is truncated");
  }
  if (format->format == cram) {
    if (options.reference.empty()) {
      throw Error(path + ": CRAM input needs its reference: pass -R/--reference");
    }
    if (hts_set_fai_filename(fp, options.reference.c_str()) != 0) {
      throw Error(options.reference + ": cannot use as the CRAM reference");
    }
  }
  if (options.pool != nullptr) {
    if (hts_set_thread_pool(fp, static_cast<htsThreadPool*>(options.pool->native())) != 0) {
      throw Error(path + ": cannot attach the I/O thread pool");
    }
  } else if (options.threads > 0 && hts_set_threads(fp, options.threads) != 0) {
    throw Error(path + ": cannot start " + std::to_string(options.threads) + " decompression threads");
  }
  sam_hdr_t* h = sam_hdr_read(fp);
  if (h == nullptr) throw Error(path + ": truncated or corrupt " + format_name_ + " data in the header");
  header_ = Header(h);
}

AlignmentReader::~AlignmentReader() = default;

std::size_t AlignmentReader::read_into(ReadBatch& batch, std::size_t max_records) {
  htsFile* fp = state_->file.get();
  bam1_t* record = state_->record.get();
  const sam_hdr_t* h = header_.get();
  std::size_t count = 0;
  while (max_records == 0 || count < max_records) {
    const int status = sam_read1(fp, const_cast<sam_hdr_t*>(h), record);
    // With decompression threads a damaged block can surface as a plain end of file: the BGZF
    // error code tells the two apart.
    const bool damaged = status == -1 && state_->bgzf && fp->fp.bgzf->errcode != 0;
    if (status == -1 && !damaged) break;
    if (status < -1 || damaged) {
      throw Error(path_ + ": truncated or corrupt " + format_name_ + " data after record " +
                  std::to_string(state_->records_read));
    }
    detail::append_record(*record, header_, batch);
    ++count;
    ++state_->records_read;
  }
  return count;
}

ReadBatch read_alignments(const std::string& path, const ReaderOptions& options, Header& header) {
  AlignmentReader reader(path, options);
  ReadBatch batch;
  reader.read_into(batch);
  header = reader.header();
  return batch;
}

}  // namespace gpp::io
