#include "io/genome/plain_fasta.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <fstream>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/genome/fasta_index_line.hpp"

namespace gpp::io {

namespace {

// isgraph() in the C locale: what faidx keeps of the bytes it reads.
constexpr std::array<std::uint8_t, 256> kKept = [] {
  std::array<std::uint8_t, 256> kept{};
  for (int c = 0x21; c < 0x7f; ++c) kept[static_cast<std::size_t>(c)] = 1;
  return kept;
}();

/// The byte at `offset`: -1 at the end of the file.
int byte_at(int fd, std::int64_t offset) {
  unsigned char c = 0;
  for (;;) {
    const ssize_t got = ::pread(fd, &c, 1, static_cast<off_t>(offset));
    if (got == 1) return c;
    if (got < 0 && errno == EINTR) continue;
    return -1;
  }
}

}  // namespace

void PlainFasta::check_layout(const std::string& contig, const Entry& e) const {
  if (e.length <= 0) return;
  // Where the index puts the contig's first base, the end of its first line and its last base:
  // a base, a line end, a base followed by a line end. An index made for another wrapping of the
  // file (a stale .fai) fails one of these instead of giving wrong bases. The file's end counts
  // as anything: a file shorter than its index is found by the reading, as faidx finds it.
  const auto is = [this](std::int64_t offset, bool base) {
    const int c = byte_at(fd_, offset);
    return c < 0 || (kKept[static_cast<std::size_t>(c)] != 0) == base;
  };
  const std::int64_t last = e.length - 1;
  const std::int64_t last_offset =
      e.offset + last / e.line_bases * e.line_bytes + last % e.line_bases;
  if (!is(e.offset, true) || (e.length > e.line_bases && !is(e.offset + e.line_bases, false)) ||
      !is(last_offset, true) || !is(last_offset + 1, false)) {
    throw Error(path_ + ": its index " + path_ + ".fai does not match the file (the lines of " +
                contig + " lie elsewhere); make the index again (samtools faidx " + path_ + ")");
  }
}

std::unique_ptr<PlainFasta> PlainFasta::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  unsigned char magic[2] = {};
  const bool compressed = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  std::ifstream index(path + ".fai");
  if (compressed || !index) {
    ::close(fd);
    return nullptr;
  }
  // Reference has checked each line already; the first line of a name counts, as in faidx.
  std::unordered_map<std::string, Entry> entries;
  std::string line;
  while (std::getline(index, line)) {
    const std::optional<FastaIndexEntry> entry = parse_fasta_index_line(line);
    if (!entry) {
      ::close(fd);
      return nullptr;
    }
    entries.emplace(std::string(entry->name),
                    Entry{entry->length, entry->offset, entry->line_bases, entry->line_bytes});
  }
  return std::unique_ptr<PlainFasta>(new PlainFasta(path, fd, std::move(entries)));
}

PlainFasta::PlainFasta(std::string path, int fd, std::unordered_map<std::string, Entry> entries)
    : path_(std::move(path)), fd_(fd), entries_(std::move(entries)) {}

PlainFasta::~PlainFasta() { ::close(fd_); }

std::optional<std::string> PlainFasta::fetch(const std::string& contig, std::int64_t start,
                                             std::int64_t end) const {
  const auto found = entries_.find(contig);
  if (found == entries_.end()) return std::nullopt;
  const Entry& e = found->second;
  check_layout(contig, e);
  const auto wanted = static_cast<std::size_t>(end - start);
  std::string bases(wanted, '\0');
  // faidx's seek: the byte of base `start` on a file of full lines.
  std::int64_t offset = e.offset + start / e.line_bases * e.line_bytes + start % e.line_bases;
  // The bytes of the range with its line ends and a little more (at most 64 MiB at a time), read
  // again from where it stopped while bases are missing.
  std::vector<char> buffer(static_cast<std::size_t>(std::min<std::int64_t>(
      (static_cast<std::int64_t>(wanted) / e.line_bases + 2) * e.line_bytes + 64, 64 << 20)));
  std::size_t filled = 0;
  while (filled < wanted) {
    const ssize_t got = ::pread(fd_, buffer.data(), buffer.size(), static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {  // faidx's error, word for word
      throw Error(path_ + ": cannot read " + contig + ":" + std::to_string(start + 1) + "-" +
                  std::to_string(end));
    }
    offset += got;
    for (ssize_t k = 0; k < got && filled < wanted; ++k) {
      const auto c = static_cast<unsigned char>(buffer[static_cast<std::size_t>(k)]);
      bases[filled] = static_cast<char>(c);
      filled += kKept[c];
    }
  }
  return bases;
}

}  // namespace gpp::io
