#include "io/text/indexed_vcf_output.hpp"

#include <cstdio>
#include <cstring>
#include <future>
#include <vector>

#include "core/error.hpp"
#include "io/bam/bgzf_writer.hpp"
#include "io/text/tabix_index.hpp"

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

/// BGZF level 5: htsjdk's default and so GATK's. A gVCF is text of every base, and level 6
/// (HTSlib's default) costs half as much time again for 1% less size.
constexpr int kCompressionLevel = 5;

}  // namespace

/// The open temporary file: plain text, or BGZF blocks compressed by a BgzfWriter on a thread of
/// its own (one chunk at a time, behind the caller) with the tabix index built from the virtual
/// offsets of the lines as they are placed.
struct VcfOutput::Stream {
  std::string name;  ///< the output's path, for errors
  std::FILE* file = nullptr;
  std::unique_ptr<detail::BgzfWriter> bgzf;
  std::unique_ptr<TabixIndex> index;  // absent for a streamed output
  std::future<void> compressing;      // the last chunk handed over

  /// Compresses `chunk` (whole lines) after what was written, and indexes its lines. Each chunk
  /// ends its last block, so the offset past its last line is where the next block starts.
  void compress(const std::string& chunk) {
    std::vector<std::uint64_t> line_ends;
    for (std::size_t at = 0; at < chunk.size();) {
      const std::size_t newline = chunk.find('\n', at);
      at = newline == std::string::npos ? chunk.size() : newline + 1;
      line_ends.push_back(at);
    }
    std::vector<std::uint64_t> virtual_ends;
    bgzf->write_records(
        line_ends,
        [&](std::size_t k, std::uint8_t* dst) {
          const std::size_t start = k == 0 ? 0 : line_ends[k - 1];
          std::memcpy(dst, chunk.data() + start, line_ends[k] - start);
        },
        virtual_ends);
    bgzf->write_and_flush({});
    if (!index) return;
    virtual_ends.back() = bgzf->tell();
    std::size_t start = 0;
    for (std::size_t k = 0; k < line_ends.size(); ++k) {
      std::string_view line(chunk.data() + start, line_ends[k] - start);
      if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
      try {
        index->add_line(line, virtual_ends[k]);
      } catch (const Error& e) {
        throw Error(name + ": " + e.what());
      }
      start = line_ends[k];
    }
  }

  /// Waits for the chunk being compressed; rethrows its error.
  void wait() {
    if (compressing.valid()) compressing.get();
  }

  bool close() {
    const bool ok = file == nullptr || std::fclose(file) == 0;
    file = nullptr;
    return ok;
  }
  ~Stream() {
    if (compressing.valid()) compressing.wait();
    bgzf.reset();
    close();
  }
};

VcfOutput::VcfOutput(const std::string& path)
    : path_(path),
      compressed_(ends_with(path, ".gz")),
      output_(checked_writable(path)),
      stream_(std::make_unique<Stream>()) {
  stream_->name = path;
  stream_->file = open_output_stream(output_.temp_path());
  if (stream_->file == nullptr) throw Error(path + ": cannot create");
  if (compressed_) {
    stream_->bgzf = std::make_unique<detail::BgzfWriter>(path, stream_->file, kCompressionLevel);
    // A stream cannot be named an index's data.
    if (!output_.streamed()) {
      index_ = std::make_unique<OutputFile>(path + ".tbi");
      stream_->index = std::make_unique<TabixIndex>();
    }
  }
}

VcfOutput::~VcfOutput() = default;

void VcfOutput::write(std::string_view text) {
  if (text.empty()) return;
  if (!compressed_) {
    if (std::fwrite(text.data(), 1, text.size(), stream_->file) != text.size()) {
      throw Error(path_ + ": cannot write (disk full?)");
    }
    return;
  }
  stream_->wait();
  stream_->compressing =
      std::async(std::launch::async,
                 [stream = stream_.get(), chunk = std::string(text)] { stream->compress(chunk); });
}

void VcfOutput::close() {
  if (closed_) return;
  std::uint64_t end_of_data = 0;
  if (compressed_) {
    stream_->wait();
    end_of_data = stream_->bgzf->tell();
    stream_->bgzf->finish();
  }
  if (!stream_->close()) throw Error(path_ + ": cannot write (disk full?)");
  if (index_) stream_->index->save(index_->temp_path(), end_of_data);
  closed_ = true;
}

void VcfOutput::commit() {
  close();
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
