#include "pipeline/spill_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "io/background_release.hpp"

namespace gpp::pipeline {

SpillFile::SpillFile(const std::string& directory, std::size_t buffer_bytes)
    : directory_(directory) {
  fd_ = ::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0 && errno != ENOENT && errno != EACCES && errno != ENOTDIR) {
    // A file system without unnamed files: a name, removed at once (the descriptor keeps it).
    std::string path = (std::filesystem::path(directory) / ".gpu-pipeline.XXXXXX").string();
    fd_ = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd_ >= 0) ::unlink(path.c_str());
  }
  if (fd_ < 0) fail("cannot hold temporary files");
  buffer_.resize(std::max<std::size_t>(buffer_bytes, 4096));
}

SpillFile::~SpillFile() {
  // The file vanishes with its descriptor; freeing its blocks may wait for the device.
  io::close_in_background(fd_);
}

void SpillFile::finish() {
  flush();
  std::vector<char>().swap(buffer_);
}

void SpillFile::write(const void* data, std::size_t bytes) {
  const char* from = static_cast<const char*>(data);
  while (bytes > 0) {
    if (buffer_.empty()) buffer_.resize(4096);
    if (used_ == buffer_.size()) flush();
    const std::size_t n = std::min(bytes, buffer_.size() - used_);
    std::memcpy(buffer_.data() + used_, from, n);
    used_ += n;
    from += n;
    bytes -= n;
  }
}

void SpillFile::flush() {
  if (used_ == 0) return;  // nothing written: readers of a finished file may start at once
  std::size_t done = 0;
  while (done < used_) {
    const ssize_t n =
        ::pwrite(fd_, buffer_.data() + done, used_ - done, static_cast<off_t>(written_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) fail("cannot write temporary files");
    done += static_cast<std::size_t>(n);
  }
  written_ += done;
  used_ = 0;
}

void SpillFile::fail(const char* doing) const {
  throw Error(directory_ + ": " + doing + " (" + std::strerror(errno) + ")");
}

void SpillFile::read_at(std::uint64_t from, void* out, std::size_t bytes) const {
  char* to = static_cast<char*>(out);
  while (bytes > 0) {
    if (from >= written_) throw Error(directory_ + ": a temporary file ends early");
    const ssize_t n =
        ::pread(fd_, to, std::min<std::uint64_t>(bytes, written_ - from), static_cast<off_t>(from));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) fail("cannot read temporary files");
    to += n;
    from += static_cast<std::uint64_t>(n);
    bytes -= static_cast<std::size_t>(n);
  }
}

SpillFile::Reader SpillFile::reader(std::size_t buffer_bytes, std::uint64_t from) {
  flush();
  return Reader(*this, buffer_bytes, from);
}

SpillFile::Reader::Reader(const SpillFile& file, std::size_t buffer_bytes, std::uint64_t from)
    : file_(&file), buffer_(std::max<std::size_t>(buffer_bytes, 4096)), offset_(from) {}

bool SpillFile::Reader::read(void* out, std::size_t bytes) {
  char* to = static_cast<char*>(out);
  bool started = false;
  while (bytes > 0) {
    if (begin_ == end_) {
      if (offset_ >= file_->written_) {
        if (started) throw Error(file_->directory_ + ": a temporary file ends early");
        return false;
      }
      const std::size_t want = static_cast<std::size_t>(
          std::min<std::uint64_t>(buffer_.size(), file_->written_ - offset_));
      const ssize_t n = ::pread(file_->fd_, buffer_.data(), want, static_cast<off_t>(offset_));
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) errno = EIO;
      if (n <= 0) file_->fail("cannot read temporary files");
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
      offset_ += end_;
    }
    const std::size_t n = std::min(bytes, end_ - begin_);
    std::memcpy(to, buffer_.data() + begin_, n);
    begin_ += n;
    to += n;
    bytes -= n;
    started = true;
  }
  return true;
}

}  // namespace gpp::pipeline
