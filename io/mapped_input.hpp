// MappedInput: an input file mapped read-only in whole, and a clean error instead of SIGBUS when
// another program truncates the file while it is mapped.
//
// Reading a page of a mapping past the file's new end raises SIGBUS, which would kill the process
// with a core dump and leave temporary outputs behind. While a MappedInput exists, a SIGBUS whose
// address falls in its pages prints one line, "gpu-pipeline: error: <path>: the file was
// truncated while being read", removes every temporary output (as SIGINT does) and exits with
// code 1. A SIGBUS anywhere else keeps its default action.
//
// @code
//   io::MappedInput map(fd, size, "in.bam");
//   if (map.data() != nullptr) use(map.data(), size);   // else read with pread
// @endcode
#pragma once

#include <cstdint>
#include <string>

namespace gpp::io {

class MappedInput {
 public:
  /// Maps the `size` bytes of the open file `fd` (`path` names it in the error). data() is null
  /// when the file cannot be mapped (or size is 0): the caller reads it instead.
  MappedInput(int fd, std::uint64_t size, const std::string& path);
  ~MappedInput();
  MappedInput(const MappedInput&) = delete;
  MappedInput& operator=(const MappedInput&) = delete;

  const std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }

  /// Done with the bytes before `offset`: their pages leave this process's resident memory (they
  /// stay in the page cache and are read again if touched), so that reading a file front to back
  /// holds a bounded part of it, not all of it, whatever its size. Works in steps of 1 MiB.
  void release_before(std::uint64_t offset);

 private:
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t released_ = 0;  ///< bytes from the start whose pages were released
  int slot_ = -1;               ///< its entry in the SIGBUS handler's list of mappings
};

}  // namespace gpp::io
