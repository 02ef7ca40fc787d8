// SpillFile: bytes a command puts aside in --tmp-dir while it works (duplicate-marking keys, read
// ends), written once front to back and read back front to back, as often as needed. The file
// never has a name (O_TMPFILE, or a temporary name removed as soon as it is opened), so it goes
// however the process ends, SIGKILL included; it takes one file descriptor.
//
// @code
//   SpillFile file(tmp_dir, "ends");
//   file.write(&end, sizeof end);                        // buffered
//   SpillFile::Reader in = file.reader(1 << 20);
//   while (in.read(&end, sizeof end)) use(end);
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpp::pipeline {

class SpillFile {
 public:
  /// A new empty file in `directory`, written through a buffer of `buffer_bytes`.
  explicit SpillFile(const std::string& directory, std::size_t buffer_bytes = 1 << 20);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends `bytes` bytes. Throws gpp::Error naming the directory when the disk refuses them.
  void write(const void* data, std::size_t bytes);
  /// Writes out what the buffer holds and gives the buffer back (a file written whole keeps no
  /// memory); write() after it works through a small buffer.
  void finish();
  /// Bytes written so far.
  std::uint64_t size() const { return written_ + used_; }

  /// Reads the file from byte `from` (its start by default), `buffer_bytes` at a time (what was
  /// written so far). Readers of one file may read at once, on threads of their own.
  class Reader {
   public:
    /// Copies the next `bytes` bytes to `out`; false at the end of the file (nothing copied).
    /// Throws gpp::Error when the file ends inside them or cannot be read.
    bool read(void* out, std::size_t bytes);

   private:
    friend class SpillFile;
    Reader(const SpillFile& file, std::size_t buffer_bytes, std::uint64_t from);
    const SpillFile* file_;
    std::vector<char> buffer_;
    std::size_t begin_ = 0, end_ = 0;  ///< unread bytes of buffer_
    std::uint64_t offset_ = 0;         ///< file offset of buffer_'s end
  };
  Reader reader(std::size_t buffer_bytes, std::uint64_t from = 0);
  /// Copies `bytes` bytes from byte `from` straight to `out`, of what was written before the
  /// last finish(); from any number of threads at once. Throws gpp::Error when the file ends
  /// inside them or cannot be read.
  void read_at(std::uint64_t from, void* out, std::size_t bytes) const;

 private:
  void flush();
  [[noreturn]] void fail(const char* doing) const;

  std::string directory_;
  int fd_ = -1;
  std::vector<char> buffer_;
  std::size_t used_ = 0;  ///< bytes of buffer_ not yet written
  std::uint64_t written_ = 0;
};

}  // namespace gpp::pipeline
