#include "io/text/indexed_vcf_output.hpp"

#include <htslib/bgzf.h>
#include <htslib/tbx.h>
#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"

namespace gpp::io {

namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const std::string& checked_writable(const std::string& path) {
  check_output_writable(path);
  return path;
}

/// Threads for BGZF compression and for reading the file back into its index: the command's
/// --threads (TBB's limit), at most 8. The bytes do not depend on it (blocks are cut the same way).
int compression_threads() {
  const std::size_t threads = oneapi::tbb::global_control::active_value(
      oneapi::tbb::global_control::max_allowed_parallelism);
  return static_cast<int>(std::clamp<std::size_t>(threads, 1, 8));
}

}  // namespace

/// The open temporary file: a BGZF stream or a plain FILE.
struct VcfOutput::Stream {
  BGZF* bgzf = nullptr;
  std::FILE* plain = nullptr;

  bool close() {
    bool ok = true;
    if (bgzf != nullptr) ok = bgzf_close(bgzf) == 0;
    if (plain != nullptr) ok = std::fclose(plain) == 0 && ok;
    bgzf = nullptr;
    plain = nullptr;
    return ok;
  }
  ~Stream() { close(); }
};

VcfOutput::VcfOutput(const std::string& path)
    : path_(path),
      compressed_(ends_with(path, ".gz")),
      output_(checked_writable(path)),
      stream_(std::make_unique<Stream>()) {
  if (compressed_) {
    // A stream cannot be read back to be indexed.
    if (!output_.streamed()) index_ = std::make_unique<OutputFile>(path + ".tbi");
    // Deflate level 5, htsjdk's default and so GATK's: a gVCF is text of every base, and level
    // 6 (HTSlib's default) costs half as much time again for 1% less size.
    stream_->bgzf = bgzf_open(output_.temp_path().c_str(), "w5");
    if (stream_->bgzf != nullptr && compression_threads() > 1) {
      bgzf_mt(stream_->bgzf, compression_threads(), 256);
    }
  } else {
    stream_->plain = std::fopen(output_.temp_path().c_str(), "wb");
  }
  if (stream_->bgzf == nullptr && stream_->plain == nullptr) throw Error(path + ": cannot create");
}

VcfOutput::~VcfOutput() = default;

void VcfOutput::write(std::string_view text) {
  if (text.empty()) return;
  const bool written =
      stream_->bgzf != nullptr
          ? bgzf_write(stream_->bgzf, text.data(), text.size()) == static_cast<ssize_t>(text.size())
          : std::fwrite(text.data(), 1, text.size(), stream_->plain) == text.size();
  if (!written) throw Error(path_ + ": cannot write (disk full?)");
}

void VcfOutput::commit() {
  if (!stream_->close()) throw Error(path_ + ": cannot write (disk full?)");
  if (index_) {
    // min_shift 0 selects TBI (CSI otherwise), with tabix's VCF column layout.
    if (tbx_index_build3(output_.temp_path().c_str(), index_->temp_path().c_str(), 0,
                         compression_threads(), &tbx_conf_vcf) != 0) {
      throw Error(path_ +
                  ": cannot build the tabix index (records not sorted by contig and position?)");
    }
  }
  // The data first: an index older than its data draws a warning from HTSlib.
  output_.commit();
  if (index_) index_->commit();
}

void write_indexed_vcf(const std::string& path, const std::string& vcf_text) {
  VcfOutput output(path);
  output.write(vcf_text);
  output.commit();
}

}  // namespace gpp::io
