// PlainFasta: bases of an uncompressed FASTA read straight from the file through its .fai, what
// HTSlib's faidx_fetch_seq64 returns (the same seek, then every printable non-blank byte until
// the range is full) in one read per piece instead of a buffered getc per byte: faidx reads about
// 50 MB of bases a second on one core, a third of `run`'s reference loading time at genome scale.
// BGZF-compressed FASTA stays with faidx (open() gives nothing).
//
// @code
//   if (auto plain = PlainFasta::open(path)) bases = plain->fetch("chr20", 0, 1000);
// @endcode
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace gpp::io {

class PlainFasta {
 public:
  /// The FASTA at `path` with its index `path`.fai, or nothing when the file is compressed, or
  /// the index is missing or not one this reader understands (faidx then reads the file).
  static std::unique_ptr<PlainFasta> open(const std::string& path);
  ~PlainFasta();
  PlainFasta(const PlainFasta&) = delete;
  PlainFasta& operator=(const PlainFasta&) = delete;

  /// Bases [start, end) of `contig` (0 <= start < end <= its length); nothing when the index does
  /// not list the contig. Throws gpp::Error naming the file when the bytes run out first, or
  /// when the index's lines of the contig do not fall on the file's (an index made before the
  /// file was rewrapped).
  std::optional<std::string> fetch(const std::string& contig, std::int64_t start,
                                   std::int64_t end) const;

 private:
  struct Entry {
    std::int64_t length;
    std::int64_t offset;      ///< of the first base
    std::int64_t line_bases;  ///< bases on each full line
    std::int64_t line_bytes;  ///< bytes of each full line, its end included
  };
  PlainFasta(std::string path, int fd, std::unordered_map<std::string, Entry> entries);
  /// @throws gpp::Error naming the file and its index when the index's lines of `contig` do not
  ///         fall on the file's
  void check_layout(const std::string& contig, const Entry& e) const;

  std::string path_;
  int fd_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace gpp::io
